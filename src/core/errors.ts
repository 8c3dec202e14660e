/**
 * Errors. Every error the package throws on purpose is a {@link ContextError} with a
 * machine-readable `code`; errors from the OS or an SDK are kept as `cause`.
 */

/** Machine-readable error codes. */
export type ContextErrorCode =
  | 'INVALID_OPTION'
  | 'INVALID_MESSAGE'
  | 'UNSAFE_PATH'
  | 'WRITE_FAILED'
  | 'READ_FAILED'
  | 'NO_TOOL_RESULT'
  | 'SUMMARIZER_FAILED'
  | 'MISSING_DEPENDENCY';

/** Options of {@link ContextError}. */
export interface ContextErrorOptions {
  /** The underlying error (an OS error, an SDK error, ...). */
  cause?: unknown;
}

/**
 * Base class of every error this package throws on purpose.
 *
 * @example
 * ```ts
 * try { await offloadToolResults(messages, { outputDir }); }
 * catch (error) {
 *   if (error instanceof ContextError && error.code === 'WRITE_FAILED') console.error(error.cause);
 * }
 * ```
 */
export class ContextError extends Error {
  /** What went wrong, for programs. */
  readonly code: ContextErrorCode;

  constructor(code: ContextErrorCode, message: string, options: ContextErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An option or environment variable has a value outside what it accepts. Code `INVALID_OPTION`. */
export class InvalidOptionError extends ContextError {
  constructor(message: string, options: ContextErrorOptions = {}) {
    super('INVALID_OPTION', message, options);
  }
}

/** A message or block is not the shape it must be. Code `INVALID_MESSAGE`; the message names the path of the bad field. */
export class InvalidMessageError extends ContextError {
  /** Path of the bad field, e.g. `messages[3].content[0].tool_use_id`. */
  readonly path: string;

  constructor(path: string, message: string) {
    super('INVALID_MESSAGE', `${path}: ${message}`);
    this.path = path;
  }
}

/** An id or session would escape the output directory. Code `UNSAFE_PATH`; nothing was written. */
export class UnsafePathError extends ContextError {
  constructor(message: string) {
    super('UNSAFE_PATH', message);
  }
}

/** Reading from a store failed (a backend that cannot be reached, a denied read). Code `READ_FAILED`; the backend's error is the `cause`. */
export class ReadFailedError extends ContextError {
  constructor(message: string, options: ContextErrorOptions = {}) {
    super('READ_FAILED', message, options);
  }
}

/** Direct offload was given a message with no `tool_result` block. Code `NO_TOOL_RESULT`; nothing was written. */
export class NoToolResultError extends ContextError {
  constructor(message: string) {
    super('NO_TOOL_RESULT', message);
  }
}

/** Writing an offload or archive file failed. Code `WRITE_FAILED`; the OS error is the `cause`. */
export class WriteFailedError extends ContextError {
  constructor(message: string, options: ContextErrorOptions = {}) {
    super('WRITE_FAILED', message, options);
  }
}

/**
 * A summary attempt returned blank text (or no text). Code `SUMMARIZER_FAILED`. A summarizer
 * made by `createLlmSummarizer` rejects with it; `compactMessages` retries, then reports the
 * last one in `result.error` (`skippedReason: 'summarizer-failed'`) rather than rejecting.
 */
export class SummarizerFailedError extends ContextError {
  constructor(message: string, options: ContextErrorOptions = {}) {
    super('SUMMARIZER_FAILED', message, options);
  }
}

/** An optional peer dependency is needed but not installed. Code `MISSING_DEPENDENCY`. */
export class MissingDependencyError extends ContextError {
  constructor(message: string, options: ContextErrorOptions = {}) {
    super('MISSING_DEPENDENCY', message, options);
  }
}

/** An error's message for a log line or a reply: `error.message`, else the value as a string. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Describes a value for an error message: strings quoted, everything else as JSON-ish text. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const kind = typeof value;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/**
 * Whether `error` says a module could not be found (`ERR_MODULE_NOT_FOUND`, `MODULE_NOT_FOUND`),
 * looking through a few levels of `cause`: loaders and test runners may wrap it. Used to turn a
 * missing optional peer into {@link MissingDependencyError}.
 */
function isModuleNotFoundError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Loads a module; the default is a dynamic `import()` of the package. */
export type SdkImporter = () => Promise<unknown>;

/**
 * Loads an optional peer dependency. A module that cannot be found rejects with
 * {@link MissingDependencyError} (code `MISSING_DEPENDENCY`) saying what to install; any other
 * failure of the import propagates as it is.
 */
export async function importOptionalPeer(
  packageName: string,
  importer: SdkImporter,
  purpose: string,
): Promise<unknown> {
  try {
    return await importer();
  } catch (error) {
    if (!isModuleNotFoundError(error)) throw error;
    throw new MissingDependencyError(
      `${purpose} needs the optional peer dependency ${packageName}, which is not installed: run \`npm install ${packageName}\``,
      { cause: error },
    );
  }
}
