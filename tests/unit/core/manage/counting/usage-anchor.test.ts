import { describe, expect, it } from 'vitest';
import {
  checkLastUsage,
  learnFromUsage,
  startsWithSame,
} from '../../../../../src/core/manage/counting/usage-anchor.js';
import type { Message } from '../../../../../src/core/types.js';

const history: Message[] = Array.from({ length: 6 }, (_, index) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `message ${index}`,
}));
/** Every message counts 500 local tokens. */
const localTokensOf = (): number => 500;

describe('checkLastUsage', () => {
  it('accepts { inputTokens, messageCount } within the history', () => {
    expect(checkLastUsage({ inputTokens: 1234, messageCount: 6 }, 6)).toEqual({
      usage: { inputTokens: 1234, messageCount: 6 },
    });
  });

  it('accepts an Anthropic usage spread with the count, summing the cache figures', () => {
    const usage = {
      input_tokens: 4,
      cache_read_input_tokens: 14_000,
      cache_creation_input_tokens: 1200,
      output_tokens: 99,
      messageCount: 3,
    };
    expect(checkLastUsage(usage, 6)).toEqual({ usage: { inputTokens: 15_204, messageCount: 3 } });
  });

  it.each([
    [
      'more messages than the history holds',
      { inputTokens: 100, messageCount: 7 },
      /messageCount must be an integer in \[0, 6\].*got 7/,
    ],
    ['a negative count', { inputTokens: 100, messageCount: -1 }, /messageCount/],
    ['a fractional count', { inputTokens: 100, messageCount: 2.5 }, /messageCount/],
    ['negative tokens', { inputTokens: -5, messageCount: 2 }, /inputTokens must be a number >= 0, got -5/],
    ['NaN tokens', { inputTokens: Number.NaN, messageCount: 2 }, /inputTokens must be a number >= 0/],
    [
      'infinite tokens',
      { inputTokens: Number.POSITIVE_INFINITY, messageCount: 2 },
      /inputTokens must be a number >= 0/,
    ],
    [
      'a negative cache figure',
      { input_tokens: 5, cache_read_input_tokens: -1, messageCount: 2 },
      /cache_read_input_tokens must be a number >= 0/,
    ],
    ['no token figure at all', { messageCount: 2 }, /inputTokens/],
    ['not an object', 42, /lastUsage must be an object/],
  ])('refuses %s, saying why', (_, usage, reason) => {
    const checked = checkLastUsage(usage, 6);
    expect(checked).toEqual({ reason: expect.stringMatching(reason) });
  });

  it('refuses figures whose sum is not finite', () => {
    const usage = { input_tokens: Number.MAX_VALUE, cache_read_input_tokens: Number.MAX_VALUE, messageCount: 1 };
    expect(checkLastUsage(usage, 6)).toEqual({ reason: expect.stringContaining('finite') });
  });
});

describe('learnFromUsage', () => {
  const start = { ratio: 1, samples: 0 };

  it('learns the ratio of the messages added since the previous figure (the fixed prompt cancels out)', () => {
    const learned = learnFromUsage(
      history,
      { inputTokens: 10_000 + 2 * 650, messageCount: 4 },
      { inputTokens: 10_000, messageCount: 2 },
      start,
      localTokensOf,
    );
    expect(learned.samples).toBe(1);
    expect(learned.ratio).toBeCloseTo(1 + 0.3 * (1.3 - 1), 10);
  });

  it('learns nothing without a previous figure: the first figure only anchors', () => {
    expect(learnFromUsage(history, { inputTokens: 900, messageCount: 3 }, undefined, start, localTokensOf)).toBe(start);
  });

  it('learns nothing from a figure that covers no more messages than the previous one', () => {
    const learned = learnFromUsage(
      history,
      { inputTokens: 10_400, messageCount: 4 },
      { inputTokens: 10_000, messageCount: 4 },
      start,
      localTokensOf,
    );
    expect(learned).toBe(start);
  });

  it('goes on from the calibration it is given: the same figures give the same ratio in any process', () => {
    const from = { ratio: 1.2, samples: 5 };
    const figure = { inputTokens: 10_000 + 2 * 650, messageCount: 4 };
    const previous = { inputTokens: 10_000, messageCount: 2 };
    const learned = learnFromUsage(history, figure, previous, from, localTokensOf);
    expect(learned).toEqual({ ratio: 1.2 + 0.3 * (1.3 - 1.2), samples: 6 });
    expect(learnFromUsage(structuredClone(history), figure, previous, { ...from }, localTokensOf)).toEqual(learned);
  });
});

describe('startsWithSame', () => {
  it('compares objects, not contents', () => {
    expect(startsWithSame(history, history.slice(0, 3))).toBe(true);
    expect(startsWithSame(history, [{ ...history[0]! }])).toBe(false);
    expect(startsWithSame(history.slice(0, 2), history)).toBe(false);
  });
});
