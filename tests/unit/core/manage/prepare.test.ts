/**
 * `prepare`, step by step: direct offload of new large
 * results, batch offload when the ratio gate passes, compaction only when still over the
 * trigger; what `actions` and `stats` report; hooks; bad input.
 */
import { describe, expect, it } from 'vitest';
import { InvalidMessageError, InvalidOptionError } from '../../../../src/core/errors.js';
import type { ContextAction, ContextOffloadAction } from '../../../../src/core/manage/types.js';
import type { Message } from '../../../../src/core/types.js';
import { createContextManagerWith } from '../../../../src/core/manage/context-manager.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import { sha256Hashing } from '../../../../src/infrastructure/sha256-hashing.js';
import { deepFreeze } from '../../../fixtures/offload-fixtures.js';
import {
  batchKey,
  batchReference,
  buildResolvedOptions,
  directKey,
  directReference,
  createRecordingCompact,
  createRecordingLogger,
  createTestManager,
  listKeys,
  quarterCounter,
  resultContent,
  SYSTEM,
  TASK,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

function typesOf(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => action.type);
}

describe('prepare: (1) direct offload of new results', () => {
  it('offloads a new result of at least `threshold` characters to <sessionId>/<id>-<content hash>.md and puts its reference in place', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, ratioThreshold: 1 });
    const output = textOf(1000);
    const result = await manager.prepare([SYSTEM, TASK, ...toolTurn('call_1', output)]);

    const key = directKey('call_1', output);
    expect(typesOf(result.actions)).toEqual(['direct-offload']);
    expect(await store.get(key)).toBe(output);
    expect(resultContent(result.messages[3])).toBe(directReference(key));
    const action = result.actions[0] as ContextOffloadAction;
    expect(action).toEqual({
      type: 'direct-offload',
      toolCallIds: ['call_1'],
      references: [directReference(key)],
      freedChars: 1000 - directReference(key).length,
    });
  });

  it('leaves a result of threshold - 1 characters inline and writes nothing', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, ratioThreshold: 1 });
    const history = [SYSTEM, TASK, ...toolTurn('call_1', textOf(999))];
    const result = await manager.prepare(history);

    expect(result.actions).toEqual([]);
    expect(result.messages.every((message, index) => message === history[index])).toBe(true);
    expect(await listKeys(store)).toEqual([]);
  });

  it('never offloads results of excluded tools nor of the read tool', async () => {
    const { manager, store } = createTestManager({ threshold: 100, ratioThreshold: 1, excludeTools: ['grep'] });
    const result = await manager.prepare([
      TASK,
      ...toolTurn('g', textOf(5000), 'grep'),
      ...toolTurn('r', textOf(5000), 'read_offloaded'),
    ]);

    expect(result.actions).toEqual([]);
    expect(await listKeys(store)).toEqual([]);
  });

  it('offloads each large result of a message with parallel tool calls', async () => {
    const { manager, store } = createTestManager({ threshold: 100, ratioThreshold: 1 });
    const message: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'p1', content: textOf(300, 'one') },
        { type: 'tool_result', tool_use_id: 'p2', content: 'short' },
        { type: 'tool_result', tool_use_id: 'p3', content: textOf(300, 'three') },
      ],
    };
    const result = await manager.prepare([TASK, message]);

    expect((result.actions[0] as ContextOffloadAction).toolCallIds).toEqual(['p1', 'p3']);
    expect(await listKeys(store)).toEqual(
      [directKey('p1', textOf(300, 'one')), directKey('p3', textOf(300, 'three'))].sort(),
    );
  });

  it('writes a result that is one text block as its text, which the read tool pages by line', async () => {
    const { manager, store } = createTestManager({ threshold: 100, ratioThreshold: 1 });
    const output = 'line 1\nline 2\n'.repeat(20);
    const result = await manager.prepare([TASK, ...toolTurn('t', [{ type: 'text', text: output }])]);
    expect(await store.get(directKey('t', output))).toBe(output);
    expect(resultContent(result.messages[2])).toBe(directReference(directKey('t', output)));
  });

  it('never mutates the history it is given (a deep-frozen one works)', async () => {
    const { manager } = createTestManager({
      threshold: 1000,
      charThreshold: 100,
      ratioThreshold: 0.1,
      contextTokenLimit: 3000,
    });
    const history = deepFreeze([
      SYSTEM,
      TASK,
      ...toolTurn('call_1', textOf(3000)),
      ...toolTurn('call_2', textOf(500)),
      { role: 'assistant' as const, content: textOf(12_000) },
    ]);
    const snapshot = structuredClone(history);
    const result = await manager.prepare(history);
    expect(result.actions.map((action) => action.type)).toEqual(['direct-offload', 'batch-offload', 'compact']);
    expect(history).toEqual(snapshot);
  });
});

describe('prepare: (2) batch offload when the ratio gate passes', () => {
  it('offloads older results over charThreshold to <sessionId>/tool-result-<id>-<content hash>.md when they reach ratioThreshold', async () => {
    const { manager, store } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.2 });
    const result = await manager.prepare([TASK, ...toolTurn('a', textOf(400)), ...toolTurn('b', textOf(50))]);

    const key = batchKey('a', textOf(400));
    expect(result.actions).toEqual([
      {
        type: 'batch-offload',
        reason: 'ratio-gate',
        toolCallIds: ['a'],
        references: [batchReference(key)],
        freedChars: 400 - batchReference(key).length,
      },
    ]);
    expect(await store.get(key)).toBe(textOf(400));
    expect(resultContent(result.messages[4])).toBe(textOf(50));
  });

  it('does nothing while offloadable characters stay below the ratio', async () => {
    const { manager, store } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.9 });
    const result = await manager.prepare([{ role: 'user', content: textOf(2000) }, ...toolTurn('a', textOf(400))]);

    expect(result.actions).toEqual([]);
    expect(await listKeys(store)).toEqual([]);
  });

  it('runs after the direct offload of the same call', async () => {
    const { manager } = createTestManager({ threshold: 1000, charThreshold: 100, ratioThreshold: 0.1 });
    const result = await manager.prepare([TASK, ...toolTurn('small', textOf(300)), ...toolTurn('large', textOf(3000))]);
    expect(typesOf(result.actions)).toEqual(['direct-offload', 'batch-offload']);
    expect(result.actions.map((action) => (action as ContextOffloadAction).toolCallIds)).toEqual([
      ['large'],
      ['small'],
    ]);
  });
});

describe('prepare: (3) compaction only when still over the trigger', () => {
  it('does not compact below the trigger', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 10_000 });
    const result = await manager.prepare([SYSTEM, TASK, { role: 'assistant', content: textOf(2000) }]);
    expect(compact.calls).toHaveLength(0);
    expect(result.stats.tokensAfter).toBeLessThan(result.stats.triggerTokens);
  });

  it('offloads without the gate first, and does not compact when that brings the history under the trigger', async () => {
    // 3 results of 1,500 chars (375 tokens each) among 6,000 chars of talk: the gate (0.5) does not pass
    const { manager, compact } = createTestManager({
      threshold: 100_000,
      charThreshold: 1000,
      ratioThreshold: 0.5,
      contextTokenLimit: 3000,
      compactThresholdRatio: 0.9,
    });
    const history = [
      TASK,
      { role: 'assistant' as const, content: textOf(6000) },
      ...toolTurn('a', textOf(1500)),
      ...toolTurn('b', textOf(1500)),
      ...toolTurn('c', textOf(1500)),
    ];
    const result = await manager.prepare(history);

    expect(result.actions).toEqual([
      expect.objectContaining({ type: 'batch-offload', reason: 'over-trigger', toolCallIds: ['a', 'b', 'c'] }),
    ]);
    expect(compact.calls).toHaveLength(0);
    expect(result.stats.tokensAfter).toBeLessThan(result.stats.triggerTokens);
  });

  it('compacts when offloading is not enough, and returns the compacted history', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const history = [SYSTEM, TASK, { role: 'assistant' as const, content: textOf(8000) }];
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toEqual(history);
    expect(result.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant']);
    expect(result.messages[0]).toBe(SYSTEM);
    expect(result.actions).toEqual([
      expect.objectContaining({
        type: 'compact',
        tokensBefore: result.stats.tokensBefore,
        summarizer: 'custom',
        targetTokens: Math.floor(1840 / 2),
      }),
    ]);
  });

  it('reports the archive reference and the budgets the compaction ran with', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const result = await manager.prepare([SYSTEM, TASK, { role: 'assistant', content: textOf(8000) }]);
    const { summaryMaxWords, maxRestoreFiles, maxRestoreTokensPerFile, maxRestoreTokensTotal } = compact.calls[0]!.call;
    expect(result.actions[0]).toMatchObject({
      archiveReference: 'memory://default/s1/compact-2026-01-01T00-00-00Z-1.json',
      budgets: { summaryMaxWords, maxRestoreFiles, maxRestoreTokensPerFile, maxRestoreTokensTotal },
    });
  });

  it('fits the compacted context to half of the trigger: budgets shrink in a small window', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 8000, initialCalibrationRatio: 1.5 });
    const result = await manager.prepare([SYSTEM, TASK, { role: 'assistant', content: textOf(40_000) }]);

    const call = compact.calls[0]!.call;
    expect(call.summaryMaxWords).toBeLessThan(1200);
    expect(call.maxRestoreTokensTotal).toBeLessThan(50_000);
    expect(result.stats.tokensAfter).toBeLessThanOrEqual(result.stats.triggerTokens / 2);
  });

  it("passes the call's abort signal to the compaction", async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const controller = new AbortController();
    await manager.prepare([SYSTEM, TASK, { role: 'assistant', content: textOf(8000) }], { signal: controller.signal });
    expect(compact.calls[0]!.call.signal).toBe(controller.signal);
  });

  it("rejects with the signal's reason when it is aborted before the call", async () => {
    const { manager } = createTestManager();
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(manager.prepare([TASK], { signal: controller.signal })).rejects.toThrow('stop now');
  });

  it("rejects with the signal's reason when the compaction is aborted, and does not count it as a failure", async () => {
    const controller = new AbortController();
    const compact = createRecordingCompact(() => {
      controller.abort(new Error('user aborted'));
      throw new Error('user aborted');
    });
    const { manager } = createTestManager({ contextTokenLimit: 2000, compact });
    const history = [SYSTEM, TASK, { role: 'assistant' as const, content: textOf(8000) }];
    await expect(manager.prepare(history, { signal: controller.signal })).rejects.toThrow('user aborted');
    // three aborted calls would have opened the breaker; the next call still tries
    for (let call = 0; call < 3; call += 1)
      await manager.prepare(history, { signal: controller.signal }).catch(() => undefined);
    const result = await manager.prepare(history);
    expect(result.actions.some((action) => action.type === 'compact-skipped' && action.reason === 'backing-off')).toBe(
      false,
    );
  });
});

describe('prepare: an empty history', () => {
  it('returns it as it is, with nothing done and 0 tokens', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 1 });
    const result = await manager.prepare([]);
    expect(result).toMatchObject({
      messages: [],
      actions: [],
      stats: { messagesIn: 0, messagesOut: 0, tokensBefore: 0, tokensAfter: 0 },
    });
    expect(compact.calls).toHaveLength(0);
  });
});

describe('prepare: stats', () => {
  it('counts messages in and out and the trigger', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 10_000, compactThresholdRatio: 0.5 });
    const result = await manager.prepare([SYSTEM, TASK]);
    expect(result.stats).toMatchObject({
      messagesIn: 2,
      messagesOut: 2,
      triggerTokens: 5000,
      calibrationRatio: 1,
      calibrationSamples: 0,
      anchoredMessages: 0,
    });
  });

  it('estimates tokens as ratio x the local count, message overheads included', async () => {
    const { manager } = createTestManager({ initialCalibrationRatio: 1.5 });
    // quarter counter: "abcd" x 100 = 100 tokens + 4 for the message
    const result = await manager.prepare([{ role: 'user', content: 'abcd'.repeat(100) }]);
    expect(result.stats.tokensBefore).toBe(Math.ceil(1.5 * 104));
    expect(result.stats.tokensAfter).toBe(Math.ceil(1.5 * 104));
  });

  it('reports fewer tokens after an offload than before it', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const result = await manager.prepare([TASK, ...toolTurn('a', textOf(20_000))]);
    expect(result.stats.tokensAfter).toBeLessThan(result.stats.tokensBefore);
    expect(result.stats.tokensBefore).toBeGreaterThan(5000);
  });

  it('far below the trigger, tokenizes neither the offloaded result nor its reference until the figures are read', async () => {
    const counted: string[] = [];
    const manager = createContextManagerWith(buildResolvedOptions({ threshold: 1000 }), {
      store: createMemoryStore(),
      tokenCounter: { count: (text) => (counted.push(text), quarterCounter.count(text)) },
      tokenizerId: 'quarter',
      countsAtMostUtf8Bytes: true,
      hashing: sha256Hashing,
      logger: createRecordingLogger(),
      compact: createRecordingCompact().compact,
    });
    const raw = textOf(20_000);
    const result = await manager.prepare([TASK, ...toolTurn('a', raw)]);
    const reference = resultContent(result.messages[2]) as string;
    expect(reference).toMatch(/^\[Tool result offloaded to file: /);
    expect(counted).not.toContain(raw);
    expect(counted).not.toContain(reference);

    expect(result.stats.tokensAfter).toBeGreaterThan(0);
    expect(counted).toContain(reference);
    expect(counted).not.toContain(raw);
  });
});

describe('prepare: hooks', () => {
  it('calls onOffload with each offload action and onCompact with the action and the compaction result', async () => {
    const offloads: ContextAction[] = [];
    const compactions: Array<[ContextAction, unknown]> = [];
    const { manager } = createTestManager({
      threshold: 1000,
      contextTokenLimit: 3000,
      hooks: {
        onOffload: (action) => void offloads.push(action),
        onCompact: (action, result) => void compactions.push([action, result.summary]),
      },
    });
    const result = await manager.prepare([
      SYSTEM,
      TASK,
      ...toolTurn('a', textOf(5000)),
      { role: 'assistant', content: textOf(12_000) },
    ]);

    expect(offloads).toEqual(result.actions.filter((action) => action.type === 'direct-offload'));
    expect(compactions).toEqual([
      [result.actions.find((action) => action.type === 'compact'), 'Summary of the work so far.'],
    ]);
  });

  it('logs a hook that throws and keeps the step it reported', async () => {
    const logger = createRecordingLogger();
    const { manager, store } = createTestManager({
      threshold: 1000,
      logger,
      hooks: {
        onOffload: () => {
          throw new Error('hook bug');
        },
      },
    });
    const result = await manager.prepare([TASK, ...toolTurn('a', textOf(5000))]);
    expect(typesOf(result.actions)).toEqual(['direct-offload']);
    expect(await store.get(directKey('a', textOf(5000)))).toBe(textOf(5000));
    expect(logger.warnings).toEqual([expect.stringContaining('the onOffload hook threw (hook bug)')]);
  });

  it('awaits a hook that returns a promise', async () => {
    let settled = false;
    const { manager } = createTestManager({
      threshold: 1000,
      hooks: {
        onOffload: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          settled = true;
        },
      },
    });
    await manager.prepare([TASK, ...toolTurn('a', textOf(5000))]);
    expect(settled).toBe(true);
  });
});

describe('prepare: bad input', () => {
  it('rejects a history that is not an array', async () => {
    const { manager } = createTestManager();
    await expect(manager.prepare('nope' as unknown as Message[])).rejects.toThrow(InvalidMessageError);
  });

  it('rejects a malformed message naming its index and field', async () => {
    const { manager } = createTestManager();
    const history = [
      TASK,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 42, content: 'x' }] },
    ] as unknown as Message[];
    await expect(manager.prepare(history)).rejects.toThrow(/messages\[1\]/);
  });

  it('rejects prepare options that are not an object, and a signal that is not an AbortSignal', async () => {
    const { manager } = createTestManager();
    await expect(manager.prepare([TASK], 5 as never)).rejects.toThrow(InvalidOptionError);
    await expect(manager.prepare([TASK], { signal: 'soon' as never })).rejects.toThrow(/signal must be an AbortSignal/);
  });

  it('keeps working after a call rejected', async () => {
    const { manager } = createTestManager();
    await manager.prepare([null as unknown as Message]).catch(() => undefined);
    await expect(manager.prepare([TASK])).resolves.toMatchObject({ messages: [TASK] });
  });
});

describe('prepare: one call at a time', () => {
  it("runs concurrent calls one after the other, the second seeing the first one's decisions", async () => {
    const { manager, store } = createTestManager({ threshold: 1000 });
    const history = [TASK, ...toolTurn('a', textOf(5000))];
    const [first, second] = await Promise.all([manager.prepare(history), manager.prepare(history)]);
    expect(typesOf(first.actions)).toEqual(['direct-offload']);
    expect(second.actions).toEqual([]);
    expect(second.messages[2]).toBe(first.messages[2]);
    expect(await listKeys(store)).toEqual([directKey('a', textOf(5000))]);
  });
});
