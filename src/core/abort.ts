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
 * The callbacks waiting on each signal, behind one `abort` listener per signal: a batch of
 * offloads races dozens of calls on one signal, and one listener each would pass the
 * platform's limit of listeners per event and print a `MaxListenersExceededWarning`.
 */
const waiting = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

/** Calls `onAbort` when `signal` aborts; returns what stops waiting (the last one gone removes the listener). */
function onceAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let entry = waiting.get(signal);
  if (entry === undefined) {
    const callbacks = new Set<() => void>();
    const listener = (): void => {
      waiting.delete(signal);
      for (const callback of callbacks) callback();
    };
    entry = { callbacks, listener };
    waiting.set(signal, entry);
    signal.addEventListener('abort', listener, { once: true });
  }
  const current = entry;
  current.callbacks.add(onAbort);
  return () => {
    current.callbacks.delete(onAbort);
    if (current.callbacks.size > 0 || waiting.get(signal) !== current) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', current.listener);
  };
}

/**
 * Settles as `promise` does, or rejects with `signal.reason` as soon as the signal aborts,
 * whichever comes first. The work behind `promise` is not stopped (nothing can stop a promise);
 * its later outcome is ignored, a rejection included, so it cannot surface as unhandled. Any
 * number of races on one signal share one listener on it.
 */
export function raceWithSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as unknown);
  }
  return new Promise<T>((resolve, reject) => {
    const stopWaiting = onceAborted(signal, () => {
      promise.catch(() => undefined);
      reject(signal.reason as unknown);
    });
    promise.then(
      (value) => {
        stopWaiting();
        resolve(value);
      },
      (error: unknown) => {
        stopWaiting();
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
