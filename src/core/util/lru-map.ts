/** A map that forgets its least recently used entries past a size: the bounded caches of long-lived servers. */

/** A map that forgets its least recently used entries past `maxEntries`, or past `maxBytes` in all. */
export interface LruMap<V> {
  get(key: string): V | undefined;
  /** Keeps `value` as the most recent entry; `bytes` is what it holds, counted against `maxBytes`. */
  set(key: string, value: V, bytes?: number): void;
  delete(key: string): void;
  /** The bytes the entries kept hold, as given to `set`. */
  readonly bytes: number;
}

/**
 * Creates an {@link LruMap}. Past `maxBytes` the least recently used entries are forgotten until
 * the rest fit, never the one just set: a single entry over the limit stays until the next.
 */
export function createLruMap<V>(maxEntries: number, maxBytes = Number.POSITIVE_INFINITY): LruMap<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;
  const forget = (key: string): void => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    total -= entry.bytes;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry !== undefined) {
        // most recent last: Map keeps insertion order
        entries.delete(key);
        entries.set(key, entry);
      }
      return entry?.value;
    },
    set(key, value, bytes = 0) {
      forget(key);
      entries.set(key, { value, bytes });
      total += bytes;
      while (entries.size > 1 && (entries.size > maxEntries || total > maxBytes))
        forget(entries.keys().next().value as string);
    },
    delete: forget,
    get bytes() {
      return total;
    },
  };
}
