/**
 * The file system driver of the {@link ContentStore} port: the key `s1/a.md` is the file
 * `<dir>/s1/a.md`. Writes are atomic and private (see `atomic-files.ts`); a symlink is never
 * followed, at a key's name or in the directories between `dir` and it.
 */
import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, unlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ContextError, describeError, ReadFailedError, WriteFailedError } from '../core/errors.js';
import type { ByteRange, ContentStore, PutOutcome, StoredEntry } from '../core/ports.js';
import { assertDirectorySetting } from '../core/safe-path.js';
import { assertStoreKey, assertStoreKeyPrefix, findStoreKeyProblem, resolveByteRange } from '../core/store-keys.js';
import { decodeUtf8Range } from '../core/utf8.js';
import {
  createExclusive,
  createExclusiveFromParts,
  DIRECTORY_MODE,
  errorCode,
  holdsContent,
  isTempName,
  openRegularFileOrFail,
  readChunk,
  wrapWriteError,
  writeFileAtomically,
} from '../infrastructure/atomic-files.js';

/** Options of {@link createFileStore}. */
export interface FileStoreOptions {
  /**
   * The directory holding the store, resolved against the current directory when the store is
   * created. It is created (mode 0700) on the first write; the directories under it too.
   */
  dir: string;
}

/** Error codes of a lookup that mean "nothing there": missing, or a file where a directory would be. */
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR']);

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && MISSING_CODES.has(code);
}

function wrapReadError(action: string, path: string, error: unknown): ContextError {
  if (error instanceof ContextError) return error;
  return new ReadFailedError(`could not ${action} ${path}: ${describeError(error)}`, { cause: error });
}


/**
 * Creates the file system {@link ContentStore}:
 * - `putIfAbsent` writes a temp file (mode 0600) next to the target, then hard-links it to
 *   the key's name: `link` never replaces, so two writers never both create, and a reader never
 *   sees half a file; content in parts is streamed, never held whole;
 * - `put` writes a temp file and renames it over the target;
 * - `get` with a range reads only those bytes (a positional read, never the whole file);
 * - `stat` gives the size and the modification time; `list` walks the directories under the
 *   prefix (writes in progress left out); `delete` unlinks;
 * - `referenceFor` is the absolute path; `keyFor` takes such a path inside `dir`, or the
 *   relative form `./<key>`, and nothing else (no `..`, nothing outside `dir`);
 * - `holds` compares sizes first, then the content.
 *
 * A symlink is never followed: one at a key's name is not an entry (`get` and `stat` answer
 * `undefined`, `putIfAbsent` answers `'exists'`, `holds` is `false`) and one in place of a
 * directory under `dir` is never written through. Directories are created with mode 0700.
 * OS errors reject as `WriteFailedError` (writes, `delete`) or `ReadFailedError` (reads), with
 * the path in the message and the OS error as `cause`; keys are checked first (`UNSAFE_PATH`).
 *
 * @throws {InvalidOptionError} when `dir` is blank or holds a control character.
 *
 * @example
 * ```ts
 * const store = createFileStore({ dir: '.offload' });
 * await offloadToolResults(messages, { store });
 * ```
 */
export function createFileStore(options: FileStoreOptions): ContentStore {
  const root = resolve(assertDirectorySetting('dir', options.dir));
  const rootWithSeparator = root.endsWith(sep) ? root : root + sep;
  const pathOf = (key: string): string => join(root, ...key.split('/'));

  /**
   * Whether each of `segments`, as directories under `dir`, is a real directory: `false` when
   * one is missing, a file or a symlink. Other errors reject as they are.
   */
  const areDirectories = async (segments: readonly string[]): Promise<boolean> => {
    let path = root;
    for (const segment of segments) {
      path = join(path, segment);
      try {
        if (!(await lstat(path)).isDirectory()) return false;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    }
    return true;
  };
  const parentsOf = (key: string): string[] => key.split('/').slice(0, -1);

  // `dir` itself is made once (a batch of 200 writes pays for it once); a failure is retried.
  let rootReady: Promise<void> | undefined;
  const ensureRoot = (): Promise<void> => {
    rootReady ??= mkdir(root, { recursive: true, mode: DIRECTORY_MODE }).then(
      () => undefined,
      (error: unknown) => {
        rootReady = undefined;
        throw wrapWriteError('create directory', root, error);
      },
    );
    return rootReady;
  };

  /** Creates the directories `segments` under `dir` (mode 0700), refusing any that is a symlink or a file. */
  const createDirectories = async (segments: readonly string[]): Promise<void> => {
    await ensureRoot();
    let path = root;
    for (const segment of segments) {
      path = join(path, segment);
      try {
        const info = await lstat(path).catch(async (error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
          // made here, or by another writer just now (EEXIST): either way, look again
          await mkdir(path, { mode: DIRECTORY_MODE }).catch((mkdirError: unknown) => {
            if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
          });
          return await lstat(path);
        });
        if (!info.isDirectory()) throw new Error('a file or a symlink is in the way, and a symlink is never followed');
      } catch (error) {
        throw wrapWriteError('create directory', path, error);
      }
    }
  };
  // Concurrent writes into one directory share one check (200 parallel offloads, one mkdir);
  // a later write checks again, so a symlink planted between two calls is still refused.
  const pendingDirectories = new Map<string, Promise<void>>();
  const ensureParents = (key: string): Promise<void> => {
    const segments = parentsOf(key);
    if (segments.length === 0) return ensureRoot();
    const id = segments.join('/');
    let pending = pendingDirectories.get(id);
    if (pending === undefined) {
      pending = createDirectories(segments).finally(() => pendingDirectories.delete(id));
      pendingDirectories.set(id, pending);
    }
    return pending;
  };

  /**
   * Runs `write` once the directories of `key` exist. When `dir` was removed since this store
   * made it (ENOENT), it is made again and a text written once more; parts, iterable only once,
   * are not replayed.
   */
  const writeUnder = async <T>(key: string, write: () => Promise<T>, replayable: boolean): Promise<T> => {
    const isGone = (error: unknown): boolean => error instanceof WriteFailedError && errorCode(error.cause) === 'ENOENT';
    await ensureParents(key).catch(async (error: unknown) => {
      if (!isGone(error)) throw error;
      rootReady = undefined;
      await ensureParents(key);
    });
    try {
      return await write();
    } catch (error) {
      if (!replayable || !isGone(error)) throw error;
      rootReady = undefined;
      await ensureParents(key);
      return await write();
    }
  };

  async function* walk(directory: string, keyPrefix: string, namePrefix: string): AsyncGenerator<string, void, undefined> {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return; // gone meanwhile, or never there
      throw wrapReadError('list', directory, error);
    }
    for (const entry of entries) {
      if (!entry.name.startsWith(namePrefix)) continue;
      const key = keyPrefix + entry.name;
      // Dirent types come from lstat: a symlink is neither a directory nor a file here
      if (entry.isDirectory()) yield* walk(join(directory, entry.name), `${key}/`, '');
      else if (entry.isFile() && !isTempName(entry.name) && findStoreKeyProblem(key) === undefined) yield key;
    }
  }

  return {
    kind: 'file',
    async putIfAbsent(key: string, content: string | Iterable<string>): Promise<PutOutcome> {
      const path = pathOf(assertStoreKey('key', key));
      if (typeof content === 'string') return await writeUnder(key, () => createExclusive(path, content), true);
      return await writeUnder(key, () => createExclusiveFromParts(path, content), false);
    },
    async put(key: string, content: string): Promise<void> {
      const path = pathOf(assertStoreKey('key', key));
      await writeUnder(key, () => writeFileAtomically(path, content), true);
    },
    async get(key: string, range?: ByteRange): Promise<string | undefined> {
      const path = pathOf(assertStoreKey('key', key));
      resolveByteRange(range);
      try {
        if (!(await areDirectories(parentsOf(key)))) return undefined;
        const file = await openRegularFileOrFail(path);
        if (file === undefined) return undefined;
        try {
          if (range === undefined) return await file.handle.readFile('utf8');
          const start = Math.min(range.offset ?? 0, file.size);
          const end = range.length === undefined ? file.size : Math.min(file.size, start + range.length);
          const bytes = new Uint8Array(end - start);
          const read = await readChunk(file.handle, bytes, start);
          return decodeUtf8Range(bytes.subarray(0, read));
        } finally {
          await file.handle.close().catch(() => undefined);
        }
      } catch (error) {
        throw wrapReadError('read', path, error);
      }
    },
    async stat(key: string): Promise<StoredEntry | undefined> {
      const path = pathOf(assertStoreKey('key', key));
      try {
        if (!(await areDirectories(parentsOf(key)))) return undefined;
        const info = await lstat(path);
        return info.isFile() ? { size: info.size, createdAt: info.mtime } : undefined;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw wrapReadError('stat', path, error);
      }
    },
    async *list(prefix: string): AsyncIterable<string> {
      assertStoreKeyPrefix('prefix', prefix);
      const slash = prefix.lastIndexOf('/');
      const folders = slash === -1 ? [] : prefix.slice(0, slash).split('/');
      const directory = join(root, ...folders);
      try {
        if (!(await areDirectories(folders))) return;
      } catch (error) {
        throw wrapReadError('list', directory, error);
      }
      yield* walk(directory, slash === -1 ? '' : prefix.slice(0, slash + 1), prefix.slice(slash + 1));
    },
    async delete(key: string): Promise<void> {
      const path = pathOf(assertStoreKey('key', key));
      try {
        if (!(await areDirectories(parentsOf(key)))) return;
        if ((await lstat(path)).isDirectory()) return; // a folder of keys is not a key
        await unlink(path);
      } catch (error) {
        if (isMissing(error)) return;
        throw wrapWriteError('delete', path, error);
      }
    },
    async holds(key: string, content: string): Promise<boolean> {
      const path = pathOf(assertStoreKey('key', key));
      // like a failed read below: an unreadable place is simply not one that holds this content
      if (!(await areDirectories(parentsOf(key)).catch(() => false))) return false;
      return await holdsContent(path, content);
    },
    referenceFor(key: string): string {
      return pathOf(assertStoreKey('key', key));
    },
    keyFor(reference: string): string | undefined {
      if (typeof reference !== 'string') return undefined;
      let relative: string | undefined;
      if (reference.startsWith('./') || (sep === '\\' && reference.startsWith('.\\'))) relative = reference.slice(2);
      else if (reference.startsWith(rootWithSeparator)) relative = reference.slice(rootWithSeparator.length);
      if (relative === undefined) return undefined;
      const key = sep === '\\' ? relative.split('\\').join('/') : relative;
      return findStoreKeyProblem(key) === undefined ? key : undefined;
    },
  };
}
