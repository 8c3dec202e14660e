import { describe, expect, it } from 'vitest';
import { selectCostModel } from '../../../../../src/core/cost/cost-model.js';
import { doesBatchPay, expectRequests } from '../../../../../src/core/manage/offload/batch-payoff.js';
import type { ContextAction } from '../../../../../src/core/manage/types.js';
import type { Message } from '../../../../../src/core/types.js';
import { createTestManager, SYSTEM, TASK, textOf, toolTurn, type TestManagerSettings } from '../manager-fixtures.js';

const ANTHROPIC = selectCostModel({ provider: 'anthropic' });
const NONE = selectCostModel({ override: { family: 'none' } });

function createCostManager(settings: TestManagerSettings = {}): ReturnType<typeof createTestManager<Message>> {
  return createTestManager({
    offloadTiming: 'as-they-age',
    threshold: 1000,
    maxInlineResultChars: 20_000,
    agedBudgetChars: 4000,
    costModel: ANTHROPIC,
    ...settings,
  });
}

function typesOf(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => (action.type === 'batch-offload' ? `batch-offload:${action.reason}` : action.type));
}

/** `count` short prose requests: the session's past the forecast reads. */
function proseTurns(count: number): Message[] {
  return Array.from({ length: count }, (_, turn): Message[] => [
    { role: 'assistant', content: `Step ${turn} done.` },
    { role: 'user', content: `Go on with step ${turn + 1}.` },
  ]).flat();
}

describe('batch payoff', () => {
  const base = { requestsSinceRewrite: 10, requestsBeforeCompaction: 100 };

  it('pays when the freed characters, read no more on the requests expected, outweigh the rewritten prefix', () => {
    // 11 x 5000 x 0.1 = 5500 against (9000 - 5000) x 1.15 = 4600
    expect(doesBatchPay({ costModel: ANTHROPIC, freedChars: 5000, rewrittenChars: 9000, ...base })).toBe(true);
  });

  it('does not pay when the prefix it rewrites costs more than it saves', () => {
    // 11 x 5000 x 0.1 = 5500 against (10000 - 5000) x 1.15 = 5750
    expect(doesBatchPay({ costModel: ANTHROPIC, freedChars: 5000, rewrittenChars: 10_000, ...base })).toBe(false);
  });

  it('expects no more requests than fit before the next compaction', () => {
    expect(expectRequests({ requestsSinceRewrite: 10, requestsBeforeCompaction: 2 })).toBe(2);
    expect(expectRequests({ requestsSinceRewrite: 3, requestsBeforeCompaction: 50 })).toBe(3);
    const nearTrigger = { requestsSinceRewrite: 10, requestsBeforeCompaction: 1 };
    expect(doesBatchPay({ costModel: ANTHROPIC, freedChars: 5000, rewrittenChars: 9000, ...nearTrigger })).toBe(false);
  });

  it('always pays without a cache: rewriting costs nothing', () => {
    expect(
      doesBatchPay({
        costModel: NONE,
        freedChars: 1,
        rewrittenChars: 1_000_000,
        requestsSinceRewrite: 0,
        requestsBeforeCompaction: 0,
      }),
    ).toBe(true);
  });
});

describe('as results age, with prompt caching', () => {
  it('defers a batch over its budget that does not pay for the prefix it rewrites', async () => {
    const { manager } = createCostManager();
    // 4,100 chars of aged results before a newest result of 15,000: the rewrite would write it all again
    const history = [
      SYSTEM,
      TASK,
      ...toolTurn('a', textOf(1500, 'one')),
      ...toolTurn('c', textOf(2600, 'two')),
      ...toolTurn('new', textOf(15_000, 'now')),
    ];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    result.messages.forEach((message, index) => expect(message).toBe(history[index]));
  });

  it('sends a batch that pays: much freed, little rewritten, a session long enough to expect more', async () => {
    const { manager } = createCostManager();
    const history = [SYSTEM, TASK, ...proseTurns(6), ...toolTurn('a', textOf(6000, 'log')), ...toolTurn('new', 'ok')];
    const result = await manager.prepare(history);
    expect(typesOf(result.actions)).toEqual(['batch-offload:aged']);
  });

  it('sends the same history whole when the session has just begun (nothing to forecast more requests from)', async () => {
    const { manager } = createCostManager();
    const history = [SYSTEM, TASK, ...toolTurn('a', textOf(6000, 'log')), ...toolTurn('b', textOf(2000, 'next'))];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
  });

  it('offloads them regardless of cost when the window demands it (the history at the trigger)', async () => {
    const { manager, compact } = createCostManager({ contextTokenLimit: 6000 });
    const history = [
      SYSTEM,
      TASK,
      ...toolTurn('a', textOf(1500, 'one')),
      ...toolTurn('c', textOf(2600, 'two')),
      ...toolTurn('new', textOf(19_000, 'now')),
    ];
    const result = await manager.prepare(history);
    expect(typesOf(result.actions)).toEqual(['batch-offload:over-trigger']);
    expect(compact.calls).toHaveLength(0);
  });

  it('lets aged results wait for the pass at the trigger: one prefix change, not a batch then a compaction', async () => {
    const { manager } = createCostManager({ contextTokenLimit: 8000 });
    let history: Message[] = [SYSTEM, TASK];
    const changes: Array<{ turn: number; actions: string[] }> = [];
    for (let turn = 0; turn < 10; turn += 1) {
      // a small result, then the model's long reasoning: a batch would free little and rewrite much
      history = [
        ...history,
        ...toolTurn(`t${turn}`, textOf(1200, `out${turn}`)),
        { role: 'assistant', content: textOf(3000, `reasoning${turn}`) },
        { role: 'user', content: 'Go on.' },
      ];
      const result = await manager.prepare(history);
      if (result.actions.length > 0) changes.push({ turn, actions: typesOf(result.actions) });
      history = result.messages;
    }
    // the budget (4,000 chars) is passed at the fourth request, yet the first change is the window's
    expect(changes[0]?.turn).toBeGreaterThan(3);
    expect(changes[0]?.actions[0]).toBe('batch-offload:over-trigger');
    expect(changes.flatMap((change) => change.actions)).not.toContain('batch-offload:aged');
  });

  it('without a cache, sends the batch as soon as the aged results pass their budget', async () => {
    const { manager } = createCostManager({ costModel: NONE, contextTokenLimit: 8000 });
    let history: Message[] = [SYSTEM, TASK];
    let first: number | undefined;
    for (let turn = 0; turn < 6 && first === undefined; turn += 1) {
      history = [...history, ...toolTurn(`t${turn}`, textOf(2500, `out${turn}`))];
      const result = await manager.prepare(history);
      if (typesOf(result.actions).includes('batch-offload:aged')) first = turn;
      history = result.messages;
    }
    // aged: the results before the newest; 2 x 2,500 pass 4,000 at the third request
    expect(first).toBe(2);
  });
});
