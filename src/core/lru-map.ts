/** A map that forgets its least recently used entries past a size: the bounded caches of long-lived servers. */

/** A map that forgets its least recently used entries past `maxEntries`. */
export interface LruMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
}

/** Creates an {@link LruMap}. */
export function createLruMap<V>(maxEntries: number): LruMap<V> {
  const entries = new Map<string, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        // most recent last: Map keeps insertion order
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    delete: (key) => void entries.delete(key),
  };
}
