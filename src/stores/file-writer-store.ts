/**
 * A `FileWriter` behind the {@link ContentStore} port, so the entry points that take a writer
 * run through the one store-based core. Only `api/store-target.ts` builds it: that is where a
 * writer becomes a store. It only calls the writer.
 */
import { ContextError, describeError, ReadFailedError, WriteFailedError } from '../core/errors.js';
import type { ContentStore, FileWriter, PutOutcome } from '../core/ports.js';
import { assertStoreKey, assertStoreKeyPrefix } from '../core/store/store-keys.js';
import { joinParts } from '../core/text/text.js';

/** Options of {@link createFileWriterStore}. */
export interface FileWriterStoreOptions {
  /**
   * Joins path segments when the writer has no `resolvePath`.
   * @default segments joined with `/` (a trailing separator of the first one kept single)
   */
  joinPaths?: ((...segments: string[]) => string) | undefined;
}

/** Joins a directory and names with `/` (what a custom writer without `resolvePath` gets). */
function joinPath(directory: string, ...names: string[]): string {
  let path = directory;
  for (const name of names) path = path.endsWith('/') || path.endsWith('\\') ? path + name : `${path}/${name}`;
  return path;
}

/** Runs a writer call; an error that is not a {@link ContextError} becomes `WRITE_FAILED` naming the path. */
async function callWriter<T>(path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ContextError) throw error;
    throw new WriteFailedError(`could not write ${path}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * A {@link ContentStore} over `writer`, rooted at `directory`: the key `s1/a.md` is the file
 * `directory/s1/a.md` (through the writer's `resolvePath` when it has one). Its directory is
 * created with `ensureDir` (when the writer has it) once, before the first write into it,
 * `directory` itself always before a session folder under it.
 * `putIfAbsent` uses the writer's exclusive create (from parts when it can), else a plain
 * write that reports `'created'` (a writer with only `writeFile`); `holds` exists when the writer
 * has `holdsContent`, `list` lists one directory with `listDir` (nothing without it). A writer
 * cannot read nor delete: `get`, `stat` and `delete` reject with `READ_FAILED` saying so.
 */
export function createFileWriterStore(
  writer: FileWriter,
  directory: string,
  options: FileWriterStoreOptions = {},
): ContentStore {
  const join = options.joinPaths ?? joinPath;
  const pathOf = (...segments: string[]): string =>
    writer.resolvePath !== undefined ? writer.resolvePath(directory, ...segments) : join(directory, ...segments);
  const pathOfKey = (key: string): string => pathOf(...key.split('/'));
  const directoryOfKey = (key: string): string => {
    const segments = key.split('/').slice(0, -1);
    return segments.length === 0 ? directory : pathOf(...segments);
  };
  // once per directory: a batch of 200 files creates its directory once, before the first write
  const ensured = new Map<string, Promise<void>>();
  const ensureDirectory = (ensureDir: (dirPath: string) => Promise<void>, path: string): Promise<void> => {
    let pending = ensured.get(path);
    if (pending === undefined) {
      pending = callWriter(path, () => ensureDir.call(writer, path));
      ensured.set(path, pending);
    }
    return pending;
  };
  const ensureDirectoryOf = async (key: string): Promise<void> => {
    const ensureDir = writer.ensureDir;
    if (ensureDir === undefined) return;
    // the store's own directory first, on its own: a writer that marks the directories it
    // creates marks this one, not a session folder made together with it
    await ensureDirectory(ensureDir, directory);
    const path = directoryOfKey(key);
    if (path !== directory) await ensureDirectory(ensureDir, path);
  };
  const cannotRead = (what: string, key: string): Promise<never> =>
    Promise.reject(
      new ReadFailedError(
        `cannot ${what} ${pathOfKey(key)}: a FileWriter only writes; use a ContentStore (createFileStore) to read back`,
      ),
    );

  const store: ContentStore = {
    kind: 'file',
    async putIfAbsent(key, content): Promise<PutOutcome> {
      assertStoreKey('key', key);
      const path = pathOfKey(key);
      await ensureDirectoryOf(key);
      if (typeof content !== 'string' && writer.createExclusiveFromParts !== undefined) {
        const createFromParts = writer.createExclusiveFromParts;
        return callWriter(path, () => createFromParts.call(writer, path, content));
      }
      const text = joinParts(content);
      const createExclusive = writer.createExclusive;
      if (createExclusive !== undefined) return callWriter(path, () => createExclusive.call(writer, path, text));
      await callWriter(path, () => writer.writeFile(path, text));
      return 'created';
    },
    async put(key, content) {
      assertStoreKey('key', key);
      const path = pathOfKey(key);
      await ensureDirectoryOf(key);
      await callWriter(path, () => writer.writeFile(path, content));
    },
    get: (key) => cannotRead('read', key),
    stat: (key) => cannotRead('stat', key),
    delete: (key) => cannotRead('delete', key),
    async *list(prefix) {
      assertStoreKeyPrefix('prefix', prefix);
      const listDir = writer.listDir;
      if (listDir === undefined) return;
      const slash = prefix.lastIndexOf('/');
      const folder = slash === -1 ? '' : prefix.slice(0, slash);
      const path = folder === '' ? directory : pathOf(...folder.split('/'));
      for (const name of await callWriter(path, () => listDir.call(writer, path))) {
        const key = folder === '' ? name : `${folder}/${name}`;
        if (key.startsWith(prefix)) yield key;
      }
    },
    referenceFor: (key) => pathOfKey(key),
    keyFor(reference) {
      const relative = reference.startsWith('./') ? reference.slice(2) : undefined;
      if (relative !== undefined) return assertKeyOrUndefined(relative);
      const root = writer.resolvePath !== undefined ? writer.resolvePath(directory) : directory;
      for (const separator of ['/', '\\']) {
        const base = root.endsWith(separator) ? root : root + separator;
        if (reference.startsWith(base))
          return assertKeyOrUndefined(reference.slice(base.length).split(separator).join('/'));
      }
      return undefined;
    },
  };
  const holdsContent = writer.holdsContent;
  if (holdsContent !== undefined) {
    store.holds = (key, content) => {
      assertStoreKey('key', key);
      const path = pathOfKey(key);
      return callWriter(path, () => holdsContent.call(writer, path, content));
    };
  }
  return store;
}

function assertKeyOrUndefined(key: string): string | undefined {
  try {
    return assertStoreKey('key', key);
  } catch {
    return undefined;
  }
}
