/**
 * A {@link ContentStore} in memory, for unit tests and examples: nothing survives the process,
 * and nothing is shared between processes.
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { ByteRange, ContentStore, PutOutcome, StoredEntry } from '../core/ports.js';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  findStoreKeyProblem,
  resolveByteRange,
} from '../core/store/store-keys.js';
import { joinParts, toWellFormedText } from '../core/text/text.js';
import { decodeUtf8Range } from '../core/text/utf8.js';
import { systemNow } from '../infrastructure/clock.js';

/** Name of a memory store created without one (its references start `memory://default/`). */
const DEFAULT_MEMORY_STORE_NAME = 'default';

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Names the store in its references (`memory://<name>/<key>`), so two stores' references
   * never pass for each other's. One key segment: no `/`, `\`, control character, `.` or `..`.
   * @default 'default'
   */
  name?: string;
  /**
   * The clock giving each value's `createdAt`.
   * @default () => new Date()
   */
  now?: () => Date;
}

interface MemoryEntry {
  readonly text: string;
  readonly size: number;
  readonly createdAt: Date;
  /** The UTF-8 bytes, encoded on the first range read and kept. */
  bytes?: Uint8Array;
}

const encoder = new TextEncoder();

function createEntry(content: string, now: () => Date): MemoryEntry {
  // As every other driver stores UTF-8, a lone surrogate is kept as U+FFFD, the same round trip.
  const text = toWellFormedText(content);
  const bytes = encoder.encode(text);
  return { text, size: bytes.length, createdAt: new Date(now().getTime()), bytes };
}

function readRange(entry: MemoryEntry, range: ByteRange): string {
  entry.bytes ??= encoder.encode(entry.text);
  const start = range.offset ?? 0;
  const end = range.length === undefined ? entry.bytes.length : start + range.length;
  return decodeUtf8Range(entry.bytes.subarray(start, end));
}

/**
 * Creates a {@link ContentStore} backed by a `Map`: write-once `putIfAbsent` (JavaScript runs
 * one call at a time, so two writers can never both create), sizes in UTF-8 bytes, range reads
 * in bytes, references `memory://<name>/<key>`. Every key is checked before it is used.
 *
 * @throws {InvalidOptionError} when `name` is not one key segment.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const result = await offloadToolResults(messages, { store });
 * await store.get(store.keyFor(result.files[0]!)!); // the offloaded text
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): ContentStore {
  const name = options.name ?? DEFAULT_MEMORY_STORE_NAME;
  if (findStoreKeyProblem(name) !== undefined || name.includes('/')) {
    throw new InvalidOptionError(
      `name must be one key segment (no "/", "\\", control character, "." or ".."), got ${describeValue(name)}`,
    );
  }
  const now = options.now ?? systemNow;
  const referencePrefix = `memory://${name}/`;
  const entries = new Map<string, MemoryEntry>();

  return {
    kind: 'memory',
    async putIfAbsent(key: string, content: string | Iterable<string>): Promise<PutOutcome> {
      assertStoreKey('key', key);
      const text = toWellFormedText(joinParts(content));
      const existing = entries.get(key);
      if (existing !== undefined) return existing.text === text ? 'identical' : 'exists';
      entries.set(key, createEntry(text, now));
      return 'created';
    },
    async put(key: string, content: string): Promise<void> {
      assertStoreKey('key', key);
      entries.set(key, createEntry(content, now));
    },
    async get(key: string, range?: ByteRange): Promise<string | undefined> {
      assertStoreKey('key', key);
      resolveByteRange(range);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      return range === undefined ? entry.text : readRange(entry, range);
    },
    async stat(key: string): Promise<StoredEntry | undefined> {
      assertStoreKey('key', key);
      const entry = entries.get(key);
      return entry === undefined ? undefined : { size: entry.size, createdAt: new Date(entry.createdAt.getTime()) };
    },
    async *list(prefix: string): AsyncIterable<string> {
      assertStoreKeyPrefix('prefix', prefix);
      // a snapshot: a delete while the caller iterates does not skip another key
      for (const key of [...entries.keys()]) if (key.startsWith(prefix)) yield key;
    },
    async delete(key: string): Promise<void> {
      assertStoreKey('key', key);
      entries.delete(key);
    },
    async holds(key: string, content: string): Promise<boolean> {
      assertStoreKey('key', key);
      return entries.get(key)?.text === toWellFormedText(content);
    },
    referenceFor(key: string): string {
      return referencePrefix + assertStoreKey('key', key);
    },
    keyFor(reference: string): string | undefined {
      if (!reference.startsWith(referencePrefix)) return undefined;
      const key = reference.slice(referencePrefix.length);
      return findStoreKeyProblem(key) === undefined ? key : undefined;
    },
  };
}
