/**
 * A store whose every call ends as soon as the caller's signal aborts: a store that accepts the
 * connection and never answers must not hold `prepare` open. The call itself is not stopped
 * (nothing can stop a promise); its late outcome is ignored.
 */
import { raceWithSignal } from '../abort.js';
import type { ContentStore } from '../ports.js';

/** `store` with each call raced against `signal`; `store` itself when there is no signal. */
export function createAbortableStore(store: ContentStore, signal: AbortSignal | undefined): ContentStore {
  if (signal === undefined) return store;
  const view: ContentStore = {
    kind: store.kind,
    putIfAbsent: (key, content) => raceWithSignal(store.putIfAbsent(key, content), signal),
    put: (key, content) => raceWithSignal(store.put(key, content), signal),
    get: (key, range) => raceWithSignal(store.get(key, range), signal),
    stat: (key) => raceWithSignal(store.stat(key), signal),
    delete: (key) => raceWithSignal(store.delete(key), signal),
    list(prefix) {
      const iterator = store.list(prefix)[Symbol.asyncIterator]();
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => raceWithSignal(iterator.next(), signal),
          return: async (value?: unknown) => {
            await iterator.return?.(value);
            return { done: true as const, value: undefined };
          },
        }),
      };
    },
    referenceFor: (key) => store.referenceFor(key),
    keyFor: (reference) => store.keyFor(reference),
  };
  const holds = store.holds;
  if (holds !== undefined) view.holds = (key, content) => raceWithSignal(holds.call(store, key, content), signal);
  return view;
}
