/**
 * Keys of a {@link ContentStore}: relative, slash-separated paths built by the core, never OS
 * paths. Every key is checked before any I/O, so no driver ever sees one that could leave its
 * directory or prefix.
 */
import { describeValue, InvalidOptionError, UnsafePathError } from './errors.js';
import type { ByteRange, ContentStore } from './ports.js';

/** Longest key accepted (S3 allows 1,024 bytes; the file store's names stay well under it). */
export const MAX_STORE_KEY_LENGTH = 1024;

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

/** Joins key segments with `/` (empty segments dropped). */
export function joinKey(...segments: string[]): string {
  return segments.filter((segment) => segment !== '').join('/');
}

/** Every key of `store` under `prefix`, collected. */
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
  if (!Number.isSafeInteger(offset) || offset < 0) throw new InvalidOptionError(`range.offset must be an integer >= 0, got ${describeValue(offset)}`);
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidOptionError(`range.length must be an integer >= 0, got ${describeValue(length)}`);
  }
  return { offset, length };
}
