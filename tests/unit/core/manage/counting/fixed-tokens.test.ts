/**
 * `fixedTokens`: the system prompt and tools a request spends outside its history. The manager
 * counts them in (calibrated) when no usage figure does, fits a compaction to half of what they
 * leave of the trigger, and sends a history unchanged when they alone reach the trigger, saying
 * so once with the smallest window that works.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../../../src/core/errors.js';
import { findSmallestWorkingWindow } from '../../../../../src/core/manage/counting/fixed-overhead.js';
import { compactThresholdTokens } from '../../../../../src/core/text/tokens.js';
import type { Message } from '../../../../../src/core/types.js';
import { createRecordingLogger, createTestManager, listKeys, TASK, textOf, toolTurn } from '../manager-fixtures.js';

/** 2,000 characters of talk: 500 tokens with the quarter counter, and a few for the message. */
const TALK: Message = { role: 'assistant', content: textOf(2000) };

describe('fixedTokens', () => {
  it('adds the fixed part to the estimate, so a history under the trigger alone is compacted with it', async () => {
    // trigger 1,840; the history is about 520 tokens, the fixed part 1,400
    const without = createTestManager({ contextTokenLimit: 2000 });
    const withFixed = createTestManager({ contextTokenLimit: 2000 });
    const history = [TASK, TALK, { role: 'user' as const, content: 'Go on.' }];

    const plain = await without.manager.prepare(history);
    const fixed = await withFixed.manager.prepare(history, { fixedTokens: 1400 });

    expect(without.compact.calls).toHaveLength(0);
    expect(withFixed.compact.calls).toHaveLength(1);
    expect(fixed.stats.tokensBefore).toBe(plain.stats.tokensBefore + 1400);
  });

  it('scales the fixed part by the calibration, as the history is', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 200_000, initialCalibrationRatio: 1.5 });
    const history = [TASK, TALK];
    const plain = await manager.prepare(history);
    const fixed = await manager.prepare(history, { fixedTokens: 1000 });
    expect(fixed.stats.tokensAfter).toBe(plain.stats.tokensAfter + 1500);
  });

  it('fits the compacted history to half of what the fixed part leaves of the trigger', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const result = await manager.prepare([TASK, { role: 'assistant', content: textOf(8000) }], { fixedTokens: 840 });

    expect(compact.calls).toHaveLength(1);
    expect(result.actions).toEqual([expect.objectContaining({ type: 'compact', targetTokens: (1840 - 840) / 2 })]);
  });

  it('is not added again when a usage figure, which counts it already, anchors the history', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 200_000 });
    const history = [TASK, TALK];
    const result = await manager.prepare(history, {
      fixedTokens: 5000,
      lastUsage: { inputTokens: 6000, messageCount: 2 },
    });
    expect(result.stats.anchoredMessages).toBe(2);
    expect(result.stats.tokensAfter).toBe(6000);
  });

  it('rejects a value that is not a finite number >= 0, naming it', async () => {
    const { manager } = createTestManager();
    await expect(manager.prepare([TASK], { fixedTokens: -1 })).rejects.toThrow(InvalidOptionError);
    await expect(manager.prepare([TASK], { fixedTokens: '12' as never })).rejects.toThrow(
      'fixedTokens must be a finite number >= 0 (the tokens of the system prompt and tools), got "12"',
    );
  });
});

describe('fixedTokens at or over the trigger', () => {
  const history = [TASK, ...toolTurn('a', textOf(9000)), { role: 'assistant' as const, content: textOf(4000) }];

  it('sends the history unchanged: nothing offloaded, nothing compacted', async () => {
    const { manager, compact, store } = createTestManager({ contextTokenLimit: 2000, threshold: 100 });
    const result = await manager.prepare(history, { fixedTokens: 1840 });

    expect(result.messages).toEqual(history);
    result.messages.forEach((message, index) => expect(message).toBe(history[index]));
    expect(compact.calls).toHaveLength(0);
    expect(await listKeys(store)).toEqual([]);
  });

  it('keeps the decisions taken before: a result offloaded earlier stays its reference', async () => {
    const { manager, store } = createTestManager({ contextTokenLimit: 200_000, threshold: 100 });
    const first = await manager.prepare(history);
    const later = createTestManager({ contextTokenLimit: 200_000, threshold: 100, store });
    const result = await later.manager.prepare(history, { fixedTokens: 184_000 });

    expect(result.actions.map((action) => action.type)).toEqual(['overhead-over-trigger']);
    expect(JSON.stringify(first.messages)).toContain('[Tool result offloaded to file: ');
    expect(result.messages).toEqual(first.messages);
  });

  it('says so once per manager, in the log and the actions, with the smallest window that works', async () => {
    const logger = createRecordingLogger();
    const { manager } = createTestManager({ contextTokenLimit: 20_000, logger, initialCalibrationRatio: 1.5 });

    const first = await manager.prepare(history, { fixedTokens: 27_000 });
    const second = await manager.prepare(history, { fixedTokens: 27_000 });

    expect(first.actions).toEqual([
      { type: 'overhead-over-trigger', overheadTokens: 40_500, triggerTokens: 18_400, smallestWindow: 89_000 },
    ]);
    expect(second.actions).toEqual([]);
    expect(second.messages).toEqual(history);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('The smallest window that works with them is 89000 tokens');
  });

  it('decides alike in every new manager over the same records: a pure function of content and options', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const { manager } = createTestManager({ contextTokenLimit: 20_000, initialCalibrationRatio: 1.5 });
        const result = await manager.prepare(history, { fixedTokens: 13_000 });
        return result.actions.map((action) => action.type);
      }),
    );
    expect(new Set(outcomes.map((types) => types.join()))).toEqual(new Set(['overhead-over-trigger']));
  });
});

describe('findSmallestWorkingWindow', () => {
  it('is the window whose trigger is twice the overhead, rounded up to a thousand', () => {
    expect(findSmallestWorkingWindow(40_500, 0.92)).toBe(89_000);
    expect(compactThresholdTokens(89_000, 0.92)).toBeGreaterThanOrEqual(81_000);
    expect(compactThresholdTokens(88_000, 0.92)).toBeLessThan(81_000);
  });

  it('is at least a thousand', () => {
    expect(findSmallestWorkingWindow(1, 0.92)).toBe(1000);
  });
});
