import { describe, expect, it } from 'vitest';
import { estimateInputCost, summarizeReplay } from '../../../../src/cli/replay/replay-report.js';
import type { ReplayRequest } from '../../../../src/cli/replay/replay-report.js';

function request(
  fields: Partial<ReplayRequest> & Pick<ReplayRequest, 'request' | 'tokensWithout' | 'tokensWith'>,
): ReplayRequest {
  return {
    messageIndex: fields.request * 2,
    messagesWithout: fields.request * 2,
    messagesWith: fields.request * 2,
    offloadedResults: 0,
    freedChars: 0,
    compaction: null,
    compactionSkipped: null,
    costWithout: estimateInputCost(fields.tokensWithout, 3),
    costWith: estimateInputCost(fields.tokensWith, 3),
    cacheReadTokensWithout: 0,
    cacheReadTokensWith: 0,
    prefixChangedWith: false,
    cachedCostWithout: 0,
    cachedCostWith: 0,
    readBacks: 0,
    readBackTokens: 0,
    readBackCost: 0,
    readBackCachedCost: 0,
    ...fields,
  };
}

describe('replay: the estimated input cost', () => {
  it('is tokens × price per million', () => {
    expect(estimateInputCost(1_000_000, 3)).toBe(3);
    expect(estimateInputCost(250_000, 0.8)).toBeCloseTo(0.2, 10);
    expect(estimateInputCost(0, 3)).toBe(0);
  });
});

describe('replay: the totals', () => {
  const requests = [
    request({ request: 1, tokensWithout: 1000, tokensWith: 1000 }),
    request({ request: 2, tokensWithout: 40_000, tokensWith: 5000, offloadedResults: 2, freedChars: 140_000 }),
    request({
      request: 3,
      tokensWithout: 60_000,
      tokensWith: 9000,
      compaction: { tokensBefore: 28_000, tokensAfter: 9000, archiveReference: '/s/a.json' },
    }),
    request({ request: 4, tokensWithout: 61_000, tokensWith: 31_000, compactionSkipped: 'backing-off' }),
  ];
  const totals = summarizeReplay(requests, 30_000);

  it('adds up the input tokens of every request, and the share saved', () => {
    expect(totals.requests).toBe(4);
    expect(totals.tokensWithout).toBe(162_000);
    expect(totals.tokensWith).toBe(46_000);
    expect(totals.savedShare).toBeCloseTo(1 - 46_000 / 162_000, 10);
  });

  it('keeps the peaks and counts the requests over the window', () => {
    expect([totals.peakWithout, totals.peakWith]).toEqual([61_000, 31_000]);
    expect([totals.requestsOverWindowWithout, totals.requestsOverWindowWith]).toEqual([3, 1]);
  });

  it('counts offloads, compactions and skipped compactions', () => {
    expect([totals.offloadedResults, totals.freedChars, totals.compactions, totals.skippedCompactions]).toEqual([
      2, 140_000, 1, 1,
    ]);
  });

  it('adds up the costs', () => {
    expect(totals.costWithout).toBeCloseTo((162_000 * 3) / 1e6, 10);
    expect(totals.costWith).toBeCloseTo((46_000 * 3) / 1e6, 10);
  });

  it('adds up the cache reads, the prefix changes and the costs with prompt caching', () => {
    const cached = summarizeReplay(
      [
        request({ request: 1, tokensWithout: 1000, tokensWith: 1000, cachedCostWithout: 0.5, cachedCostWith: 0.5 }),
        request({
          request: 2,
          tokensWithout: 3000,
          tokensWith: 2000,
          cacheReadTokensWithout: 1000,
          cacheReadTokensWith: 600,
          prefixChangedWith: true,
          cachedCostWithout: 0.25,
          cachedCostWith: 1,
        }),
        request({
          request: 3,
          tokensWithout: 5000,
          tokensWith: 2500,
          cacheReadTokensWithout: 3000,
          cacheReadTokensWith: 2000,
          cachedCostWithout: 0.25,
          cachedCostWith: 0.125,
        }),
      ],
      30_000,
    );
    expect(cached).toMatchObject({
      cacheReadTokensWithout: 4000,
      cacheReadTokensWith: 2600,
      prefixChangesWith: 1,
      cachedCostWithout: 1,
      cachedCostWith: 1.625,
    });
  });

  it('adds up the read-backs apart from the requests', () => {
    const withReadBacks = summarizeReplay(
      [
        request({ request: 1, tokensWithout: 1000, tokensWith: 1000 }),
        request({
          request: 2,
          tokensWithout: 3000,
          tokensWith: 2000,
          readBacks: 2,
          readBackTokens: 5000,
          readBackCost: 0.015,
          readBackCachedCost: 0.01,
        }),
        request({
          request: 3,
          tokensWithout: 5000,
          tokensWith: 2500,
          readBacks: 1,
          readBackTokens: 3000,
          readBackCost: 0.009,
          readBackCachedCost: 0.005,
        }),
      ],
      30_000,
    );
    expect(withReadBacks).toMatchObject({ readBacks: 3, readBackTokens: 8000, tokensWith: 5500 });
    expect(withReadBacks.readBackCost).toBeCloseTo(0.024, 12);
    expect(withReadBacks.readBackCachedCost).toBeCloseTo(0.015, 12);
  });

  it('saves nothing of nothing', () => {
    expect(summarizeReplay([], 1000)).toMatchObject({ requests: 0, savedShare: 0, peakWithout: 0 });
  });
});
