/**
 * Counting calibrates itself: the provider's figure counts the
 * prefix it covered; each figure teaches the ratio provider/local that scales the rest; before
 * the first figure, the family's margin keeps Claude histories from being under-counted.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CALIBRATION_MARGINS } from '../../../../../src/core/manage/counting/calibration.js';
import type { Message } from '../../../../../src/core/types.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import { countMessageTokens } from '../../../../../src/core/text/tokens.js';
import { createTestManager, quarterCounter, SYSTEM, TASK, textOf, toolTurn } from '../manager-fixtures.js';
import {
  ADDED_LOCAL_TOKENS,
  ADDED_RATIOS,
  buildUsagePairs,
  FIXED_PROMPT_TOKENS,
  learnAsRecorded,
  quantile,
} from './usage-series.js';

/** A user message the quarter counter counts exactly `tokens` (4 of them are its overhead). */
function messageOfTokens(tokens: number, index: number): Message {
  const body = `m${index} `.padEnd(4 * (tokens - 4), 'x');
  return { role: index % 2 === 0 ? 'user' : 'assistant', content: body };
}

describe('before any usage: the family margin', () => {
  it('scales the local count by the Claude margin, so the estimate is not below what Claude counts', async () => {
    const { manager } = createTestManager({ initialCalibrationRatio: DEFAULT_CALIBRATION_MARGINS.anthropic });
    const pairs = buildUsagePairs();
    const history = ADDED_LOCAL_TOKENS.map(messageOfTokens);
    const result = await manager.prepare(history);

    const local = pairs.at(-1)!.localTokens;
    expect(result.stats.calibrationRatio).toBe(1.5);
    expect(result.stats.tokensAfter).toBe(Math.ceil(1.5 * local));
    expect(result.stats.tokensAfter).toBeGreaterThanOrEqual(pairs.at(-1)!.providerInputTokens - FIXED_PROMPT_TOKENS);
  });
});

describe('learning from each lastUsage', () => {
  /** Runs the series as an agent loop: each request adds one message; the next call gets its usage. */
  async function runSeries() {
    const { manager } = createTestManager({ initialCalibrationRatio: DEFAULT_CALIBRATION_MARGINS.anthropic });
    const pairs = buildUsagePairs();
    let history: Message[] = [];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    const ratios: number[] = [];
    for (let index = 0; index < pairs.length; index += 1) {
      history = [...history, messageOfTokens(ADDED_LOCAL_TOKENS[index]!, index)];
      const result = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage });
      ratios.push(result.stats.calibrationRatio);
      history = result.messages;
      lastUsage = { inputTokens: pairs[index]!.providerInputTokens, messageCount: history.length };
    }
    const last = await manager.prepare([...history, messageOfTokens(500, 999)], { lastUsage: lastUsage! });
    return { ratios, last, pairs };
  }

  it('learns from the figures after the first (which only anchors); what a call learns is in force from the next call', async () => {
    const { last, pairs } = await runSeries();
    // the last call learned its figure (the 40th) after deciding with what was in force before it
    const expected = learnAsRecorded(pairs.slice(0, -1), DEFAULT_CALIBRATION_MARGINS.anthropic);
    expect(last.stats.calibrationSamples).toBe(expected.samples);
    expect(last.stats.calibrationRatio).toBe(expected.ratio);
  });

  it('leaves out a figure that moves the ratio little: the next learns over the messages of both', async () => {
    const { last, pairs } = await runSeries();
    // on this series many figures land within 6.7% of the ratio in force
    expect(last.stats.calibrationSamples).toBeLessThan(pairs.length - 2);
    expect(last.stats.calibrationSamples).toBeGreaterThan(0);
  });

  it('ends near the series median, inside its p10-p90, never outside [0.5, 3]', async () => {
    const { ratios, last } = await runSeries();
    expect(last.stats.calibrationRatio).toBeGreaterThanOrEqual(quantile(ADDED_RATIOS, 0.1));
    expect(last.stats.calibrationRatio).toBeLessThanOrEqual(quantile(ADDED_RATIOS, 0.9));
    expect(Math.abs(last.stats.calibrationRatio - quantile(ADDED_RATIOS, 0.5))).toBeLessThan(0.12);
    for (const ratio of ratios) expect(ratio).toBeGreaterThanOrEqual(0.5);
    for (const ratio of ratios) expect(ratio).toBeLessThanOrEqual(3);
  });

  it('counts the prefix the figure covered exactly and the messages after it with the learned ratio', async () => {
    const { last, pairs } = await runSeries();
    expect(last.stats.anchoredMessages).toBe(pairs.length);
    expect(last.stats.tokensAfter).toBe(
      pairs.at(-1)!.providerInputTokens + Math.ceil(last.stats.calibrationRatio * 500),
    );
  });

  it('estimates each next request within 5% of what the provider counts', async () => {
    const { manager } = createTestManager({ initialCalibrationRatio: DEFAULT_CALIBRATION_MARGINS.anthropic });
    const pairs = buildUsagePairs();
    let history: Message[] = [];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    for (let index = 0; index < pairs.length; index += 1) {
      history = [...history, messageOfTokens(ADDED_LOCAL_TOKENS[index]!, index)];
      const result = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage });
      // from the third request on, the ratio has learned; the provider's figure for this request is pairs[index]
      if (index >= 2)
        expect(
          Math.abs(result.stats.tokensAfter - pairs[index]!.providerInputTokens) / pairs[index]!.providerInputTokens,
        ).toBeLessThan(0.05);
      history = result.messages;
      lastUsage = { inputTokens: pairs[index]!.providerInputTokens, messageCount: history.length };
    }
  });
});

describe('learning from the records, whatever process serves each request', () => {
  type Serving = 'the same objects' | 'rebuilt from JSON' | 'a new manager per request' | 'two managers in turn';

  /** The calibration in force at each request of the series, served as `serving` says, the figures passed as `lastUsage`. */
  async function ratiosServed(serving: Serving): Promise<Array<[number, number]>> {
    const store = createMemoryStore();
    const create = () =>
      createTestManager({ store, initialCalibrationRatio: DEFAULT_CALIBRATION_MARGINS.anthropic }).manager;
    const managers = [create(), create()];
    const pairs = buildUsagePairs();
    let history: Message[] = [];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    const ratios: Array<[number, number]> = [];
    for (let index = 0; index < pairs.length; index += 1) {
      history = [...history, messageOfTokens(ADDED_LOCAL_TOKENS[index]!, index)];
      const manager =
        serving === 'a new manager per request'
          ? create()
          : serving === 'two managers in turn'
            ? managers[index % 2]!
            : managers[0]!;
      const given = serving === 'the same objects' ? history : (JSON.parse(JSON.stringify(history)) as Message[]);
      const result = await manager.prepare(given, lastUsage === undefined ? {} : { lastUsage });
      ratios.push([result.stats.calibrationRatio, result.stats.calibrationSamples]);
      history = serving === 'the same objects' ? result.messages : history;
      lastUsage = { inputTokens: pairs[index]!.providerInputTokens, messageCount: history.length };
    }
    return ratios;
  }

  it.each<Serving>(['rebuilt from JSON', 'a new manager per request', 'two managers in turn'])(
    'learns the same ratio at every request given the history %s as given the same objects',
    async (serving) => {
      const expected = await ratiosServed('the same objects');
      const pairs = buildUsagePairs();
      expect(expected.at(-1)![1]).toBe(
        learnAsRecorded(pairs.slice(0, -2), DEFAULT_CALIBRATION_MARGINS.anthropic).samples,
      );
      expect(await ratiosServed(serving)).toEqual(expected);
    },
  );

  it('keeps what it learned when an offload rewrites the messages the last figure counted, in every process alike', async () => {
    /** [ratio, samples] at each request: large results arrive now and then, and batch offloads rewrite older messages. */
    async function served(newPerRequest: boolean): Promise<Array<[number, number]>> {
      const store = createMemoryStore();
      const create = () =>
        createTestManager({
          store,
          threshold: 100_000,
          charThreshold: 100,
          ratioThreshold: 0.5,
          contextTokenLimit: 1_000_000,
        }).manager;
      let manager = create();
      let history: Message[] = [TASK];
      let lastUsage: { inputTokens: number; messageCount: number } | undefined;
      let provider = 3000;
      const ratios: Array<[number, number]> = [];
      for (let turn = 0; turn < 16; turn += 1) {
        const result = turn % 5 === 4 ? textOf(6000, `big${turn}`) : textOf(600, `r${turn}`);
        history = [...history, ...toolTurn(`call_${turn}`, result)];
        if (newPerRequest) manager = create();
        const prepared = await manager.prepare(
          JSON.parse(JSON.stringify(history)) as Message[],
          lastUsage === undefined ? {} : { lastUsage },
        );
        ratios.push([prepared.stats.calibrationRatio, prepared.stats.calibrationSamples]);
        history = prepared.messages;
        const local = history.reduce((total, message) => total + countMessageTokens(message, quarterCounter), 0);
        provider = 3000 + Math.round(1.3 * local);
        lastUsage = { inputTokens: provider, messageCount: history.length };
      }
      return ratios;
    }
    const warm = await served(false);
    // the provider counts 1.3x: most of the way there from the starting 1
    expect(warm.at(-1)![0]).toBeGreaterThan(1.15);
    expect(await served(true)).toEqual(warm);
  });
});

describe('the anchor', () => {
  it('anchors the call it is given to, and no later one: a call without lastUsage is counted locally, as a new manager would count it', async () => {
    const { manager } = createTestManager();
    const first = await manager.prepare([SYSTEM, TASK], { lastUsage: { inputTokens: 20_000, messageCount: 2 } });
    expect(first.stats.anchoredMessages).toBe(2);
    const second = await manager.prepare([...first.messages, { role: 'assistant', content: 'abcd'.repeat(25) }]);
    expect(second.stats.anchoredMessages).toBe(0);
    expect(second.stats.tokensAfter).toBeLessThan(100);
  });

  it('ignores a figure below half of the local count of the messages it covers (usage-ignored), however the rest looks', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 100_000, threshold: 100_000, ratioThreshold: 1 });
    const history = [TASK, ...toolTurn('a', textOf(8000))];
    for (const inputTokens of [0, 1, 5]) {
      const result = await manager.prepare(history, { lastUsage: { inputTokens, messageCount: 3 } });
      expect(result.actions).toEqual([
        {
          type: 'usage-ignored',
          reason: expect.stringContaining(`lastUsage says ${inputTokens} tokens for 3 messages`),
        },
      ]);
      expect(result.stats.anchoredMessages).toBe(0);
    }
  });

  it('believes a figure at half of the local count or more, and any figure far above it (no upper bound)', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 10_000_000, threshold: 100_000, ratioThreshold: 1 });
    const history = [TASK, ...toolTurn('a', textOf(8000))];
    const local = (await manager.prepare(history)).stats.tokensAfter;
    for (const inputTokens of [Math.ceil(local / 2), local * 50]) {
      const result = await manager.prepare(history, { lastUsage: { inputTokens, messageCount: 3 } });
      expect(result.actions).toEqual([]);
      expect(result.stats.anchoredMessages).toBe(3);
    }
  });

  it('takes out what an offload removed from a message the figure covered', async () => {
    const { manager } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.5 });
    const history = [TASK, ...toolTurn('a', 'abcd'.repeat(1000))];
    // the figure covers all three messages; the batch offload then shrinks the third
    const result = await manager.prepare(history, { lastUsage: { inputTokens: 30_000, messageCount: 3 } });
    expect(result.actions.map((action) => action.type)).toEqual(['batch-offload']);
    expect(result.stats.tokensBefore).toBe(30_000);
    expect(result.stats.tokensAfter).toBeLessThan(30_000 - 900);
    expect(result.stats.anchoredMessages).toBe(3);
  });

  it('is dropped after a compaction: the compacted history is counted locally', async () => {
    const { manager } = createTestManager({ contextTokenLimit: 3000 });
    const history: Message[] = [SYSTEM, TASK, { role: 'assistant', content: textOf(12_000) }];
    const result = await manager.prepare(history, { lastUsage: { inputTokens: 3100, messageCount: 3 } });
    expect(result.actions.map((action) => action.type)).toEqual(['compact']);
    expect(result.stats.anchoredMessages).toBe(0);
  });
});
