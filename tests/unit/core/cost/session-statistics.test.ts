import { describe, expect, it } from 'vitest';
import { estimateCachedInputCost } from '../../../../src/core/cost/cost-model.js';
import {
  createSessionStatistics,
  SESSION_DETAIL_KEPT,
  SESSION_SUMMARIES_KEPT,
  type RecordedRequest,
} from '../../../../src/core/cost/session-statistics.js';
import type { Message } from '../../../../src/core/types.js';

const ratios = { readRatio: 0.1, writeRatio: 1.25 };
const user = (text: string): Message => ({ role: 'user', content: text });
const assistant = (text: string): Message => ({ role: 'assistant', content: text });

function request(overrides: Partial<RecordedRequest>): RecordedRequest {
  return {
    sessionId: 's1',
    time: Date.UTC(2026, 0, 1),
    route: '/v1/messages',
    outcome: 'unchanged',
    messagesIn: 1,
    messagesOut: 1,
    bytesIn: 100,
    bytesOut: 100,
    tokensSent: 1000,
    tokensUnmanaged: 1000,
    sent: [],
    unmanaged: [],
    actions: [],
    ...overrides,
  };
}

describe('session statistics: totals per session', () => {
  it('adds up requests and tokens, and prices them with prompt caching as replay does', () => {
    const statistics = createSessionStatistics({ maxSessions: 4, pricePerMTok: 3, cacheRatios: ratios });
    const first = [user('Fix the test.')];
    const second = [...first, assistant('Done.'), user('Now the docs.')];
    statistics.record(request({ sent: first, unmanaged: first, tokensSent: 1000, tokensUnmanaged: 1000 }));
    statistics.record(request({ sent: second, unmanaged: second, tokensSent: 1500, tokensUnmanaged: 4000 }));
    const [session] = statistics.list();
    expect(session).toMatchObject({ id: 's1', requests: 2, tokensSent: 2500, tokensUnmanaged: 5000 });
    // the second request reads the first one's 1000 tokens from the cache on both lines
    expect(session?.costSent).toBeCloseTo(
      estimateCachedInputCost(1000, 0, 3, ratios) + estimateCachedInputCost(1500, 1000, 3, ratios),
    );
    expect(session?.costUnmanaged).toBeCloseTo(
      estimateCachedInputCost(1000, 0, 3, ratios) + estimateCachedInputCost(4000, 1000, 3, ratios),
    );
  });

  it('reads from the cache only the share before the first message that changed', () => {
    const statistics = createSessionStatistics({ maxSessions: 4, pricePerMTok: 3, cacheRatios: ratios });
    const history = [user('a'), assistant('b'), user('c'), assistant('d')];
    statistics.record(request({ sent: history, tokensSent: 1000 }));
    const changed = [history[0]!, assistant('[Content offloaded to: x]'), user('c'), assistant('d'), user('e')];
    statistics.record(request({ sent: changed, tokensSent: 800 }));
    expect(statistics.get('s1')?.requestLog[1]?.costSent).toBeCloseTo(estimateCachedInputCost(800, 250, 3, ratios));
  });

  it('counts offloads by result and compactions, and keeps the summary text, archive and last warning', () => {
    const statistics = createSessionStatistics({ maxSessions: 4, pricePerMTok: 3, cacheRatios: ratios });
    statistics.record(
      request({
        outcome: 'managed',
        sent: [user('[Conversation compressed]\n\nThe user fixed the test.'), assistant('Understood.')],
        actions: [
          { type: 'batch-offload', toolCallIds: ['t1', 't2'], references: ['r1', 'r2'], freedChars: 9000 },
          {
            type: 'compact',
            tokensBefore: 9000,
            tokensAfter: 900,
            targetTokens: 1000,
            archiveReference: '[Content offloaded to: /a/archive.md]',
            summarizer: 'extractive',
            restoredFileCount: 0,
            budgets: { summaryMaxWords: 1, maxRestoreFiles: 1, maxRestoreTokensPerFile: 1, maxRestoreTokensTotal: 1 },
          },
        ],
        warning: 'compaction skipped (failed)',
      }),
    );
    const detail = statistics.get('s1');
    expect(detail).toMatchObject({ offloads: 2, compactions: 1 });
    expect(detail?.lastWarning).toBe('2026-01-01T00:00:00.000Z compaction skipped (failed)');
    expect(detail?.summaries).toEqual([
      {
        time: '2026-01-01T00:00:00.000Z',
        text: 'The user fixed the test.',
        archive: '[Content offloaded to: /a/archive.md]',
        tokensBefore: 9000,
        tokensAfter: 900,
      },
    ]);
    expect(detail?.archives).toHaveLength(1);
    expect(detail?.offloaded[0]).toMatchObject({ toolCallIds: ['t1', 't2'], freedChars: 9000 });
    expect(detail?.requestLog[0]?.actions).toEqual([
      'batch-offload: 2 (9000 chars freed)',
      'compact: 9000 -> 900 tokens (extractive)',
    ]);
  });
});

describe('session statistics: bounded', () => {
  it('forgets the least recently active session past maxSessions and lists the most recent first', () => {
    const statistics = createSessionStatistics({ maxSessions: 2, pricePerMTok: 3, cacheRatios: ratios });
    statistics.record(request({ sessionId: 'a' }));
    statistics.record(request({ sessionId: 'b' }));
    statistics.record(request({ sessionId: 'a' }));
    statistics.record(request({ sessionId: 'c' }));
    expect(statistics.list().map((session) => session.id)).toEqual(['c', 'a']);
    expect(statistics.get('b')).toBeUndefined();
  });

  it("keeps a session's latest requests only", () => {
    const statistics = createSessionStatistics({ maxSessions: 2, pricePerMTok: 3, cacheRatios: ratios });
    for (let index = 0; index < SESSION_DETAIL_KEPT + 3; index += 1) statistics.record(request({ messagesIn: index }));
    const detail = statistics.get('s1');
    expect(detail?.requests).toBe(SESSION_DETAIL_KEPT + 3);
    expect(detail?.requestLog).toHaveLength(SESSION_DETAIL_KEPT);
    expect(detail?.requestLog[0]?.messagesIn).toBe(3);
  });

  it("keeps a session's latest summaries only: each holds a summary's whole text", () => {
    const statistics = createSessionStatistics({ maxSessions: 2, pricePerMTok: 3, cacheRatios: ratios });
    for (let index = 0; index < SESSION_SUMMARIES_KEPT + 2; index += 1)
      statistics.record(
        request({
          sent: [user(`[Conversation compressed]\n\nSummary ${index}.`)],
          actions: [
            {
              type: 'compact',
              tokensBefore: 10,
              tokensAfter: 5,
              targetTokens: 5,
              summarizer: 'extractive',
              restoredFileCount: 0,
              budgets: { summaryMaxWords: 1, maxRestoreFiles: 1, maxRestoreTokensPerFile: 1, maxRestoreTokensTotal: 1 },
            },
          ],
        }),
      );
    const detail = statistics.get('s1');
    expect(detail?.compactions).toBe(SESSION_SUMMARIES_KEPT + 2);
    expect(detail?.summaries).toHaveLength(SESSION_SUMMARIES_KEPT);
    expect(detail?.summaries[0]?.text).toBe('Summary 2.');
  });
});
