/**
 * The manager tokenizes a message only when a decision needs its exact count: a history far
 * under the trigger, anchored on the provider's figure, is decided on upper bounds alone.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../../src/core/types.js';
import { createTestManager, TASK, textOf, toolTurn } from '../manager-fixtures.js';

describe('counting only what a decision needs', () => {
  it('does not tokenize a new result when the provider s figure and the result s bytes stay under the trigger', async () => {
    const counted: string[] = [];
    const { manager } = createTestManager({
      threshold: 100_000,
      contextTokenLimit: 200_000,
      offloadTiming: 'as-they-age',
      onCount: (text) => counted.push(text),
    });
    const history: Message[] = [TASK, ...toolTurn('a', textOf(2000, 'first'))];
    await manager.prepare(history);
    counted.length = 0;

    const next = [...history, ...toolTurn('b', textOf(8000, 'second'))];
    const result = await manager.prepare(next, { lastUsage: { inputTokens: 1500, messageCount: history.length } });

    expect(result.actions).toEqual([]);
    expect(counted.map((text) => text.slice(0, 40))).toEqual([]);
  });

  it('tokenizes them when the bound reaches the trigger, and decides as on exact counts', async () => {
    const counted: string[] = [];
    // a window of 4,000 tokens: 20,000 bytes of results reach its trigger as bytes, not as tokens
    const { manager } = createTestManager({
      threshold: 100_000,
      contextTokenLimit: 4000,
      offloadTiming: 'as-they-age',
      onCount: (text) => counted.push(text),
    });
    const history: Message[] = [TASK, ...toolTurn('a', textOf(200, 'first'))];
    await manager.prepare(history);
    counted.length = 0;

    const result = await manager.prepare([...history, ...toolTurn('b', textOf(20_000, 'second'))], {
      lastUsage: { inputTokens: 120, messageCount: history.length },
    });

    expect(counted.some((text) => text.includes('second'))).toBe(true);
    expect(result.stats.tokensAfter).toBeGreaterThan(0);
  });
});
