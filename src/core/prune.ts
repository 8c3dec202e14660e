/**
 * Retention: removing offloaded content and compaction archives older than a
 * cutoff from a {@link ContentStore}. Only names this package writes are ever touched, so a
 * directory that also holds a user's own files keeps them. Pure: the clock comes in as a value.
 */
import type { ContentStore } from './ports.js';
import { isOffloadedKey } from './offload-names.js';

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
  /** The present time. */
  now: Date;
}

/** Stats (and deletes) this many entries at a time. */
const PRUNE_CONCURRENCY = 16;

/**
 * Removes from `store` every entry under `prefix` whose key is one this package writes
 * ({@link isOffloadedKey}) and whose `createdAt` is strictly before `now - olderThanMs`; with
 * `dryRun`, deletes nothing and reports the same list. An entry gone between the listing and
 * its `stat` is skipped. Errors of the store (`READ_FAILED`, `WRITE_FAILED`) reject; what was
 * deleted before stays deleted.
 */
export async function pruneStore(store: ContentStore, options: ResolvedPruneOptions): Promise<PruneResult> {
  const cutoff = options.now.getTime() - options.olderThanMs;
  const keys: string[] = [];
  for await (const key of store.list(options.prefix)) if (isOffloadedKey(key)) keys.push(key);
  keys.sort();

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
        if (entry === undefined || !(entry.createdAt.getTime() < cutoff)) continue;
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
  return { removed: entries, freedBytes: entries.reduce((total, entry) => total + entry.size, 0), dryRun: options.dryRun };
}
