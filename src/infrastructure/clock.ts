/**
 * The real clock and timer behind the core's `now` and {@link Sleep} parameters: the core
 * never reads the time or sets a timer itself, so tests can pass their own.
 */
import type { Sleep } from '../core/ports.js';

export function systemNow(): Date {
  return new Date();
}

/** Waits with `setTimeout`; an abort clears the timer and rejects with the signal's reason. */
export const sleepWithTimeout: Sleep = (delayMs, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
