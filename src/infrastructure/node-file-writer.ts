/**
 * The Node.js file system behind the {@link FileWriter} port. Every write is atomic (a temp file
 * in the same directory, then a rename or link), so a crash never leaves a half file that a
 * message points to. Offloaded content may hold secrets from tool output: files are created
 * with mode 0600, directories with 0700.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { WriteFailedError } from '../core/errors.js';
import type { FileWriter } from '../core/ports.js';

/** Mode of every file written: owner read/write only. */
export const FILE_MODE = 0o600;
/** Mode of every directory created: owner only. */
export const DIRECTORY_MODE = 0o700;

/** Error codes of `link` on file systems without hard links; exclusive create then falls back to a copy. */
const NO_HARD_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function wrap(action: string, path: string, error: unknown): WriteFailedError {
  return new WriteFailedError(`could not ${action} ${path}: ${describeError(error)}`, { cause: error });
}

/** A fresh name next to `filePath`, on the same file system so rename and link stay atomic. */
function createTempPath(filePath: string): string {
  // Bounded so that a 200-char id plus the suffix stays under the usual 255-byte name limit.
  const stem = basename(filePath).slice(0, 100);
  return join(dirname(filePath), `.${stem}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

async function writeTemp(filePath: string, content: string): Promise<string> {
  const tempPath = createTempPath(filePath);
  try {
    await writeFile(tempPath, content, { encoding: 'utf8', mode: FILE_MODE, flag: 'wx' });
  } catch (error) {
    await removeQuietly(tempPath);
    throw wrap('write', filePath, error);
  }
  return tempPath;
}

/** Whether the file at `filePath` holds exactly `content`; size first, so most mismatches cost no read. */
async function holdsContent(filePath: string, content: string): Promise<boolean> {
  try {
    const info = await stat(filePath);
    if (!info.isFile() || info.size !== Buffer.byteLength(content, 'utf8')) return false;
    return (await readFile(filePath, 'utf8')) === content;
  } catch {
    // Gone or unreadable: not ours to reuse; the caller moves to another name.
    return false;
  }
}

/** Creates a directory and its parents (mode 0700); no error when it exists. */
async function ensureDir(dirPath: string): Promise<void> {
  try {
    await mkdir(dirPath, { recursive: true, mode: DIRECTORY_MODE });
  } catch (error) {
    throw wrap('create directory', dirPath, error);
  }
}

/** Writes (creates or replaces) a file atomically: temp file, then rename over the target. */
async function writeFileAtomically(filePath: string, content: string): Promise<void> {
  const tempPath = await writeTemp(filePath, content);
  try {
    await rename(tempPath, filePath);
  } catch (error) {
    await removeQuietly(tempPath);
    throw wrap('write', filePath, error);
  }
}

/**
 * Creates a file only if nothing has that path, atomically: the content goes to a temp file
 * that is then hard-linked to the target (`link` fails with EEXIST instead of replacing, so two
 * writers can never both win). On a file system without hard links, an exclusive copy is used.
 */
async function createExclusive(filePath: string, content: string): Promise<'created' | 'identical' | 'exists'> {
  const tempPath = await writeTemp(filePath, content);
  try {
    await link(tempPath, filePath);
    return 'created';
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return (await holdsContent(filePath, content)) ? 'identical' : 'exists';
    if (code !== undefined && NO_HARD_LINK_CODES.has(code)) return await copyExclusive(tempPath, filePath, content);
    throw wrap('write', filePath, error);
  } finally {
    await removeQuietly(tempPath);
  }
}

async function copyExclusive(tempPath: string, filePath: string, content: string): Promise<'created' | 'identical' | 'exists'> {
  try {
    await copyFile(tempPath, filePath, constants.COPYFILE_EXCL);
    return 'created';
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return (await holdsContent(filePath, content)) ? 'identical' : 'exists';
    throw wrap('write', filePath, error);
  }
}

/** Lists the names in a directory; `[]` when it does not exist. */
async function listDir(dirPath: string): Promise<string[]> {
  try {
    return await readdir(dirPath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw wrap('list', dirPath, error);
  }
}

/** Resolves path segments to an absolute path (`path.resolve`, against the current directory). */
function resolvePath(...segments: string[]): string {
  return resolve(...segments);
}

/**
 * The package's {@link FileWriter} on the Node.js file system, with every optional method, so
 * batch offload never overwrites other content and reuses identical files. OS errors reject as
 * {@link WriteFailedError} with the OS error as `cause`. Methods do not use `this`: they may be
 * passed around on their own.
 *
 * @example
 * ```ts
 * const result = await offloadToolResultsWithWriter(messages, './offload', new NodeFileWriter());
 * ```
 */
export class NodeFileWriter implements FileWriter {
  /** Creates a directory and its parents (mode 0700); no error when it exists. */
  readonly ensureDir: (dirPath: string) => Promise<void> = ensureDir;
  /** Writes (creates or replaces) a file atomically, mode 0600. */
  readonly writeFile: (filePath: string, content: string) => Promise<void> = writeFileAtomically;
  /**
   * Creates a file (mode 0600) only if no file has that path: `'created'`, or `'identical'` when
   * the file there holds exactly this content, or `'exists'` when it holds other content.
   */
  readonly createExclusive: (filePath: string, content: string) => Promise<'created' | 'identical' | 'exists'> = createExclusive;
  /** Lists the names in a directory; `[]` when it does not exist. */
  readonly listDir: (dirPath: string) => Promise<string[]> = listDir;
  /** `path.resolve`: absolute paths against the current directory. */
  readonly resolvePath: (...segments: string[]) => string = resolvePath;
}

/** Creates a {@link NodeFileWriter}. */
export function createNodeFileWriter(): NodeFileWriter {
  return new NodeFileWriter();
}
