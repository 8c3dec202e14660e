/**
 * Retention: removing offloaded content, compaction archives and session records older than a
 * cutoff from a {@link ContentStore}, a session's folder whole or not at all (never a live
 * session's). Only names this package writes are ever touched, and in a directory only
 * when the package made it (its marker file is there), so a user's own files are never taken
 * for the package's. Pure: the clock comes in as a value.
 */
import { UnsafePathError } from '../errors.js';
import type { ContentStore, StoredEntry } from '../ports.js';
import { isSessionRecordKey } from '../manage/records/session-records.js';
import { isOffloadedKey } from '../offload/offload-names.js';
import { holdsStoreMarker, isDirectoryStore, STORE_MARKER_KEY } from './store-keys.js';

/** One entry a prune removed (or, in a dry run, would remove). */
export interface PrunedEntry {
  /** Its key in the store (`session-1/toolu_01.md`). */
  key: string;
  /** The store's reference to it (a path for the file store, `redis://...` for Redis). */
  reference: string;
  /** Its size in bytes. */
  size: number;
  /** When it was written, as the store records it. */
  createdAt: Date;
}

/** What a prune did. */
export interface PruneResult {
  /** The entries removed (in a dry run: that would be removed), sorted by key. */
  removed: PrunedEntry[];
  /** Their sizes added up, in bytes. */
  freedBytes: number;
  /** True when nothing was deleted: the result only says what would be. */
  dryRun: boolean;
  /**
   * Sessions kept whole, sorted: something in their folder (an offloaded content, an archive, a
   * record) changed within the cutoff, so a conversation may still refer to what they hold.
   */
  liveSessions: string[];
}

/** Settings of {@link pruneStore}, already checked. */
export interface ResolvedPruneOptions {
  /** Entries written before `now - olderThanMs` go. */
  olderThanMs: number;
  /** Only keys starting with it (`''` for all), a checked key prefix. */
  prefix: string;
  /** List what would go, delete nothing. */
  dryRun: boolean;
  now: Date;
}

/** Stats (and deletes) this many entries at a time. */
const PRUNE_CONCURRENCY = 16;

/**
 * Age under which a partial write (a temp file) is never removed, whatever the cutoff: its
 * writer may still be at work. A write takes seconds; one left an hour is abandoned.
 */
export const MIN_PARTIAL_WRITE_AGE_MS = 60 * 60 * 1000;

/**
 * Throws {@link UnsafePathError} unless `store`, when it is a directory, holds the package's
 * marker file at its top: the package made it, so the names it writes there are its own.
 */
async function assertPrunable(store: ContentStore): Promise<void> {
  if (!isDirectoryStore(store) || (await holdsStoreMarker(store, ''))) return;
  const markerPath = store.referenceFor(STORE_MARKER_KEY);
  const directory = markerPath.slice(0, -STORE_MARKER_KEY.length - 1);
  throw new UnsafePathError(
    `refusing to prune ${directory}: it holds no ${STORE_MARKER_KEY} file, so agent-context-offload did not create it ` +
      'and cannot tell its own files there from yours. If everything in it was written by agent-context-offload ' +
      `(a directory made by version 0.3.0 has no marker), create that file, empty, and prune again: ${markerPath}`,
  );
}

/** The session folder `key` lies in (its first segment), or `undefined` for a key at the top of the store. */
function sessionOf(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash === -1 ? undefined : key.slice(0, slash);
}

/** Whether `key` is one this package writes (offloaded content, an archive, a session record). */
function isPackageKey(key: string): boolean {
  return isOffloadedKey(key) || isSessionRecordKey(key);
}

/** Stats `keys` (`undefined` for one gone since the listing), {@link PRUNE_CONCURRENCY} at a time. */
async function statAll(store: ContentStore, keys: readonly string[]): Promise<Array<StoredEntry | undefined>> {
  const entries: Array<StoredEntry | undefined> = new Array(keys.length);
  let next = 0;
  let failed = false;
  const work = async (): Promise<void> => {
    while (next < keys.length && !failed) {
      const index = next;
      next += 1;
      try {
        entries[index] = await store.stat(keys[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PRUNE_CONCURRENCY, keys.length) }, work));
  return entries;
}

/**
 * Removes from `store` what no live session holds, under `prefix`: every entry whose key is one
 * this package writes ({@link isOffloadedKey}, and the context manager's records,
 * {@link isSessionRecordKey}) and whose `createdAt` is strictly before `now - olderThanMs`, and
 * every partial write the store lists (`listPartialWrites`: temp files a killed writer left)
 * older than that and than {@link MIN_PARTIAL_WRITE_AGE_MS}; with `dryRun`, deletes nothing and
 * reports the same list. An entry gone between the listing and its `stat` is skipped.
 *
 * A session folder (`<session>/...`) goes whole or not at all: when any of its offloaded
 * contents, archives or records changed within the cutoff, the session is live (a conversation
 * may still send the references it holds, and its records describe what it holds), nothing of
 * it is removed, and it is named in {@link PruneResult.liveSessions}. Its whole folder is looked
 * at, also when `prefix` names only part of it. Entries at the top of the store go one by one.
 *
 * @throws {UnsafePathError} for a directory store (kind `'file'`) without the package's marker
 * file at its top, before anything is listed. Errors of the store (`READ_FAILED`,
 * `WRITE_FAILED`) reject; what was deleted before stays deleted.
 */
export async function pruneStore(store: ContentStore, options: ResolvedPruneOptions): Promise<PruneResult> {
  await assertPrunable(store);
  const now = options.now.getTime();
  const cutoff = now - options.olderThanMs;
  const cutoffOf = new Map<string, number>();
  for await (const key of store.list(options.prefix)) if (isPackageKey(key)) cutoffOf.set(key, cutoff);
  if (store.listPartialWrites !== undefined) {
    const partialCutoff = now - Math.max(options.olderThanMs, MIN_PARTIAL_WRITE_AGE_MS);
    for await (const key of store.listPartialWrites(options.prefix)) cutoffOf.set(key, partialCutoff);
  }
  // a prefix inside a session folder: the rest of the folder says whether the session is live
  const sessions = new Set<string>();
  for (const key of cutoffOf.keys()) {
    const session = sessionOf(key);
    if (session !== undefined) sessions.add(session);
  }
  const outside: string[] = [];
  for (const session of sessions) {
    if (`${session}/`.startsWith(options.prefix)) continue;
    for await (const key of store.list(`${session}/`))
      if (key.startsWith(`${session}/`) && !cutoffOf.has(key) && isPackageKey(key)) outside.push(key);
  }

  const keys = [...cutoffOf.keys()].sort();
  const [stats, outsideStats] = [await statAll(store, keys), await statAll(store, outside)];
  const live = new Set<string>();
  const markLive = (key: string, entry: StoredEntry | undefined): void => {
    const session = sessionOf(key);
    if (session !== undefined && entry !== undefined && isPackageKey(key) && !(entry.createdAt.getTime() < cutoff))
      live.add(session);
  };
  keys.forEach((key, index) => markLive(key, stats[index]));
  outside.forEach((key, index) => markLive(key, outsideStats[index]));

  const doomed: PrunedEntry[] = [];
  keys.forEach((key, index) => {
    const entry = stats[index];
    const session = sessionOf(key);
    if (entry === undefined || (session !== undefined && live.has(session))) return;
    if (!(entry.createdAt.getTime() < cutoffOf.get(key)!)) return;
    doomed.push({ key, reference: store.referenceFor(key), size: entry.size, createdAt: entry.createdAt });
  });

  if (!options.dryRun) {
    let next = 0;
    let failed = false;
    const work = async (): Promise<void> => {
      // after one failure the other workers stop at their next key: nothing more is deleted
      while (next < doomed.length && !failed) {
        const index = next;
        next += 1;
        try {
          await store.delete(doomed[index]!.key);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PRUNE_CONCURRENCY, doomed.length) }, work));
  }

  return {
    removed: doomed,
    freedBytes: doomed.reduce((total, entry) => total + entry.size, 0),
    dryRun: options.dryRun,
    liveSessions: [...live].sort(),
  };
}
