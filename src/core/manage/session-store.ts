/**
 * A store seen from inside one session's folder: the key `tool-result-a.md` is the store's
 * `<sessionId>/tool-result-a.md`. The manager's batch offload writes through it, so every key it
 * writes lives under the session, where a read tool bound to that session can open it.
 */
import type { ContentStore } from '../ports.js';

/** `store` with every key under `<sessionId>/`; references are the store's own for the full key. */
export function createSessionStoreView(store: ContentStore, sessionId: string): ContentStore {
  const prefix = `${sessionId}/`;
  const full = (key: string): string => prefix + key;
  const view: ContentStore = {
    kind: store.kind,
    putIfAbsent: (key, content) => store.putIfAbsent(full(key), content),
    put: (key, content) => store.put(full(key), content),
    get: (key, range) => store.get(full(key), range),
    stat: (key) => store.stat(full(key)),
    async *list(keyPrefix) {
      for await (const key of store.list(full(keyPrefix))) {
        if (key.startsWith(prefix)) yield key.slice(prefix.length);
      }
    },
    delete: (key) => store.delete(full(key)),
    referenceFor: (key) => store.referenceFor(full(key)),
    keyFor(reference) {
      const key = store.keyFor(reference);
      return key !== undefined && key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
    },
  };
  const holds = store.holds;
  if (holds !== undefined) view.holds = (key, content) => holds.call(store, full(key), content);
  return view;
}
