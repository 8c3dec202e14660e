/**
 * Faults inside `prepare`: a compaction that fails returns the
 * history with the offloads done so far and says why; the next call tries again; repeated
 * failures back off. A `lastUsage` that does not fit the history is ignored with a warning.
 */
import { describe, expect, it, vi } from 'vitest';
import { createEmptyCompactStats } from '../../../../src/core/compact/stats.js';
import type { ContextAction } from '../../../../src/core/manage/types.js';
import type { ContentStore } from '../../../../src/core/ports.js';
import type { Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  createRecordingCompact,
  createRecordingLogger,
  createTestManager,
  directKey,
  directReference,
  resultContent,
  SYSTEM,
  summarizeTo,
  TASK,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

const overTrigger: Message[] = [
  SYSTEM,
  TASK,
  ...toolTurn('a', textOf(4000)),
  { role: 'assistant', content: textOf(12_000) },
];

function skipsOf(actions: readonly ContextAction[]): ContextAction[] {
  return actions.filter((action) => action.type === 'compact-skipped');
}

describe('a compaction that fails inside prepare', () => {
  it('returns the history with the offloads done so far, and says why (the error included)', async () => {
    const failure = new Error('summarizer is down');
    const compact = createRecordingCompact(() => {
      throw failure;
    });
    const logger = createRecordingLogger();
    const { manager, store } = createTestManager({ contextTokenLimit: 3000, threshold: 1000, compact, logger });
    const result = await manager.prepare(overTrigger);

    expect(result.actions).toEqual([
      expect.objectContaining({ type: 'direct-offload', toolCallIds: ['a'] }),
      { type: 'compact-skipped', reason: 'failed', error: failure, retryInCalls: 0 },
    ]);
    expect(result.messages).toHaveLength(overTrigger.length);
    expect(resultContent(result.messages[3])).toBe(directReference(directKey('a', textOf(4000))));
    expect(await store.get(directKey('a', textOf(4000)))).toBe(textOf(4000));
    expect(logger.warnings).toEqual([expect.stringContaining('compaction failed (summarizer is down)')]);
  });

  it('reports a compaction that skipped with its own reason and error', async () => {
    const error = new Error('disk full');
    const compact = createRecordingCompact((messages) => ({
      messages: messages as Message[],
      compacted: false,
      stats: createEmptyCompactStats(),
      originalMessagesPath: null,
      archiveReference: null,
      skippedReason: 'archive-failed',
      error,
      summarizer: 'extractive',
    }));
    const { manager } = createTestManager({ contextTokenLimit: 3000, compact });
    const result = await manager.prepare(overTrigger);
    expect(skipsOf(result.actions)).toEqual([
      { type: 'compact-skipped', reason: 'archive-failed', error, retryInCalls: 0 },
    ]);
  });

  it('treats a compaction that would not gain anything as a skip (no-gain), the history kept', async () => {
    const compact = createRecordingCompact((messages) => ({
      messages: messages as Message[],
      compacted: false,
      stats: createEmptyCompactStats(),
      originalMessagesPath: 'memory://default/s1/compact-x-1.json',
      archiveReference: 'memory://default/s1/compact-x-1.json',
      skippedReason: 'no-gain',
      summarizer: 'extractive',
    }));
    const { manager } = createTestManager({ contextTokenLimit: 3000, compact });
    const result = await manager.prepare(overTrigger);
    expect(result.messages).toHaveLength(overTrigger.length);
    expect(skipsOf(result.actions)).toEqual([{ type: 'compact-skipped', reason: 'no-gain', retryInCalls: 0 }]);
  });

  it('tries again on the next call, and succeeds', async () => {
    let attempts = 0;
    const compact = createRecordingCompact((messages) => {
      attempts += 1;
      if (attempts === 1) throw new Error('timeout');
      return summarizeTo('done')(messages);
    });
    const { manager } = createTestManager({ contextTokenLimit: 3000, compact });
    const first = await manager.prepare(overTrigger);
    const second = await manager.prepare(first.messages);
    expect(second.actions.map((action) => action.type)).toEqual(['compact']);
    expect(second.messages.length).toBeLessThan(first.messages.length);
  });

  it('backs off after three failures in a row: 2 calls go by, then 4 (no retry storm)', async () => {
    const compact = createRecordingCompact(() => {
      throw new Error('down');
    });
    const { manager } = createTestManager({ contextTokenLimit: 3000, compact });
    const reasons: string[] = [];
    for (let call = 0; call < 10; call += 1) {
      const result = await manager.prepare(overTrigger);
      const skip = skipsOf(result.actions)[0];
      reasons.push(skip?.type === 'compact-skipped' ? `${skip.reason}:${skip.retryInCalls}` : 'none');
    }
    expect(reasons).toEqual([
      'failed:0',
      'failed:0',
      'failed:2',
      'backing-off:1',
      'backing-off:0',
      'failed:4',
      'backing-off:3',
      'backing-off:2',
      'backing-off:1',
      'backing-off:0',
    ]);
    expect(compact.calls).toHaveLength(4);
  });
});

describe('a lastUsage that does not fit the history', () => {
  it.each([
    ['more messages than the history', { inputTokens: 1000, messageCount: 3 }],
    ['negative tokens', { inputTokens: -1, messageCount: 1 }],
    ['NaN tokens', { inputTokens: Number.NaN, messageCount: 1 }],
    ['infinite tokens', { inputTokens: Number.POSITIVE_INFINITY, messageCount: 1 }],
  ])('is ignored with a warning and a usage-ignored action (%s)', async (_, lastUsage) => {
    const logger = createRecordingLogger();
    const { manager } = createTestManager({ logger });
    const result = await manager.prepare([SYSTEM, TASK], { lastUsage });

    expect(result.actions).toEqual([{ type: 'usage-ignored', reason: expect.stringContaining('lastUsage') }]);
    expect(logger.warnings).toEqual([expect.stringContaining('lastUsage ignored')]);
    expect(result.stats.anchoredMessages).toBe(0);
  });

  it('is logged once per manager: every later call reports it in its actions only', async () => {
    const logger = createRecordingLogger();
    const { manager } = createTestManager({ logger });
    const lastUsage = { inputTokens: 1000, messageCount: 3 };
    const results = [
      await manager.prepare([SYSTEM, TASK], { lastUsage }),
      await manager.prepare([SYSTEM, TASK], { lastUsage }),
      await manager.prepare([SYSTEM, TASK], { lastUsage }),
    ];
    expect(results.map((result) => result.actions.map((action) => action.type))).toEqual([
      ['usage-ignored'],
      ['usage-ignored'],
      ['usage-ignored'],
    ]);
    expect(logger.warnings).toEqual([expect.stringContaining('lastUsage ignored')]);
  });

  it('is never trusted: the estimate is the local one', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 1000 });
    const result = await manager.prepare([SYSTEM, TASK], { lastUsage: { inputTokens: 999_999, messageCount: 5 } });
    expect(result.stats.tokensAfter).toBeLessThan(100);
    expect(result.actions.map((action) => action.type)).toEqual(['usage-ignored']);
  });
});

describe('a store that accepts calls and never answers', () => {
  /** A memory store whose every call hangs once `hang` is set. */
  function createHangingStore(): ContentStore & { hang: boolean } {
    const inner = createMemoryStore();
    const never = new Promise<never>(() => undefined);
    const store = {
      ...inner,
      hang: false,
      kind: inner.kind,
      putIfAbsent: (key: string, content: string | Iterable<string>) =>
        store.hang ? never : inner.putIfAbsent(key, content),
      put: (key: string, content: string) => (store.hang ? never : inner.put(key, content)),
      get: (key: string, range?: { offset?: number; length?: number }) => (store.hang ? never : inner.get(key, range)),
      list: (prefix: string): AsyncIterable<string> =>
        store.hang ? { [Symbol.asyncIterator]: () => ({ next: () => never }) } : inner.list(prefix),
    };
    return store;
  }

  it.each([
    ['the listing of a new manager', false],
    ['the calls of a warm manager about a new result', true],
  ])("ends prepare with the signal's reason at the abort, however long %s would take", async (_, warm) => {
    const store = createHangingStore();
    const history = [TASK, ...toolTurn('a', textOf(4000))];
    const first = createTestManager({ store }).manager;
    await first.prepare(history);
    store.hang = true;
    const controller = new AbortController();
    const manager = warm ? first : createTestManager({ store }).manager;
    vi.useFakeTimers();
    try {
      const pending = expect(
        manager.prepare([...history, ...toolTurn('b', textOf(4000, 'second'))], { signal: controller.signal }),
      ).rejects.toThrow('request cancelled');
      setTimeout(() => controller.abort(new Error('request cancelled')), 10);
      await vi.advanceTimersByTimeAsync(10);
      await pending;
    } finally {
      vi.useRealTimers();
    }
  });
});
