/**
 * Keys of a {@link ContentStore}: relative, slash-separated paths built by the core, never OS
 * paths. Every key is checked before any I/O, so no driver ever sees one that could leave its
 * directory or prefix.
 *
 * The `store` folder: the rules of what is written where, before any driver runs.
 * - `store-keys.ts`: the keys of a content store (this file).
 * - `safe-path.ts`: which path segments (tool-use ids, session ids) are safe names.
 * - `path-resolution.ts`: pure path arithmetic for folders the caller names.
 * - `taken-names.ts`: which numbered names a store already holds.
 * - `prune.ts`: retention, removing what the package wrote past a cutoff.
 */
import { describeValue, InvalidOptionError, UnsafePathError } from '../errors.js';
import type { ByteRange, ContentStore } from '../ports.js';

/** Longest key accepted (S3 allows 1,024 bytes; the file store's names stay well under it). */
const MAX_STORE_KEY_LENGTH = 1024;

// C0 and C1 controls and DEL: never part of a key this package builds.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `key` is not a store key, or `undefined` when it is one. */
export function findStoreKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key === '') return 'must be a non-empty string';
  if (key.length > MAX_STORE_KEY_LENGTH) return `must be at most ${MAX_STORE_KEY_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(key)) return 'must not contain control characters (NUL included)';
  if (key.includes('\\')) return 'must use "/" between segments, not "\\"';
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) return 'must be relative (no leading "/" or drive letter)';
  for (const segment of key.split('/')) {
    if (segment === '') return 'must not have an empty segment ("//" or a trailing "/")';
    if (segment === '.' || segment === '..') return 'must not have a "." or ".." segment';
  }
  return undefined;
}

/**
 * Throws {@link UnsafePathError} unless `key` is a store key: 1-1,024 characters, relative,
 * `/`-separated non-empty segments that are not `.` or `..`, no backslash, no control
 * character. `label` names it in the message.
 */
export function assertStoreKey(label: string, key: unknown): string {
  const problem = findStoreKeyProblem(key);
  if (problem !== undefined) throw new UnsafePathError(`${label} ${problem}, got ${describeValue(key)}`);
  return key as string;
}

/**
 * Throws {@link UnsafePathError} unless `prefix` is `''` or a key prefix: a store key followed
 * by `/`, or a store key (every key starting with it).
 */
export function assertStoreKeyPrefix(label: string, prefix: unknown): string {
  if (prefix === '') return '';
  if (typeof prefix === 'string' && prefix.endsWith('/')) {
    assertStoreKey(label, prefix.slice(0, -1));
    return prefix;
  }
  return assertStoreKey(label, prefix);
}

/**
 * The key (a file name at the top of a file store's directory, or of a session folder) of the
 * marker the package writes into each directory it creates for its content. A directory of a
 * file store without it was not made by the package: prune refuses it, and the read tool opens
 * there only names no user file has (`tool-result-*.md`, archives). Never listed as a key.
 */
export const STORE_MARKER_KEY = '.agent-context-offload';

/** What the marker file says to someone who finds it. */
export const STORE_MARKER_TEXT =
  'agent-context-offload created this directory for offloaded tool results and compaction archives.\n' +
  '`agent-context prune` deletes only the files it names, and only in a directory holding this file.\n';

/**
 * Whether `store` is a directory that may also hold files the package did not write: a store
 * of kind `'file'`. Only there does the package need its marker to tell its files from others'.
 */
export function isDirectoryStore(store: ContentStore): boolean {
  return store.kind === 'file';
}

/** Whether the folder `folder` of `store` (`''` for its top) holds the package's marker file. */
export async function holdsStoreMarker(store: ContentStore, folder: string): Promise<boolean> {
  return (await store.stat(folder === '' ? STORE_MARKER_KEY : `${folder}/${STORE_MARKER_KEY}`)) !== undefined;
}

export async function collectKeys(store: ContentStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys;
}

/**
 * The `offset` and `length` of a range read, checked: integers >= 0 (`offset` 0 and no length
 * when absent). Every driver checks its ranges here, so all refuse the same values alike.
 *
 * @throws {InvalidOptionError} naming `range.offset` or `range.length`.
 */
export function resolveByteRange(range: ByteRange | undefined): { offset: number; length: number | undefined } {
  const offset = range?.offset ?? 0;
  const length = range?.length;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new InvalidOptionError(`range.offset must be an integer >= 0, got ${describeValue(offset)}`);
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidOptionError(`range.length must be an integer >= 0, got ${describeValue(length)}`);
  }
  return { offset, length };
}
