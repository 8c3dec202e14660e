/**
 * The Node.js file system behind the {@link FileWriter} port. Every write is atomic (a temp file
 * in the same directory, then a rename or link), so a crash never leaves a half file that a
 * message points to. Offloaded content may hold secrets from tool output: files are created
 * with mode 0600, directories with 0700. Content given in parts (the compaction archive) is
 * streamed to the temp file, so it is never held whole in memory.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { WriteFailedError } from '../core/errors.js';
import type { FileWriter } from '../core/ports.js';

/** Mode of every file written: owner read/write only. */
export const FILE_MODE = 0o600;
/** Mode of every directory created: owner only. */
export const DIRECTORY_MODE = 0o700;

/** What an exclusive create found: see {@link FileWriter.createExclusive}. */
type ExclusiveOutcome = 'created' | 'identical' | 'exists';

/** Bytes of consecutive parts encoded into one write: few writes, a bounded buffer. */
const PART_BATCH_BYTES = 64 * 1024;
/** Bytes read at a time from each file when two files are compared. */
const COMPARE_CHUNK_BYTES = 64 * 1024;

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

/** The parts, where a surrogate pair split between two of them is moved whole into the later one. */
function* keepSurrogatePairsWhole(parts: Iterable<string>): Generator<string, void, undefined> {
  let carried = '';
  for (const part of parts) {
    const text = carried + part;
    const lastUnit = text.charCodeAt(text.length - 1);
    const endsWithHighSurrogate = lastUnit >= 0xd800 && lastUnit <= 0xdbff;
    carried = endsWithHighSurrogate ? text.slice(-1) : '';
    yield endsWithHighSurrogate ? text.slice(0, -1) : text;
  }
  if (carried !== '') yield carried;
}

/**
 * Encodes consecutive parts as UTF-8 into buffers of about {@link PART_BATCH_BYTES} (a larger
 * part gets one of its own size), each yielded once the next part does not fit: the bytes of
 * the parts joined, in few writes, with a bounded buffer.
 */
function* encodeInBatches(parts: Iterable<string>): Generator<Buffer, void, undefined> {
  let batch = Buffer.allocUnsafe(PART_BATCH_BYTES);
  let length = 0;
  for (const text of keepSurrogatePairsWhole(parts)) {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, 2 units, takes 4).
    const maxBytes = text.length * 3;
    if (length + maxBytes > batch.length) {
      if (length > 0) yield batch.subarray(0, length);
      batch = Buffer.allocUnsafe(Math.max(PART_BATCH_BYTES, maxBytes));
      length = 0;
    }
    length += batch.write(text, length, 'utf8');
  }
  if (length > 0) yield batch.subarray(0, length);
}

/**
 * Writes the content (a string, or parts streamed batch by batch) to a fresh temp file next to
 * `filePath` and returns its path. Any failure, including one thrown by the parts, removes the
 * temp file and rejects as {@link WriteFailedError} with the error as `cause`.
 */
async function writeTemp(filePath: string, content: string | Iterable<string>): Promise<string> {
  const tempPath = createTempPath(filePath);
  try {
    const data = typeof content === 'string' ? content : encodeInBatches(content);
    await writeFile(tempPath, data, { encoding: 'utf8', mode: FILE_MODE, flag: 'wx' });
  } catch (error) {
    await removeQuietly(tempPath);
    throw wrap('write', filePath, error);
  }
  return tempPath;
}

// O_NOFOLLOW: a symlink planted at a target name fails to open (ELOOP) instead of passing its
// target off as ours, even one holding the same text; O_NONBLOCK: a FIFO in the way cannot hang
// the open. Windows has neither flag (0): there, symlinks need privileges to create.
const OPEN_EXISTING_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens the regular file at `filePath` for reading, never through a symlink; `undefined` when
 * there is none (a symlink, a directory, a FIFO, nothing).
 */
async function openRegularFile(filePath: string): Promise<{ handle: FileHandle; size: number } | undefined> {
  const handle = await open(filePath, OPEN_EXISTING_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  const info = await handle.stat().catch(() => undefined);
  if (info?.isFile() === true) return { handle, size: info.size };
  await handle.close().catch(() => undefined);
  return undefined;
}

/**
 * Whether a regular file at `filePath` holds exactly `content`; size first, so most mismatches
 * cost no read. A symlink is never followed, whatever it points to.
 */
async function holdsContent(filePath: string, content: string): Promise<boolean> {
  const byteLength = Buffer.byteLength(content, 'utf8');
  // One lstat rejects most names (a shared directory may hold a thousand uses of one id);
  // the open below checks again, so a file swapped for a link meanwhile is still refused.
  const info = await lstat(filePath).catch(() => undefined);
  if (info === undefined || !info.isFile() || info.size !== byteLength) return false;
  const file = await openRegularFile(filePath);
  if (file === undefined) return false;
  try {
    if (file.size !== byteLength) return false;
    return (await file.handle.readFile('utf8')) === content;
  } catch {
    // Unreadable: not ours to reuse; the caller moves to another name.
    return false;
  } finally {
    await file.handle.close().catch(() => undefined);
  }
}

/** Fills `buffer` from `position` on, short only at the end of the file; resolves the bytes read. */
async function readChunk(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/**
 * Whether the file at `filePath` holds exactly the bytes of the file at `writtenPath`; sizes
 * first, then both are compared chunk by chunk, so neither is ever read whole.
 */
async function holdsSameBytes(filePath: string, writtenPath: string): Promise<boolean> {
  const handles: FileHandle[] = [];
  try {
    const existingFile = await openRegularFile(filePath);
    if (existingFile === undefined) return false;
    const existing = existingFile.handle;
    handles.push(existing);
    if (existingFile.size !== (await stat(writtenPath)).size) return false;
    const written = await open(writtenPath, 'r');
    handles.push(written);
    const existingChunk = Buffer.alloc(COMPARE_CHUNK_BYTES);
    const writtenChunk = Buffer.alloc(COMPARE_CHUNK_BYTES);
    for (let position = 0; ; ) {
      const [existingBytes, writtenBytes] = await Promise.all([readChunk(existing, existingChunk, position), readChunk(written, writtenChunk, position)]);
      if (existingBytes !== writtenBytes || !existingChunk.subarray(0, existingBytes).equals(writtenChunk.subarray(0, writtenBytes))) return false;
      if (existingBytes < COMPARE_CHUNK_BYTES) return true;
      position += existingBytes;
    }
  } catch {
    // Gone or unreadable: not ours to reuse; the caller moves to another name.
    return false;
  } finally {
    await Promise.all(handles.map((handle) => handle.close().catch(() => undefined)));
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
async function createExclusive(filePath: string, content: string): Promise<ExclusiveOutcome> {
  const tempPath = await writeTemp(filePath, content);
  return await publishExclusive(tempPath, filePath, () => holdsContent(filePath, content));
}

/**
 * {@link createExclusive} with the content in parts: they are streamed to the temp file, and a
 * file already at the target is compared with the temp file on disk, chunk by chunk.
 */
async function createExclusiveFromParts(filePath: string, parts: Iterable<string>): Promise<ExclusiveOutcome> {
  const tempPath = await writeTemp(filePath, parts);
  return await publishExclusive(tempPath, filePath, () => holdsSameBytes(filePath, tempPath));
}

/**
 * Gives the written temp file the name `filePath` unless a file has it (then asks
 * `holdsSameContent` whether that file serves as is), and removes the temp file in every case.
 */
async function publishExclusive(tempPath: string, filePath: string, holdsSameContent: () => Promise<boolean>): Promise<ExclusiveOutcome> {
  try {
    await link(tempPath, filePath);
    return 'created';
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return (await holdsSameContent()) ? 'identical' : 'exists';
    if (code !== undefined && NO_HARD_LINK_CODES.has(code)) return await copyExclusive(tempPath, filePath, holdsSameContent);
    throw wrap('write', filePath, error);
  } finally {
    await removeQuietly(tempPath);
  }
}

async function copyExclusive(tempPath: string, filePath: string, holdsSameContent: () => Promise<boolean>): Promise<ExclusiveOutcome> {
  try {
    await copyFile(tempPath, filePath, constants.COPYFILE_EXCL);
    return 'created';
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return (await holdsSameContent()) ? 'identical' : 'exists';
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
 * batch offload never overwrites other content and reuses identical files, and the compaction
 * archive is streamed. OS errors reject as {@link WriteFailedError} with the OS error as
 * `cause`. Methods do not use `this`: they may be passed around on their own.
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
  /**
   * {@link NodeFileWriter.createExclusive} with the content as the parts joined: they are
   * encoded and written to the temp file in batches of about 64 KB, so the whole text is never
   * in memory, and a file already at the target is compared with the written one chunk by chunk
   * (sizes first). An error thrown by `parts` rejects as {@link WriteFailedError} with it as `cause`.
   */
  readonly createExclusiveFromParts: (filePath: string, parts: Iterable<string>) => Promise<'created' | 'identical' | 'exists'> = createExclusiveFromParts;
  /** Lists the names in a directory; `[]` when it does not exist. */
  readonly listDir: (dirPath: string) => Promise<string[]> = listDir;
  /** Whether a regular file (never a symlink) at that path holds exactly this content; sizes first. */
  readonly holdsContent: (filePath: string, content: string) => Promise<boolean> = holdsContent;
  /** `path.resolve`: absolute paths against the current directory. */
  readonly resolvePath: (...segments: string[]) => string = resolvePath;
}

/** Creates a {@link NodeFileWriter}. */
export function createNodeFileWriter(): NodeFileWriter {
  return new NodeFileWriter();
}
