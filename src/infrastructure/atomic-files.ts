/**
 * Atomic, private files on the Node.js file system, shared by the {@link NodeFileWriter} and the
 * file store. Every write goes to a temp file in the target's directory (mode 0600) and is then
 * renamed over the target, or hard-linked to it for an exclusive create (`link` never replaces),
 * so a reader never sees half a file and two writers never both create one. A symlink at a
 * target name is never followed: it is neither written through nor read as ours.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, lstat, open, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeError, WriteFailedError } from '../core/errors.js';
import type { PutOutcome } from '../core/ports.js';
import { STORE_MARKER_KEY, STORE_MARKER_TEXT } from '../core/store/store-keys.js';

/** Mode of every file written: owner read/write only. */
const FILE_MODE = 0o600;
/** Mode of every directory created: owner only. */
export const DIRECTORY_MODE = 0o700;

/** Bytes of consecutive parts encoded into one write: few writes, a bounded buffer. */
const PART_BATCH_BYTES = 64 * 1024;
/** Bytes read at a time from each file when two files are compared. */
const COMPARE_CHUNK_BYTES = 64 * 1024;

/** Error codes of `link` on file systems without hard links; exclusive create then falls back to a copy. */
const NO_HARD_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** The `code` of an OS error (`'ENOENT'`, ...), or `undefined`. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}

/** A {@link WriteFailedError} saying that `action` failed on `path`, with `error` as its cause. */
export function wrapWriteError(action: string, path: string, error: unknown): WriteFailedError {
  return new WriteFailedError(`could not ${action} ${path}: ${describeError(error)}`, { cause: error });
}

// `.<stem>.<pid>.<12 hex>.tmp`: what createTempPath names, so a listing can leave them out.
const TEMP_NAME = /^\..*\.\d+\.[0-9a-f]{12}\.tmp$/;

/** A fresh name next to `filePath`, on the same file system so rename and link stay atomic. */
function createTempPath(filePath: string): string {
  // Bounded so that a 200-char id plus the suffix stays under the usual 255-byte name limit.
  const stem = basename(filePath).slice(0, 100);
  return join(dirname(filePath), `.${stem}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Whether `name` (a file name, not a path) is one {@link createTempPath} makes: a write in progress. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * Marks `directory`, which the caller has just created for the package's content, as the
 * package's (the {@link STORE_MARKER_KEY} file), unless the directory above it holds the marker
 * already: a session folder inside a store directory needs none of its own. Written like any
 * other file (atomic, 0600); one already there is kept.
 */
export async function markCreatedDirectory(directory: string): Promise<void> {
  const above = await lstat(join(dirname(directory), STORE_MARKER_KEY)).catch(() => undefined);
  if (above?.isFile() === true) return;
  await createExclusive(join(directory, STORE_MARKER_KEY), STORE_MARKER_TEXT);
}

/** Removes a file, ignoring every error (it may be gone already). */
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
 * `filePath` (mode 0600) and returns its path. Any failure, including one thrown by the parts,
 * removes the temp file and rejects as {@link WriteFailedError} with the error as `cause`.
 */
export async function writeTemp(filePath: string, content: string | Iterable<string>): Promise<string> {
  const tempPath = createTempPath(filePath);
  try {
    const data = typeof content === 'string' ? content : encodeInBatches(content);
    await writeFile(tempPath, data, { encoding: 'utf8', mode: FILE_MODE, flag: 'wx' });
  } catch (error) {
    await removeQuietly(tempPath);
    throw wrapWriteError('write', filePath, error);
  }
  return tempPath;
}

// O_NOFOLLOW: a symlink planted at a target name fails to open (ELOOP) instead of passing its
// target off as ours, even one holding the same text; O_NONBLOCK: a FIFO in the way cannot hang
// the open. Windows has neither flag (0): there, symlinks need privileges to create.
const OPEN_EXISTING_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Error codes of an open that mean "no regular file of ours there": missing, a symlink (O_NOFOLLOW), a directory. */
const NOT_A_FILE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EMLINK', 'EISDIR']);

/** An open regular file and its size. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly size: number;
  readonly modifiedAt: Date;
  /** Which file it is: the device and inode numbers, to tell it from the file a path names now. */
  readonly identity: FileIdentity;
}

/** The device and inode of a file: equal for two paths exactly when they name the same file. */
interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/**
 * Opens the regular file at `filePath` for reading, never through a symlink at that name;
 * `undefined` when there is none there (a symlink, a directory, a FIFO, nothing). Other errors
 * (a denied read, a name too long, an I/O error) reject as they are.
 */
export async function openRegularFileOrFail(filePath: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(filePath, OPEN_EXISTING_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code !== undefined && NOT_A_FILE_CODES.has(code)) return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isFile())
      return { handle, size: info.size, modifiedAt: info.mtime, identity: { dev: info.dev, ino: info.ino } };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close().catch(() => undefined);
  return undefined;
}

/**
 * {@link openRegularFileOrFail} that also answers `undefined` when the file cannot be opened
 * at all: for callers to whom an unreadable file is simply not theirs to reuse.
 */
async function openRegularFile(filePath: string): Promise<OpenedFile | undefined> {
  return await openRegularFileOrFail(filePath).catch(() => undefined);
}

/**
 * Whether a regular file at `filePath` holds exactly `content`; size first, so most mismatches
 * cost no read. A symlink is never followed, whatever it points to; an unreadable file is `false`.
 */
export async function holdsContent(filePath: string, content: string): Promise<boolean> {
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
export async function readChunk(handle: FileHandle, buffer: Uint8Array, position: number): Promise<number> {
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
    for (let position = 0; ;) {
      const [existingBytes, writtenBytes] = await Promise.all([
        readChunk(existing, existingChunk, position),
        readChunk(written, writtenChunk, position),
      ]);
      if (
        existingBytes !== writtenBytes ||
        !existingChunk.subarray(0, existingBytes).equals(writtenChunk.subarray(0, writtenBytes))
      )
        return false;
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

/**
 * Writes (creates or replaces) a file atomically: temp file, then rename over the target. A
 * symlink at the target is replaced, never written through. Rejects as {@link WriteFailedError}.
 */
export async function writeFileAtomically(filePath: string, content: string): Promise<void> {
  const tempPath = await writeTemp(filePath, content);
  try {
    await rename(tempPath, filePath);
  } catch (error) {
    await removeQuietly(tempPath);
    throw wrapWriteError('write', filePath, error);
  }
}

/**
 * Creates a file only if nothing has that path, atomically: the content goes to a temp file
 * that is then hard-linked to the target (`link` fails with EEXIST instead of replacing, so two
 * writers can never both win). On a file system without hard links, an exclusive copy is used.
 * `'identical'` when a regular file there holds exactly `content`, else `'exists'`.
 */
export async function createExclusive(filePath: string, content: string): Promise<PutOutcome> {
  const tempPath = await writeTemp(filePath, content);
  return await publishExclusive(tempPath, filePath, () => holdsContent(filePath, content));
}

/**
 * {@link createExclusive} with the content in parts: they are streamed to the temp file, and a
 * file already at the target is compared with the temp file on disk, chunk by chunk.
 */
export async function createExclusiveFromParts(filePath: string, parts: Iterable<string>): Promise<PutOutcome> {
  const tempPath = await writeTemp(filePath, parts);
  return await publishExclusive(tempPath, filePath, () => holdsSameBytes(filePath, tempPath));
}

/**
 * Gives the written temp file the name `filePath` unless a file has it (then asks
 * `holdsSameContent` whether that file serves as is), and removes the temp file in every case.
 */
async function publishExclusive(
  tempPath: string,
  filePath: string,
  holdsSameContent: () => Promise<boolean>,
): Promise<PutOutcome> {
  try {
    await link(tempPath, filePath);
    return 'created';
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return (await holdsSameContent()) ? 'identical' : 'exists';
    if (code !== undefined && NO_HARD_LINK_CODES.has(code))
      return await copyExclusive(tempPath, filePath, holdsSameContent);
    throw wrapWriteError('write', filePath, error);
  } finally {
    await removeQuietly(tempPath);
  }
}

async function copyExclusive(
  tempPath: string,
  filePath: string,
  holdsSameContent: () => Promise<boolean>,
): Promise<PutOutcome> {
  try {
    await copyFile(tempPath, filePath, constants.COPYFILE_EXCL);
    return 'created';
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return (await holdsSameContent()) ? 'identical' : 'exists';
    throw wrapWriteError('write', filePath, error);
  }
}
