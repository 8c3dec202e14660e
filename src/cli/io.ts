/**
 * Reading the input and writing the output of a command: files, `-` for standard input,
 * standard output when no `-o` is given.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError } from './errors.js';

const OS_ERROR_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

function describeOsError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code in OS_ERROR_TEXT) return `${OS_ERROR_TEXT[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
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
 * Reads a UTF-8 file, or standard input when `path` is `-`.
 *
 * @throws {CliError} (exit 1) naming the file and what the OS said: `cannot read x.json: no such file (ENOENT)`.
 */
export async function readInput(path: string): Promise<InputText> {
  if (path === '-') return { source: 'stdin', text: await readStandardInput() };
  try {
    return { source: path, text: await readFile(path, 'utf8') };
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${describeOsError(error)}`, undefined, { cause: error });
  }
}

/**
 * Writes a file, creating its directory.
 *
 * @throws {CliError} (exit 1) naming the file and what the OS said.
 */
export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  } catch (error) {
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
export function writeStandardOutput(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error && !isBrokenPipe(error) ? reject(error) : resolve()));
  });
}
