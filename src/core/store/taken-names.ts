/**
 * Which numbered names (`<name>-1`, `<name>-2`, ...) are taken in a store, at a cost that
 * follows how many of them are taken, not how much else the store holds.
 */
import type { ContentStore } from '../ports.js';
import { collectKeys } from './store-keys.js';

/** Numbered names asked about at once when the store has `exists`. */
const EXISTS_ROUND = 32;

/** A family of numbered keys. */
export interface NumberedNames {
  /** The key numbered `number` (from 1). */
  keyFor(number: number): string;
  /** A prefix every key of the family starts with, listed when the store has no `exists`. */
  listPrefix: string;
  /** The highest number asked about. */
  maxNumber: number;
}

/**
 * The keys of `names` that are taken in `store`: with the store's `exists`, asked in rounds of
 * 32 up to the first round with a free one (all a search for a free number needs before it
 * writes); else every key under `names.listPrefix`, listed (a prefix listing on Redis walks
 * the whole keyspace: that is what `exists` spares).
 */
export async function findTakenNames(store: ContentStore, names: NumberedNames): Promise<Set<string>> {
  const exists = store.exists;
  if (exists === undefined) return new Set(await collectKeys(store, names.listPrefix));
  const taken = new Set<string>();
  for (let first = 1; first <= names.maxNumber; first += EXISTS_ROUND) {
    const keys = Array.from({ length: Math.min(EXISTS_ROUND, names.maxNumber - first + 1) }, (_, index) =>
      names.keyFor(first + index),
    );
    const found = await Promise.all(keys.map((key) => exists.call(store, key)));
    keys.forEach((key, index) => {
      if (found[index]) taken.add(key);
    });
    if (found.includes(false)) break;
  }
  return taken;
}
