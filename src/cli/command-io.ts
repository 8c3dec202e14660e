/**
 * The streams one run of the command line reads and writes. The `agent-context` bin passes the
 * process's own; a caller running commands in the same process (the CLI's tests) passes its own
 * streams and reads what was written.
 */
import type { OutputStream } from './render/terminal-style.js';

/** A stream a command writes to: a terminal, a pipe, a file or an in-memory sink. */
export interface CommandOutput extends OutputStream {
  /** Writes text; `callback` runs once it is handed on (or fails). */
  write(text: string, callback?: (error?: Error | null) => void): boolean;
}

/** Standard input, output and error of one run. */
export interface CommandIo {
  /** Read when a command's input path is `-`. */
  stdin: AsyncIterable<string | Uint8Array>;
  /** The command's result: a report, JSON, or the new history. */
  stdout: CommandOutput;
  /** Errors, warnings, progress, and the stats when the history goes to stdout. */
  stderr: CommandOutput;
}

export function createProcessIo(): CommandIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}
