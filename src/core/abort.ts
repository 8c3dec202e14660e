/**
 * Abort that always works. A summarizer, an LLM client, a file reader or a store may ignore
 * the signal it is given (a custom one, an SDK that only checks it between retries, a server
 * that never answers); racing its promise against the signal lets the caller's abort take
 * effect at once all the same. A deadline is a signal too: `AbortSignal.timeout(ms)`, made by
 * an adapter (the core has no clock).
 */
import { describeValue, InvalidOptionError } from './errors.js';
import type { ContentStore } from './ports.js';

/**
 * Settles as `promise` does, or rejects with `signal.reason` as soon as the signal aborts,
 * whichever comes first. The work behind `promise` is not stopped (nothing can stop a promise);
 * its later outcome is ignored, a rejection included, so it cannot surface as unhandled.
 */
export function raceWithSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as unknown);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => undefined);
      reject(signal.reason as unknown);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/**
 * Throws {@link InvalidOptionError} unless `value` is `undefined` or an `AbortSignal` (by
 * shape: a boolean `aborted` and `addEventListener`, so a polyfill's signal passes too).
 */
export function assertAbortSignal(label: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const shape = value as Partial<AbortSignal> | null;
  if (
    typeof value !== 'object' ||
    shape === null ||
    typeof shape.aborted !== 'boolean' ||
    typeof shape.addEventListener !== 'function'
  ) {
    throw new InvalidOptionError(`${label} must be an AbortSignal, got ${describeValue(value)}`);
  }
  return value as AbortSignal;
}

/**
 * `store` with every call raced against `signal` ({@link raceWithSignal}): a store that
 * accepts a connection and never answers cannot hold the caller past its abort. Once the
 * signal has aborted, no new call reaches the store; a call in flight is not stopped (nothing
 * can stop a promise) and its late outcome is ignored. `store` itself when there is no signal.
 */
export function createAbortableStore(store: ContentStore, signal: AbortSignal | undefined): ContentStore {
  if (signal === undefined) return store;
  const race = <T>(call: () => Promise<T>): Promise<T> =>
    signal.aborted ? Promise.reject(signal.reason as unknown) : raceWithSignal(call(), signal);
  const view: ContentStore = {
    kind: store.kind,
    putIfAbsent: (key, content) => race(() => store.putIfAbsent(key, content)),
    put: (key, content) => race(() => store.put(key, content)),
    get: (key, range) => race(() => store.get(key, range)),
    stat: (key) => race(() => store.stat(key)),
    delete: (key) => race(() => store.delete(key)),
    list: (prefix) => ({
      [Symbol.asyncIterator]: () => {
        const keys = store.list(prefix)[Symbol.asyncIterator]();
        return {
          next: () => race(() => keys.next()),
          return: async () => (await keys.return?.(), { done: true as const, value: undefined }),
        };
      },
    }),
    referenceFor: (key) => store.referenceFor(key),
    keyFor: (reference) => store.keyFor(reference),
  };
  const { holds, exists } = store;
  if (holds !== undefined) view.holds = (key, content) => race(() => holds.call(store, key, content));
  if (exists !== undefined) view.exists = (key) => race(() => exists.call(store, key));
  return view;
}
