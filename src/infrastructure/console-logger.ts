/**
 * The logger the public entry points use when the caller gives none: warnings to the console,
 * nothing else (info and debug stay quiet, as a library's should).
 */
import type { Logger } from '../core/ports.js';

/** Warnings to `console.warn`; no other level. */
export const consoleLogger: Logger = { warn: (message) => console.warn(message) };
