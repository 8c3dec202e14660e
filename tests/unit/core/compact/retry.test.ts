import { describe, expect, it, vi } from 'vitest';
import { backoffDelayMs, retryWithBackoff, summarizeWithRetry } from '../../../../src/core/compact/retry.js';
import { ContextError, SummarizerFailedError } from '../../../../src/core/errors.js';
import { sleepWithTimeout } from '../../../../src/infrastructure/clock.js';
import type { Message } from '../../../../src/core/types.js';
import { createRecordingSleep, createScriptedSummarizer } from '../../../fixtures/compact-fixtures.js';

const rest: Message[] = [{ role: 'user', content: 'hi' }];

describe('retryWithBackoff', () => {
  it('resolves the first success without waiting', async () => {
    const sleep = createRecordingSleep();
    expect(await retryWithBackoff(async () => 'ok', { maxRetries: 2, baseDelayMs: 1000, sleep })).toBe('ok');
    expect(sleep.delays).toEqual([]);
  });

  it('retries with exponential backoff from the base delay', async () => {
    const sleep = createRecordingSleep();
    let attempts = 0;
    const result = await retryWithBackoff(
      async () => {
        attempts += 1;
        if (attempts < 4) throw new Error(`fail ${attempts}`);
        return 'ok';
      },
      { maxRetries: 3, baseDelayMs: 500, sleep },
    );
    expect(result).toBe('ok');
    expect(sleep.delays).toEqual([500, 1000, 2000]);
  });

  it('makes 1 + maxRetries attempts, then rejects with the last error', async () => {
    const sleep = createRecordingSleep();
    let attempts = 0;
    await expect(
      retryWithBackoff(
        async () => {
          attempts += 1;
          throw new Error(`fail ${attempts}`);
        },
        { maxRetries: 2, baseDelayMs: 10, sleep },
      ),
    ).rejects.toThrow('fail 3');
    expect(attempts).toBe(3);
    expect(sleep.delays).toEqual([10, 20]);
  });

  it('makes a single attempt with maxRetries 0', async () => {
    let attempts = 0;
    await expect(
      retryWithBackoff(async () => ((attempts += 1), Promise.reject(new Error('no'))), {
        maxRetries: 0,
        baseDelayMs: 10,
        sleep: createRecordingSleep(),
      }),
    ).rejects.toThrow('no');
    expect(attempts).toBe(1);
  });

  it("honours an error's retryAfterMs instead of the backoff delay, capped at maxDelayMs", async () => {
    const sleep = createRecordingSleep();
    const errors = [
      Object.assign(new Error('429'), { retryAfterMs: 3000 }),
      Object.assign(new Error('529'), { retryAfterMs: 9_999_999 }),
      new Error('plain'),
    ];
    let attempts = 0;
    await retryWithBackoff(
      async () => {
        const error = errors[attempts];
        attempts += 1;
        if (error) throw error;
        return 'ok';
      },
      { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 60_000, sleep },
    );
    expect(sleep.delays).toEqual([3000, 60_000, 400]);
  });

  it('does not retry an error marked retryable: false, and rejects with it at once', async () => {
    const sleep = createRecordingSleep();
    const refused = Object.assign(new Error('400: prompt is too long'), { retryable: false });
    let attempts = 0;
    await expect(
      retryWithBackoff(
        async () => {
          attempts += 1;
          throw refused;
        },
        { maxRetries: 3, baseDelayMs: 10, sleep },
      ),
    ).rejects.toBe(refused);
    expect(attempts).toBe(1);
    expect(sleep.delays).toEqual([]);
  });

  it('retries an error marked retryable: true like any other', async () => {
    let attempts = 0;
    const result = await retryWithBackoff(
      async () => {
        attempts += 1;
        if (attempts < 3) throw Object.assign(new Error('529'), { retryable: true });
        return 'ok';
      },
      { maxRetries: 3, baseDelayMs: 10, sleep: createRecordingSleep() },
    );
    expect(result).toBe('ok');
    expect(attempts).toBe(3);
  });

  it('caps the backoff at maxDelayMs', () => {
    expect(backoffDelayMs(1, 1000)).toBe(1000);
    expect(backoffDelayMs(3, 1000)).toBe(4000);
    expect(backoffDelayMs(20, 1000)).toBe(60_000);
  });

  it('calls onRetry before each wait', async () => {
    const seen: Array<[string, number, number]> = [];
    let attempts = 0;
    await retryWithBackoff(
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('first');
        return 'ok';
      },
      {
        maxRetries: 1,
        baseDelayMs: 7,
        sleep: createRecordingSleep(),
        onRetry: (error, retry, delay) => seen.push([(error as Error).message, retry, delay]),
      },
    );
    expect(seen).toEqual([['first', 1, 7]]);
  });

  describe('abort', () => {
    it('rejects with the reason before any attempt when already aborted', async () => {
      const controller = new AbortController();
      const reason = new Error('user cancelled');
      controller.abort(reason);
      let attempts = 0;
      await expect(
        retryWithBackoff(async () => (attempts += 1), {
          maxRetries: 2,
          baseDelayMs: 1,
          signal: controller.signal,
          sleep: createRecordingSleep(),
        }),
      ).rejects.toBe(reason);
      expect(attempts).toBe(0);
    });

    it('rejects with the reason, without retrying, when aborted during an attempt', async () => {
      const controller = new AbortController();
      const sleep = createRecordingSleep();
      let attempts = 0;
      const promise = retryWithBackoff(
        async () => {
          attempts += 1;
          controller.abort('stop');
          throw new Error('request aborted');
        },
        { maxRetries: 5, baseDelayMs: 1, signal: controller.signal, sleep },
      );
      await expect(promise).rejects.toBe('stop');
      expect(attempts).toBe(1);
      expect(sleep.delays).toEqual([]);
    });

    it('rejects with the reason when aborted during the wait (real timer, cleared)', async () => {
      const controller = new AbortController();
      const reason = new Error('cancelled while waiting');
      const promise = retryWithBackoff(
        async () => {
          queueMicrotask(() => controller.abort(reason));
          throw new Error('transient');
        },
        { maxRetries: 1, baseDelayMs: 3_600_000, signal: controller.signal, sleep: sleepWithTimeout },
      );
      await expect(promise).rejects.toBe(reason);
    });
  });

  it('waits only through the injected sleep, handing it the signal', async () => {
    const calls: Array<[number, AbortSignal | undefined]> = [];
    const signal = new AbortController().signal;
    let attempts = 0;
    const result = await retryWithBackoff(
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('transient');
        return 'ok';
      },
      // an hour's backoff: only an injected sleep lets this finish at once
      {
        maxRetries: 2,
        baseDelayMs: 3_600_000,
        maxDelayMs: 86_400_000,
        signal,
        sleep: async (delayMs, sleepSignal) => void calls.push([delayMs, sleepSignal]),
      },
    );
    expect(result).toBe('ok');
    expect(calls).toEqual([
      [3_600_000, signal],
      [7_200_000, signal],
    ]);
  });
});

describe('sleepWithTimeout (the real timer the public layer passes)', () => {
  it('rejects at once on an aborted signal', async () => {
    await expect(sleepWithTimeout(10_000, AbortSignal.abort('gone'))).rejects.toBe('gone');
  });

  it('resolves after the delay, not before', async () => {
    vi.useFakeTimers();
    try {
      let resolved = false;
      const sleeping = sleepWithTimeout(20).then(() => (resolved = true));
      await vi.advanceTimersByTimeAsync(19);
      expect(resolved).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await sleeping;
      expect(resolved).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('summarizeWithRetry', () => {
  it('passes maxWords and the signal to the summarizer and trims the result', async () => {
    const summarizer = createScriptedSummarizer(['  summary \n']);
    const signal = new AbortController().signal;
    expect(
      await summarizeWithRetry(summarizer, rest, {
        maxWords: 1200,
        maxRetries: 0,
        baseDelayMs: 0,
        signal,
        sleep: createRecordingSleep(),
      }),
    ).toBe('summary');
    expect(summarizer.calls[0]?.options).toEqual({ maxWords: 1200, signal });
    expect(summarizer.calls[0]?.messages).toBe(rest);
  });

  it('treats blank text as a failure and retries it', async () => {
    const sleep = createRecordingSleep();
    const summarizer = createScriptedSummarizer(['', ' \n\t', 'third time']);
    expect(await summarizeWithRetry(summarizer, rest, { maxWords: 10, maxRetries: 2, baseDelayMs: 100, sleep })).toBe(
      'third time',
    );
    expect(sleep.delays).toEqual([100, 200]);
  });

  it('rejects with a SummarizerFailedError (SUMMARIZER_FAILED) when the last attempt is blank', async () => {
    const summarizer = createScriptedSummarizer(['']);
    const error = await summarizeWithRetry(summarizer, rest, {
      maxWords: 10,
      maxRetries: 1,
      baseDelayMs: 0,
      sleep: createRecordingSleep(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SummarizerFailedError);
    expect(error).toBeInstanceOf(ContextError);
    expect((error as Error).name).toBe('SummarizerFailedError');
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', message: 'summary attempt 2 of 2 returned blank text' });
  });

  it('treats a non-string reply as a failure', async () => {
    const summarizer = { summarize: async () => undefined as unknown as string };
    await expect(
      summarizeWithRetry(summarizer, rest, {
        maxWords: 10,
        maxRetries: 0,
        baseDelayMs: 0,
        sleep: createRecordingSleep(),
      }),
    ).rejects.toThrow('returned no text (undefined)');
  });
});
