/**
 * The file system driver of the {@link ContentStore} port: the key `s1/a.md` is the file
 * `<dir>/s1/a.md`. Writes are atomic and private (see `atomic-files.ts`); a symlink is never
 * followed, at a key's name or in the directories between `dir` and it, even one swapped in
 * after the check: a file is read, and a name unlinked, only once its real path is the key's.
 */
import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, realpath, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { ContextError, describeError, ReadFailedError, WriteFailedError } from '../core/errors.js';
import type { ByteRange, ContentStore, PutOutcome, StoredEntry } from '../core/ports.js';
import { assertDirectorySetting } from '../core/store/safe-path.js';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  findStoreKeyProblem,
  resolveByteRange,
  STORE_MARKER_KEY,
} from '../core/store/store-keys.js';
import { decodeUtf8Range } from '../core/text/utf8.js';
import {
  createExclusive,
  createExclusiveFromParts,
  DIRECTORY_MODE,
  errorCode,
  holdsContent,
  isTempName,
  markCreatedDirectory,
  openRegularFileOrFail,
  type OpenedFile,
  readChunk,
  wrapWriteError,
  writeFileAtomically,
} from '../infrastructure/atomic-files.js';

/** Options of {@link createFileStore}. */
export interface FileStoreOptions {
  /**
   * The directory holding the store, resolved against the current directory when the store is
   * created. It is created (mode 0700) on the first write; the directories under it too. A
   * directory the store creates gets the marker file `.agent-context-offload` (a session folder
   * only when `dir` has none): prune cleans only a marked `dir`.
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
 * - `stat` gives the size and the modification time (a free name costs one `lstat`); `list`
 *   walks the directories under the prefix (writes in progress and the marker file left out);
 *   `listPartialWrites` gives the temp files of writes in progress or abandoned by a killed
 *   writer; `delete` unlinks;
 * - `referenceFor` is the absolute path; `keyFor` takes such a path inside `dir`, or the
 *   relative form `./<key>`, and nothing else (no `..`, nothing outside `dir`);
 * - `holds` compares sizes first, then the content.
 *
 * A symlink is never followed: one at a key's name is not an entry (`get` and `stat` answer
 * `undefined`, `putIfAbsent` answers `'exists'`, `holds` is `false`) and one in place of a
 * directory under `dir` is never written through, nor read or unlinked through: `get` checks
 * that the file it opened is the one at the key's real path, `stat` and `delete` that the
 * key's folder resolves to itself. Directories are created with mode 0700; each directory the
 * store creates is marked as the package's (`.agent-context-offload`), unless it is inside one.
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
    rootReady ??= mkdir(root, { recursive: true, mode: DIRECTORY_MODE })
      .then(async (created) => {
        if (created !== undefined) await markCreatedDirectory(root);
      })
      .catch((error: unknown) => {
        rootReady = undefined;
        throw error instanceof WriteFailedError ? error : wrapWriteError('create directory', root, error);
      });
    return rootReady;
  };

  // The real path of `dir`, found once it exists: what the real path of every key starts with.
  let realRoot: Promise<string> | undefined;
  const resolveRealRoot = (): Promise<string> => {
    realRoot ??= realpath(root).catch((error: unknown) => {
      realRoot = undefined;
      throw error;
    });
    return realRoot;
  };
  /**
   * Whether the folder of `key` resolves, now, to its own real path: no directory between `dir`
   * and it was swapped for a symlink since the lstat checks.
   */
  const isRealFolderOf = async (key: string): Promise<boolean> => {
    const [folder, realDir] = await Promise.all([realpath(dirname(pathOf(key))), resolveRealRoot()]);
    return folder === join(realDir, ...parentsOf(key));
  };
  /** Whether `file`, opened at the path of `key`, is the file at the key's real path: not one reached through a swapped-in symlink. */
  const isOpenedInPlace = async (file: OpenedFile, key: string): Promise<boolean> => {
    const there = await lstat(pathOf(key));
    return there.dev === file.identity.dev && there.ino === file.identity.ino && (await isRealFolderOf(key));
  };

  /** Creates the directories `segments` under `dir` (mode 0700), refusing any that is a symlink or a file. */
  const createDirectories = async (segments: readonly string[]): Promise<void> => {
    await ensureRoot();
    let path = root;
    for (const [depth, segment] of segments.entries()) {
      path = join(path, segment);
      try {
        const info = await lstat(path).catch(async (error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
          // made here, or by another writer just now (EEXIST): either way, look again
          const created = await mkdir(path, { mode: DIRECTORY_MODE }).then(
            () => true,
            (mkdirError: unknown) => {
              if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
              return false;
            },
          );
          // a session folder is marked when `dir` is not; a folder deeper down never needs it
          if (created && depth === 0) await markCreatedDirectory(path);
          return await lstat(path);
        });
        if (!info.isDirectory()) throw new Error('a file or a symlink is in the way, and a symlink is never followed');
      } catch (error) {
        throw error instanceof WriteFailedError ? error : wrapWriteError('create directory', path, error);
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
    const isGone = (error: unknown): boolean =>
      error instanceof WriteFailedError && errorCode(error.cause) === 'ENOENT';
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

  /** Keys of the files under `directory` whose names pass `isWanted`, in every folder below it. */
  async function* walk(
    directory: string,
    keyPrefix: string,
    namePrefix: string,
    isWanted: (name: string) => boolean,
  ): AsyncGenerator<string, void, undefined> {
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
      if (entry.isDirectory()) yield* walk(join(directory, entry.name), `${key}/`, '', isWanted);
      else if (entry.isFile() && isWanted(entry.name) && findStoreKeyProblem(key) === undefined) yield key;
    }
  }
  const isEntryName = (name: string): boolean => name !== STORE_MARKER_KEY && !isTempName(name);

  async function* walkUnder(
    prefix: string,
    isWanted: (name: string) => boolean,
  ): AsyncGenerator<string, void, undefined> {
    assertStoreKeyPrefix('prefix', prefix);
    const slash = prefix.lastIndexOf('/');
    const folders = slash === -1 ? [] : prefix.slice(0, slash).split('/');
    const directory = join(root, ...folders);
    try {
      if (!(await areDirectories(folders))) return;
    } catch (error) {
      throw wrapReadError('list', directory, error);
    }
    yield* walk(directory, slash === -1 ? '' : prefix.slice(0, slash + 1), prefix.slice(slash + 1), isWanted);
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
          if (!(await isOpenedInPlace(file, key))) return undefined;
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
        // a free name is the common answer, and one lstat gives it; the folders on the way are
        // checked once something is found (or the lookup failed): what a symlinked one leads to is no entry
        const info = await lstat(path).catch(async (error: unknown) => {
          if (isMissing(error) || !(await areDirectories(parentsOf(key)))) return undefined;
          throw error;
        });
        if (info === undefined || !info.isFile()) return undefined;
        return (await areDirectories(parentsOf(key))) && (await isRealFolderOf(key))
          ? { size: info.size, createdAt: info.mtime }
          : undefined;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw wrapReadError('stat', path, error);
      }
    },
    list: (prefix: string): AsyncIterable<string> => walkUnder(prefix, isEntryName),
    listPartialWrites: (prefix: string): AsyncIterable<string> => walkUnder(prefix, isTempName),
    async delete(key: string): Promise<void> {
      const path = pathOf(assertStoreKey('key', key));
      try {
        if (!(await areDirectories(parentsOf(key)))) return;
        if ((await lstat(path)).isDirectory()) return; // a folder of keys is not a key
        if (!(await isRealFolderOf(key))) return; // a folder swapped for a symlink: what it reaches is not ours
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
