import { describe, expect, it } from 'vitest';
import { computeBackoffCalls, createCompactionBackoff } from '../../../../../src/core/manage/compaction/backoff.js';

/** Runs `calls` prepare calls; on each that may attempt, `fails(call)` says whether the attempt fails. Returns which calls attempted. */
function simulate(calls: number, fails: (call: number) => boolean): number[] {
  const backoff = createCompactionBackoff();
  const attempted: number[] = [];
  for (let call = 1; call <= calls; call += 1) {
    backoff.beginCall();
    if (!backoff.mayAttempt) continue;
    attempted.push(call);
    if (fails(call)) backoff.recordFailure();
    else backoff.recordSuccess();
  }
  return attempted;
}

describe('the compaction circuit breaker', () => {
  it('waits 0, 0, then 2, 4, 8 ... calls after each failure in a row, at most 64', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(computeBackoffCalls)).toEqual([0, 0, 2, 4, 8, 16, 32, 64, 64, 64]);
  });

  it('retries the first two failures on the very next call', () => {
    expect(simulate(3, () => true).slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('lets 2, then 4, then 8 calls go by after the 3rd, 4th and 5th failures', () => {
    // attempts at 1, 2, 3 (3rd failure) | skip 4, 5 | 6 (4th) | skip 7-10 | 11 (5th) | skip 12-19 | 20
    expect(simulate(20, () => true)).toEqual([1, 2, 3, 6, 11, 20]);
  });

  it('starts over after a success', () => {
    // fails at 1, 2, 3; waits 4, 5; succeeds at 6; then fails again from 7: retried at once
    expect(simulate(10, (call) => call !== 6)).toEqual([1, 2, 3, 6, 7, 8, 9]);
  });

  it('reports how many calls are still to wait', () => {
    const backoff = createCompactionBackoff();
    for (let failure = 0; failure < 3; failure += 1) {
      backoff.beginCall();
      backoff.recordFailure();
    }
    expect(backoff.waitingCalls).toBe(2);
    backoff.beginCall();
    expect(backoff.mayAttempt).toBe(false);
    expect(backoff.waitingCalls).toBe(1);
    backoff.beginCall();
    expect(backoff.waitingCalls).toBe(0);
    expect(backoff.mayAttempt).toBe(false);
    backoff.beginCall();
    expect(backoff.mayAttempt).toBe(true);
  });
});
