/**
 * A warm manager whose session was served elsewhere meanwhile (another process, another proxy
 * on the same store) applies what was decided there before deciding anything itself: it sends
 * what a manager that served every request would, and it lists the folder for it only when the
 * history says so (more than one assistant turn after what it sent last).
 */
import { describe, expect, it } from 'vitest';
import { selectCostModel } from '../../../../src/core/cost/cost-model.js';
import type { Message } from '../../../../src/core/types.js';
import { createTestManager, createTracingStore, TASK, textOf, toolTurn } from './manager-fixtures.js';

const AGING = {
  offloadTiming: 'as-they-age' as const,
  threshold: 500,
  charThreshold: 500,
  maxInlineResultChars: 50_000,
  agedBudgetChars: 1500,
  // no cache: each batch goes as its budget passes, so request 2 is a batch
  costModel: selectCostModel({ override: { family: 'none' } }),
};

const rebuilt = (history: readonly Message[]): Message[] => JSON.parse(JSON.stringify(history)) as Message[];

// request 1 ages `a` (2,000 chars, over the budget) into a batch; request 2 finds `b` (1,000) alone, under it
const first = [TASK, ...toolTurn('a', textOf(2000, 'alpha'))];
const second = [...first, ...toolTurn('b', textOf(1000, 'beta'))];
const third = [...second, ...toolTurn('c', textOf(300, 'gamma'))];

describe('a warm manager meeting a history served elsewhere', () => {
  it('sends what one manager serving every request sends', async () => {
    const alone = createTestManager({ ...AGING }).manager;
    await alone.prepare(rebuilt(first));
    await alone.prepare(rebuilt(second));
    const expected = await alone.prepare(rebuilt(third));

    const store = createTracingStore();
    const warm = createTestManager({ ...AGING, store }).manager;
    const other = createTestManager({ ...AGING, store }).manager;
    await warm.prepare(rebuilt(first));
    const elsewhere = await other.prepare(rebuilt(second));
    const result = await warm.prepare(rebuilt(third));

    expect(elsewhere.actions.map((action) => action.type)).toEqual(['batch-offload']);
    expect(JSON.stringify(result.messages)).toBe(JSON.stringify(expected.messages));
    expect(result.actions).toEqual(expected.actions);
  });

  it('lists the folder again for it, and not when it served the request before', async () => {
    const store = createTracingStore();
    const warm = createTestManager({ ...AGING, store }).manager;
    const other = createTestManager({ ...AGING, store }).manager;
    await warm.prepare(rebuilt(first));
    await other.prepare(rebuilt(second));

    store.calls.length = 0;
    await warm.prepare(rebuilt(third));
    expect(store.calls.filter((call) => call.operation === 'list')).toHaveLength(1);

    store.calls.length = 0;
    const next: Message[] = [
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Thanks, that is all.' },
    ];
    const fourth = await warm.prepare(rebuilt([...third, ...next]));
    expect(fourth.actions).toEqual([]);
    expect(store.calls.filter((call) => call.operation === 'list')).toEqual([]);
  });
});
