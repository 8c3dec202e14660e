/**
 * Reading the input and writing the output of a command: files, `-` for standard input,
 * standard output when no `-o` is given.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CommandIo, CommandOutput } from './command-io.js';
import { CliError } from './errors.js';

const OS_ERROR_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

/** What the OS said about a failed file operation: `no such file (ENOENT)`, or its message. */
export function describeOsError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code in OS_ERROR_TEXT) return `${OS_ERROR_TEXT[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

async function readStandardInput(stdin: CommandIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** A text read from a file or standard input, with the name to use in messages. */
export interface InputText {
  /** The file path as given, or `stdin`. */
  source: string;
  /** The UTF-8 text. */
  text: string;
}

/**
 * Reads a UTF-8 file, or `stdin` when `path` is `-`.
 *
 * @throws {CliError} (exit 1) naming the file and what the OS said: `cannot read x.json: no such file (ENOENT)`.
 */
export async function readInput(path: string, stdin: CommandIo['stdin']): Promise<InputText> {
  if (path === '-') return { source: 'stdin', text: await readStandardInput(stdin) };
  try {
    return { source: path, text: await readFile(path, 'utf8') };
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${describeOsError(error)}`, undefined, { cause: error });
  }
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

/**
 * The file a write to `path` lands in: a symlink's target, so that `-o link.json` updates the
 * file it points to rather than replacing the link; `path` itself when it does not exist yet.
 */
async function resolveWriteTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissing(error)) return path;
    throw error;
  }
}

/**
 * Permission bits of an existing file, kept by its replacement; `undefined` for a new file.
 *
 * @throws an `EISDIR` error for a directory, before any temporary file is made.
 */
async function readPermissions(path: string): Promise<number | undefined> {
  let status;
  try {
    status = await stat(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  if (status.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
  return status.mode & 0o7777;
}

/**
 * Writes a file atomically, creating its directory: the text goes to a new temporary file
 * in the same directory (so that the rename stays on one file system), which then replaces
 * the target. A write that fails half-way (a full disk, a killed process)
 * leaves the target as it was, which matters when it is also the input
 * (`agent-context offload h.json --out d -o h.json`). An existing target's permissions are
 * kept; a symlink is followed. No fsync.
 *
 * @throws {CliError} (exit 1) naming the file and what the OS said; the temporary file is
 * removed and the target untouched.
 */
export async function writeOutput(path: string, text: string): Promise<void> {
  let temporaryPath: string | undefined;
  try {
    await mkdir(dirname(path), { recursive: true });
    const target = await resolveWriteTarget(path);
    const permissions = await readPermissions(target);
    const candidate = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
    // `wx`: never write into a file that is not ours, even one that happens to have the name.
    const handle = await open(candidate, 'wx', permissions);
    temporaryPath = candidate;
    try {
      // The mode given to open is narrowed by the umask; the original's bits are set as they were.
      if (permissions !== undefined) await handle.chmod(permissions);
      await handle.writeFile(text, 'utf8');
    } catch (error) {
      // The write's own error is the one to report, not a failure to close after it.
      await handle.close().catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(candidate, target);
    temporaryPath = undefined;
  } catch (error) {
    if (temporaryPath !== undefined) await rm(temporaryPath, { force: true }).catch(() => undefined);
    throw new CliError(`cannot write ${path}: ${describeOsError(error)}`, undefined, { cause: error });
  }
}

/** Whether a write failed because the reader went away (`agent-context count x | head`). */
export function isBrokenPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/**
 * Writes to standard output and resolves once the text is handed to the OS (pipes included).
 * A reader that went away is not a failure: there is just no one left to write to.
 */
export function writeStandardOutput(stdout: CommandOutput, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stdout.write(text, (error) => (error && !isBrokenPipe(error) ? reject(error) : resolve()));
  });
}
