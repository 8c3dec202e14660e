/**
 * Retry with exponential backoff: a summary attempt that throws or
 * returns blank text is retried up to `maxRetries` times, waiting `baseDelayMs`, then twice
 * that, and so on — or what the error's `retryAfterMs` says (a server's `retry-after`). An
 * error marked `retryable: false` (a request the server refused as it was: the same request
 * would be refused again) ends at once with that error. An abort ends everything at once with
 * the signal's reason: no retry, no further wait.
 */
import { raceWithSignal, throwIfAborted } from '../abort.js';
import { SummarizerFailedError } from '../errors.js';
import type { Sleep, Summarizer } from '../ports.js';
import type { Message } from '../types.js';
import type { CompactionSummarizerOptions, LedgerError } from './summary/ledger.js';

/** Longest wait between two attempts, whatever the backoff or `retry-after` says. */
const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** Options of {@link retryWithBackoff}. */
export interface RetryOptions {
  /** Retries after the first attempt (0 = one attempt only). */
  maxRetries: number;
  /** Wait before the first retry; each later retry waits twice the one before. */
  baseDelayMs: number;
  /**
   * Cap on any wait, `retryAfterMs` included, so a server asking for an hour cannot hang
   * compaction.
   * @default 60000
   */
  maxDelayMs?: number | undefined;
  /** Aborts: the promise rejects with `signal.reason`, with no further attempt. */
  signal?: AbortSignal | undefined;
  /** The wait between attempts, cancelled by `signal` (the public layer passes a real timer; tests an instant one). */
  sleep: Sleep;
  /** Called before each wait, with the error that caused it. */
  onRetry?: ((error: unknown, retryNumber: number, delayMs: number) => void) | undefined;
}

/** The wait before retry number `retryNumber` (1-based): `baseDelayMs × 2^(retryNumber − 1)`, capped. */
export function backoffDelayMs(
  retryNumber: number,
  baseDelayMs: number,
  maxDelayMs = DEFAULT_MAX_RETRY_DELAY_MS,
): number {
  return Math.min(baseDelayMs * 2 ** (retryNumber - 1), maxDelayMs);
}

/** Whether `error` says that the same attempt would fail again (`retryable: false`). */
function isFinal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false;
}

function retryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Runs `attempt` until it resolves, at most `1 + maxRetries` times, waiting between attempts
 * (exponential backoff, or the error's numeric `retryAfterMs` when it has one). Rejects with
 * the last error when every attempt failed, at once with an error marked `retryable: false`,
 * or with the signal's reason on abort.
 */
export async function retryWithBackoff<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { signal, sleep } = options;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    throwIfAborted(signal);
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      // An abort is the caller's decision, not a failure to retry.
      throwIfAborted(signal);
      if (attemptNumber > options.maxRetries || isFinal(error)) throw error;
      const retryAfterMs = retryAfterMsOf(error);
      const delayMs =
        retryAfterMs === undefined
          ? backoffDelayMs(attemptNumber, options.baseDelayMs, maxDelayMs)
          : Math.min(retryAfterMs, maxDelayMs);
      options.onRetry?.(error, attemptNumber, delayMs);
      await sleep(delayMs, signal);
    }
  }
}

/**
 * Asks `summarizer` for a summary of `messages`, with {@link retryWithBackoff}. Blank text (or
 * anything but a string) is a failure, retried like a thrown error: a {@link SummarizerFailedError}
 * (code `SUMMARIZER_FAILED`). Resolves the summary, trimmed. `lastError` is passed on to the
 * summarizer ({@link CompactionSummarizerOptions}).
 */
export async function summarizeWithRetry(
  summarizer: Summarizer,
  messages: readonly Message[],
  options: RetryOptions & { maxWords: number; lastError?: LedgerError | undefined },
): Promise<string> {
  const summarizeOptions: CompactionSummarizerOptions = { maxWords: options.maxWords };
  if (options.signal !== undefined) summarizeOptions.signal = options.signal;
  if (options.lastError !== undefined) summarizeOptions.lastError = options.lastError;
  return retryWithBackoff(async (attemptNumber) => {
    // raced: a summarizer that ignores the signal cannot hold the abort up
    const summary: unknown = await raceWithSignal(
      (async () => summarizer.summarize(messages, summarizeOptions))(),
      options.signal,
    );
    if (typeof summary !== 'string' || summary.trim() === '') {
      throw new SummarizerFailedError(
        `summary attempt ${attemptNumber} of ${options.maxRetries + 1} returned ${typeof summary === 'string' ? 'blank text' : `no text (${typeof summary})`}`,
      );
    }
    return summary.trim();
  }, options);
}
