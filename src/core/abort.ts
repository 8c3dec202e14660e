/**
 * Abort that always works. A summarizer, an LLM client or a file reader may ignore the signal
 * it is given (a custom one, an SDK that only checks it between retries); racing its promise
 * against the signal lets the caller's abort take effect at once all the same.
 */

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

/** Throws the signal's reason when it has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}
