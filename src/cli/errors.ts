/**
 * Errors of the command line. Each carries the exit code it ends the process with: 2 for a
 * usage error (unknown command or flag, missing argument), 1 for a failure (a file that cannot
 * be read or parsed, a library error).
 */

export const USAGE_EXIT_CODE = 2;
export const FAILURE_EXIT_CODE = 1;

/** An error the command line reports as one line on stderr, then exits with `exitCode`. */
export class CliError extends Error {
  /** The process exit code this error ends with. */
  readonly exitCode: number;

  constructor(message: string, exitCode: number = FAILURE_EXIT_CODE, options: { cause?: unknown } = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** A usage error: an unknown command or flag, a missing or malformed argument. Exit code 2. */
export class UsageError extends CliError {
  /** The command whose usage was wrong, to point at its `--help`. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message, USAGE_EXIT_CODE);
    this.command = command;
  }
}
