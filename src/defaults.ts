/**
 * `agent-context-offload/defaults`: every default value of the package, each the fallback of
 * its option (and of its environment variable, where it has one).
 *
 * @packageDocumentation
 */
export * from './core/defaults.js';
export { DEFAULT_READ_CONTEXT_LINES, DEFAULT_READ_LIMIT, DEFAULT_READ_MAX_CHARS } from './core/read-offloaded.js';
export { DEFAULT_S3_STORE_PREFIX } from './stores/s3-store.js';
