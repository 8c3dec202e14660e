import { describe, expect, it } from 'vitest';
import { createPrefixTracker, estimateCachedInputCost } from '../../../../src/cli/replay/prompt-cache.js';
import { replaySession } from '../../../../src/cli/replay/replay-session.js';
import type { ReplayManager } from '../../../../src/cli/replay/replay-session.js';
import { countTokens } from '../../../../src/index.js';
import type { Message } from '../../../../src/index.js';

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const user = (text: string): Message => ({ role: 'user', content: text });
const assistant = (text: string): Message => ({ role: 'assistant', content: text });

describe("prompt caching: the previous request's identical prefix is read from the cache", () => {
  it('reads nothing on the first request, then every message the previous request sent as it was', () => {
    const tracker = createPrefixTracker();
    const first = [system, user('Fix the rounding test.')];
    const second = [...first, assistant('Reading the test.'), user('It fails on Sundays.')];
    expect(tracker.next(first, 0)).toEqual({ cacheReadTokens: 0, prefixChanged: false });
    expect(tracker.next(second, 0)).toEqual({
      cacheReadTokens: countTokens([system]) + countTokens([first[1]!]),
      prefixChanged: false,
    });
  });

  it('compares messages by their content, not by identity', () => {
    const tracker = createPrefixTracker();
    tracker.next([system, user('a')], 0);
    expect(tracker.next([structuredClone(system), user('a'), user('b')], 0).cacheReadTokens).toBe(
      countTokens([system]) + countTokens([user('a')]),
    );
  });

  it('stops at the first message that changed (an offload, a compaction): the rest is written again', () => {
    const tracker = createPrefixTracker();
    tracker.next([system, user('Run the tests.'), assistant('x'.repeat(500)), user('Next.')], 0);
    const changed = tracker.next(
      [system, user('Run the tests.'), assistant('[Content offloaded to: ./a.md]'), user('Next.'), assistant('Ok.')],
      0,
    );
    expect(changed).toEqual({
      cacheReadTokens: countTokens([system]) + countTokens([user('Run the tests.')]),
      prefixChanged: true,
    });
  });

  it('counts the tool definitions in the prefix from the second request on', () => {
    const tracker = createPrefixTracker();
    expect(tracker.next([system], 300).cacheReadTokens).toBe(0);
    expect(tracker.next([system, user('a')], 300).cacheReadTokens).toBe(300 + countTokens([system]));
  });

  it('prices the prefix at the read ratio and the rest at the write ratio', () => {
    expect(estimateCachedInputCost(1_000_000, 0, 3, { readRatio: 0.1, writeRatio: 1.25 })).toBeCloseTo(3.75, 10);
    expect(estimateCachedInputCost(1_000_000, 800_000, 3, { readRatio: 0.1, writeRatio: 1.25 })).toBeCloseTo(
      0.24 + 0.75,
      10,
    );
    expect(estimateCachedInputCost(1000, 5000, 3, { readRatio: 0.5, writeRatio: 2 })).toBeCloseTo(0.0015, 12);
  });
});

describe('replaySession with prompt caching', () => {
  const messages: Message[] = [
    system,
    user('Fix it.'),
    assistant('Step 1.'),
    user('Go on.'),
    assistant('Step 2.'),
    user('Again.'),
    assistant('Done.'),
  ];

  /** A manager that sends the history as it is, except that it rewrites the first user message before request 3. */
  function createRewritingManager(): ReplayManager {
    let calls = 0;
    return {
      prepare(history) {
        calls += 1;
        const sent =
          calls === 3
            ? history.map((message, index) => (index === 1 ? user('Fix it (rewritten).') : message))
            : [...history];
        return Promise.resolve({ messages: sent, actions: [] } as unknown as Awaited<
          ReturnType<ReplayManager['prepare']>
        >);
      },
    };
  }

  it('prices both lines with the cache next to the uncached cost, and counts where the managed prefix changed', async () => {
    const ratios = { readRatio: 0.1, writeRatio: 1.25 };
    const requests = await replaySession({
      messages,
      manager: createRewritingManager(),
      pricePerMTok: 3,
      cacheRatios: ratios,
    });
    expect(requests.map((request) => request.prefixChangedWith)).toEqual([false, false, true]);
    // without the manager, each request repeats the one before it whole
    expect(requests.map((request) => request.cacheReadTokensWithout)).toEqual([
      0,
      countTokens(messages.slice(0, 2)),
      countTokens(messages.slice(0, 4)),
    ]);
    expect(requests[2]?.cacheReadTokensWith).toBe(countTokens([system]));
    for (const request of requests) {
      expect(request.cachedCostWith).toBeCloseTo(
        estimateCachedInputCost(request.tokensWith, request.cacheReadTokensWith, 3, ratios),
        12,
      );
      expect(request.cachedCostWithout).toBeCloseTo(
        estimateCachedInputCost(request.tokensWithout, request.cacheReadTokensWithout, 3, ratios),
        12,
      );
    }
  });

  it('uses the list ratios 0.1x and 1.25x by default', async () => {
    const requests = await replaySession({ messages, manager: createRewritingManager(), pricePerMTok: 3 });
    expect(requests[0]?.cachedCostWithout).toBeCloseTo((requests[0]!.tokensWithout * 1.25 * 3) / 1e6, 12);
  });
});
