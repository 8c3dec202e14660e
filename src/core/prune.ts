/**
 * Retention: removing offloaded content and compaction archives older than a cutoff from a
 * {@link ContentStore}. Only names this package writes are ever touched, and in a directory only
 * when the package made it (its marker file is there), so a user's own files are never taken
 * for the package's. Pure: the clock comes in as a value.
 */
import { UnsafePathError } from './errors.js';
import type { ContentStore } from './ports.js';
import { isSessionRecordKey } from './manage/session-records.js';
import { isOffloadedKey } from './offload-names.js';
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

/**
 * Removes from `store` every entry under `prefix` whose key is one this package writes
 * ({@link isOffloadedKey}, and the context manager's records, {@link isSessionRecordKey}) and whose `createdAt` is strictly before `now - olderThanMs`, and
 * every partial write the store lists (`listPartialWrites`: temp files a killed writer left)
 * older than that and than {@link MIN_PARTIAL_WRITE_AGE_MS}; with `dryRun`, deletes nothing and
 * reports the same list. An entry gone between the listing and its `stat` is skipped.
 *
 * @throws {UnsafePathError} for a directory store (kind `'file'`) without the package's marker
 * file at its top, before anything is listed. Errors of the store (`READ_FAILED`,
 * `WRITE_FAILED`) reject; what was deleted before stays deleted.
 */
export async function pruneStore(store: ContentStore, options: ResolvedPruneOptions): Promise<PruneResult> {
  await assertPrunable(store);
  const now = options.now.getTime();
  const cutoffOf = new Map<string, number>();
  // a session's records go with its content: they describe what it holds
  for await (const key of store.list(options.prefix))
    if (isOffloadedKey(key) || isSessionRecordKey(key)) cutoffOf.set(key, now - options.olderThanMs);
  if (store.listPartialWrites !== undefined) {
    const cutoff = now - Math.max(options.olderThanMs, MIN_PARTIAL_WRITE_AGE_MS);
    for await (const key of store.listPartialWrites(options.prefix)) cutoffOf.set(key, cutoff);
  }
  const keys = [...cutoffOf.keys()].sort();

  const removed: Array<PrunedEntry | undefined> = new Array(keys.length);
  let next = 0;
  let failed = false;
  const work = async (): Promise<void> => {
    // after one failure the other workers stop at their next key: nothing more is deleted
    while (next < keys.length && !failed) {
      const index = next;
      next += 1;
      const key = keys[index]!;
      try {
        const entry = await store.stat(key);
        if (entry === undefined || !(entry.createdAt.getTime() < cutoffOf.get(key)!)) continue;
        if (!options.dryRun) await store.delete(key);
        removed[index] = { key, reference: store.referenceFor(key), size: entry.size, createdAt: entry.createdAt };
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PRUNE_CONCURRENCY, keys.length) }, work));

  const entries = removed.filter((entry): entry is PrunedEntry => entry !== undefined);
  return {
    removed: entries,
    freedBytes: entries.reduce((total, entry) => total + entry.size, 0),
    dryRun: options.dryRun,
  };
}
