/**
 * The circuit breaker of compaction inside `prepare`: a failed compaction leaves the history as
 * it was and the next call tries again, but a compaction that keeps failing (a summarizer that
 * is down, a store that refuses the archive) must not turn every model request into a doomed
 * summary call. After a few failures in a row, the manager lets a number of `prepare` calls go
 * by before the next attempt, doubling the wait after each further failure.
 */

/** Failures in a row that are retried on the very next call. */
const COMPACT_FAILURES_BEFORE_BACKOFF = 3;
/** Calls that go by without an attempt after the failure that opens the breaker; each further failure doubles it. */
const COMPACT_BACKOFF_INITIAL_CALLS = 2;
/** The longest wait, in calls. */
const COMPACT_BACKOFF_MAX_CALLS = 64;

/** Counts `prepare` calls and compaction failures in a row. */
export interface CompactionBackoff {
  /** Called once at the start of every `prepare` call. */
  beginCall(): void;
  /** Calls after this one that will still not try (0 when this call may try). */
  readonly waitingCalls: number;
  /** Whether this call may try to compact. */
  readonly mayAttempt: boolean;
  /** Records a failed attempt in this call; returns how many calls will go by before the next attempt. */
  recordFailure(): number;
  /** Records a compaction that worked: the count starts over. */
  recordSuccess(): void;
}

/** Calls to wait after the `failures`-th failure in a row: 0, 0, 2, 4, 8, ... at most 64. */
export function computeBackoffCalls(failures: number): number {
  if (failures < COMPACT_FAILURES_BEFORE_BACKOFF) return 0;
  return Math.min(
    COMPACT_BACKOFF_MAX_CALLS,
    COMPACT_BACKOFF_INITIAL_CALLS * 2 ** (failures - COMPACT_FAILURES_BEFORE_BACKOFF),
  );
}

/**
 * The breaker: failures 1 and 2 are retried on the next call; after the 3rd, 2 calls go by
 * without an attempt, after the 4th 4, the 5th 8, ... at most 64. A success resets it.
 */
export function createCompactionBackoff(): CompactionBackoff {
  let call = 0;
  let failures = 0;
  // calls up to this number make no attempt
  let blockedThroughCall = 0;
  return {
    beginCall() {
      call += 1;
    },
    get waitingCalls() {
      return Math.max(0, blockedThroughCall - call);
    },
    get mayAttempt() {
      return call > blockedThroughCall;
    },
    recordFailure() {
      failures += 1;
      const wait = computeBackoffCalls(failures);
      blockedThroughCall = call + wait;
      return wait;
    },
    recordSuccess() {
      failures = 0;
      blockedThroughCall = 0;
    },
  };
}
