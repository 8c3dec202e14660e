/**
 * `prepare` with `offloadTiming: 'as-they-age'` (the public default): the newest results are
 * sent whole, one too large for the window is cut to its reference, head and tail; older
 * results go to the store in batches when those still inline pass their budget; over the
 * trigger, older results go first, and the newest are kept through a compaction while they fit.
 * Every decision follows from the history's content, so another manager makes the same.
 */
import { describe, expect, it } from 'vitest';
import { selectCostModel } from '../../../../../src/core/cost/cost-model.js';
import type { ContextAction, ContextOffloadAction } from '../../../../../src/core/manage/types.js';
import { buildPreview } from '../../../../../src/core/offload/offload-reference.js';
import type { ContentBlock, Message } from '../../../../../src/core/types.js';
import {
  batchKey,
  batchReference,
  createCountingStore,
  createTestManager,
  directKey,
  directReference,
  listKeys,
  resultContent,
  SYSTEM,
  TASK,
  textOf,
  toolTurn,
  type TestManagerSettings,
} from '../manager-fixtures.js';

const CUT = { headChars: 100, tailChars: 200 };

/** A manager aging its results: new ones whole up to 20,000 chars, older ones inline up to 4,000 chars of results of 1,000 or more. */
function createAgingManager(settings: TestManagerSettings = {}): ReturnType<typeof createTestManager<Message>> {
  return createTestManager({
    offloadTiming: 'as-they-age',
    threshold: 1000,
    maxInlineResultChars: 20_000,
    agedBudgetChars: 4000,
    cut: CUT,
    ...settings,
  });
}

function typesOf(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => (action.type === 'batch-offload' ? `batch-offload:${action.reason}` : action.type));
}

/** Whether `messages` starts with `prefix`, byte for byte. */
function startsWithBytes(messages: readonly Message[], prefix: readonly Message[]): boolean {
  return JSON.stringify(messages.slice(0, prefix.length)) === JSON.stringify(prefix);
}

describe('as results age: the newest results', () => {
  it('are sent whole, however large, up to maxInlineResultChars, and no content is written', async () => {
    const { manager, store } = createAgingManager();
    const output = textOf(20_000, 'build');
    const result = await manager.prepare([SYSTEM, TASK, ...toolTurn('a', output)]);

    expect(result.actions).toEqual([]);
    expect(resultContent(result.messages[3])).toBe(output);
    expect((await listKeys(store)).filter((key) => !key.startsWith('s1/.records/'))).toEqual([]);
  });

  it('are sent whole when a screenshot makes them long: base64 data is not text over maxInlineResultChars', async () => {
    const { manager } = createAgingManager();
    const screenshot: ContentBlock[] = [
      { type: 'text', text: 'Captured a screenshot' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.repeat(10_000) } },
    ];
    const history = [SYSTEM, TASK, ...toolTurn('a', screenshot)];
    const result = await manager.prepare(history);

    expect(result.actions).toEqual([]);
    expect(result.messages[3]).toBe(history[3]);
  });

  it('are cut when over maxInlineResultChars: the reference to the whole, then its head and tail (never a bare reference)', async () => {
    const { manager, store } = createAgingManager();
    const output = `${textOf(10_000, 'start')}${textOf(10_001, 'end')}`;
    const result = await manager.prepare([SYSTEM, TASK, ...toolTurn('a', output)]);

    const key = directKey('a', output);
    expect(await store.get(key)).toBe(output);
    const cut = resultContent(result.messages[3]) as string;
    expect(cut).toBe(`${directReference(key)}${buildPreview(output, CUT)}`);
    expect(cut.startsWith(`${directReference(key)}\nPreview (first 100 and last 200 of 20001 chars):\nstart`)).toBe(
      true,
    );
    expect(result.actions).toEqual([
      { type: 'direct-offload', toolCallIds: ['a'], references: [cut], freedChars: output.length - cut.length },
    ]);
  });

  it('are never cut when they read offloaded content back, or come from an excluded tool', async () => {
    const { manager } = createAgingManager({ excludeTools: ['search'] });
    const history: Message[] = [
      SYSTEM,
      TASK,
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'r',
            name: 'bash',
            input: { command: 'cat memory://default/s1/a-0123456789abcdef.md' },
          },
          { type: 'tool_use', id: 's', name: 'search', input: { query: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'r', content: textOf(30_000, 'stored') },
          { type: 'tool_result', tool_use_id: 's', content: textOf(30_000, 'found') },
        ],
      },
    ];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    expect(result.messages[3]).toBe(history[3]);
  });
});

describe('as results age: older results', () => {
  it('stay inline while those of at least threshold characters add up to at most agedBudgetChars', async () => {
    const { manager } = createAgingManager();
    // 3,900 chars of older results of 1,000 or more, and 5 x 900 below the threshold
    const older = [
      ...toolTurn('a', textOf(1900)),
      ...toolTurn('b', textOf(2000)),
      ...[1, 2, 3, 4, 5].flatMap((n) => toolTurn(`s${n}`, textOf(900))),
    ];
    const history = [SYSTEM, TASK, ...older, ...toolTurn('new', textOf(15_000))];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    result.messages.forEach((message, index) => expect(message).toBe(history[index]));
  });

  it('go all at once, the newest staying whole, when they pass the budget (no cache: no prefix to weigh)', async () => {
    const { manager, store } = createAgingManager({ costModel: selectCostModel({ override: { family: 'none' } }) });
    const history = [
      SYSTEM,
      TASK,
      ...toolTurn('a', textOf(1500, 'one')),
      ...toolTurn('b', textOf(900, 'small')),
      ...toolTurn('c', textOf(2600, 'two')),
      ...toolTurn('new', textOf(15_000, 'now')),
    ];
    const result = await manager.prepare(history);

    expect(typesOf(result.actions)).toEqual(['batch-offload:aged']);
    expect((result.actions[0] as ContextOffloadAction).toolCallIds).toEqual(['a', 'c']);
    expect(resultContent(result.messages[3])).toBe(batchReference(batchKey('a', textOf(1500, 'one'))));
    expect(await store.get(batchKey('c', textOf(2600, 'two')))).toBe(textOf(2600, 'two'));
    // below the threshold, and the newest result, stay as they are
    expect(result.messages[5]).toBe(history[5]);
    expect(result.messages[9]).toBe(history[9]);
  });

  it('keep the prefix between batches: each request starts with the previous one, but at a batch', async () => {
    const { manager } = createAgingManager();
    let history: Message[] = [SYSTEM, TASK];
    let previous: Message[] = [];
    const batches: number[] = [];
    for (let turn = 0; turn < 12; turn += 1) {
      history = [...history, ...toolTurn(`t${turn}`, textOf(turn % 3 === 0 ? 2500 : 700, `out${turn}`))];
      const result = await manager.prepare(history);
      if (result.actions.length > 0) batches.push(turn);
      else expect(startsWithBytes(result.messages, previous)).toBe(true);
      previous = result.messages;
      history = result.messages;
    }
    // results of 2,500 chars every third turn: the budget of 4,000 passes every second one of them
    expect(batches).toEqual([4, 10]);
  });

  it('go when read back too: the model has seen them', async () => {
    const { manager } = createAgingManager({ agedBudgetChars: 1000 });
    const readBack: Message[] = [
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'r',
            name: 'bash',
            input: { command: 'cat memory://default/s1/a-0123456789abcdef.md' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r', content: textOf(3000, 'stored') }] },
    ];
    const first = await manager.prepare([TASK, ...readBack]);
    expect(first.actions).toEqual([]);
    const second = await manager.prepare([...first.messages, ...toolTurn('next', 'ok')]);
    expect(typesOf(second.actions)).toEqual(['batch-offload:aged']);
    expect((second.actions[0] as ContextOffloadAction).toolCallIds).toEqual(['r']);
  });

  it('of an excluded tool never go', async () => {
    const { manager } = createAgingManager({ excludeTools: ['search'], agedBudgetChars: 1000 });
    const history = [TASK, ...toolTurn('s', textOf(5000), 'search'), ...toolTurn('next', 'ok')];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
  });
});

describe('as results age: a result that printed an error', () => {
  /** A failing test run's log: its error line sits in the middle, where neither a head nor a tail would keep it. */
  const failingLog = `${textOf(1500, 'pass')}\nAssertionError: expected 2336 to equal 2337\n${textOf(1500, 'pass')}\nexit code: 1`;

  it('keeps its error line after its reference when it ages out, marked or not', async () => {
    const { manager } = createAgingManager({ agedBudgetChars: 1000 });
    const timedOut = `Command timed out after 120 s\n${textOf(2000, 'log')}`;
    const marked: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'm', name: 'bash', input: { command: 'npm test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'm', is_error: true, content: timedOut }] },
    ];
    const history = [SYSTEM, TASK, ...toolTurn('u', failingLog), ...marked, ...toolTurn('next', 'ok')];
    const result = await manager.prepare(history);

    expect(typesOf(result.actions)).toEqual(['batch-offload:aged']);
    expect(resultContent(result.messages[3])).toBe(
      `${batchReference(batchKey('u', failingLog))}\nError line: AssertionError: expected 2336 to equal 2337`,
    );
    // marked with no error line: its first line says what there is
    expect(resultContent(result.messages[5])).toBe(
      `${batchReference(batchKey('m', timedOut))}\nError line: Command timed out after 120 s`,
    );
  });

  it('is a bare reference when nothing failed, or when its tool fetches content (a read holding an error line is not its own)', async () => {
    const { manager } = createAgingManager({ agedBudgetChars: 1000 });
    const history = [
      SYSTEM,
      TASK,
      ...toolTurn('r', failingLog, 'read_file'),
      ...toolTurn('ok', textOf(2000, 'fine')),
      ...toolTurn('next', 'ok'),
    ];
    const result = await manager.prepare(history);

    expect(resultContent(result.messages[3])).toBe(batchReference(batchKey('r', failingLog)));
    expect(resultContent(result.messages[5])).toBe(batchReference(batchKey('ok', textOf(2000, 'fine'))));
  });

  it('gets the same reference from a new manager sent the raw history', async () => {
    const store = createCountingStore();
    const history = [SYSTEM, TASK, ...toolTurn('u', failingLog), ...toolTurn('next', 'ok')];
    const first = await createAgingManager({ store, agedBudgetChars: 1000 }).manager.prepare(history);
    const again = await createAgingManager({ store, agedBudgetChars: 1000 }).manager.prepare(history);
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    expect(JSON.stringify(first.messages)).toContain('Error line: AssertionError');
  });
});

describe('as results age: the same decisions in any manager', () => {
  it('gives a new manager, sent the raw history, the messages the first one sent, writing nothing', async () => {
    const store = createCountingStore();
    const { manager } = createAgingManager({ store });
    const raw: Message[] = [SYSTEM, TASK];
    let prepared: Message[] = [SYSTEM, TASK];
    for (let turn = 0; turn < 8; turn += 1) {
      const turnMessages = toolTurn(`t${turn}`, textOf(turn === 5 ? 25_000 : 1800, `out${turn}`));
      raw.push(...turnMessages);
      prepared = (await manager.prepare([...prepared, ...turnMessages])).messages;
    }
    expect(JSON.stringify(prepared)).toContain('Preview (first 100');
    expect(JSON.stringify(prepared)).toContain('[Content offloaded to: ');
    const contentWrites = (): number => store.writes.filter((key) => !key.includes('/.records/')).length;
    const written = contentWrites();

    expect(JSON.stringify((await createAgingManager({ store }).manager.prepare(raw)).messages)).toBe(
      JSON.stringify(prepared),
    );
    expect(JSON.stringify((await createAgingManager({ store }).manager.prepare(prepared)).messages)).toBe(
      JSON.stringify(prepared),
    );
    expect(contentWrites()).toBe(written);
  });
});

describe('as results age: over the trigger', () => {
  it('offloads every older result, the budget aside, before compacting', async () => {
    // window 3,000 tokens, trigger 2,760 (quarter counter: 11,040 chars); older results add up to 3,600 chars, under the budget
    const { manager, compact } = createAgingManager({ contextTokenLimit: 3000, agedBudgetChars: 5000 });
    const history = [
      TASK,
      { role: 'assistant' as const, content: textOf(6000) },
      ...toolTurn('a', textOf(1800)),
      ...toolTurn('b', textOf(1800)),
      ...toolTurn('c', textOf(1500)),
    ];
    const result = await manager.prepare(history);

    expect(typesOf(result.actions)).toEqual(['batch-offload:over-trigger']);
    expect((result.actions[0] as ContextOffloadAction).toolCallIds).toEqual(['a', 'b']);
    expect(compact.calls).toHaveLength(0);
  });

  it('leaves the older results under minAgedResultChars inline: the prompt is rewritten from the first larger one only', async () => {
    // charThreshold 100, minAgedResultChars 1,000: the 600-char result stands first, before the larger ones
    const { manager, compact } = createAgingManager({ contextTokenLimit: 3000, agedBudgetChars: 5000 });
    const history = [
      TASK,
      { role: 'assistant' as const, content: textOf(5600) },
      ...toolTurn('small', textOf(600)),
      ...toolTurn('a', textOf(1800)),
      ...toolTurn('b', textOf(1800)),
      ...toolTurn('c', textOf(1500)),
    ];
    const result = await manager.prepare(history);

    expect(typesOf(result.actions)).toEqual(['batch-offload:over-trigger']);
    expect((result.actions[0] as ContextOffloadAction).toolCallIds).toEqual(['a', 'b']);
    expect(compact.calls).toHaveLength(0);
    expect(startsWithBytes(result.messages, history.slice(0, 5))).toBe(true);
  });

  it('keeps the newest results whole through a compaction while they take at most three quarters of the trigger', async () => {
    // trigger 2,760 tokens: a newest result of 1,800 tokens (65%) follows the summary verbatim
    const { manager, compact } = createAgingManager({ contextTokenLimit: 3000, maxInlineResultChars: 8000 });
    const output = textOf(7200, 'wanted');
    const history = [TASK, { role: 'assistant' as const, content: textOf(6000) }, ...toolTurn('a', output)];
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toEqual(history.slice(0, 2));
    expect(resultContent(result.messages.at(-1))).toBe(output);
    const compaction = result.actions.find((action) => action.type === 'compact');
    // the target grows by what the exchange takes beyond half of it
    expect(compaction).toMatchObject({ type: 'compact' });
    expect((compaction as { targetTokens: number }).targetTokens).toBeGreaterThan(1380);
  });

  it('cuts the newest results too large to follow a summary, then compacts what came before', async () => {
    // trigger 2,760 tokens: a newest result of 2,375 tokens (86%) is cut; 3,000 tokens of talk before it are still over
    const { manager, compact } = createAgingManager({ contextTokenLimit: 3000, maxInlineResultChars: 20_000 });
    const output = textOf(9500, 'huge');
    const history = [TASK, { role: 'assistant' as const, content: textOf(12_000) }, ...toolTurn('a', output)];
    const result = await manager.prepare(history);

    expect(typesOf(result.actions)).toEqual(['direct-offload', 'compact']);
    expect(compact.calls[0]!.messages).toEqual(history.slice(0, 2));
    expect(resultContent(result.messages.at(-1))).toBe(
      `${directReference(directKey('a', output))}${buildPreview(output, CUT)}`,
    );
  });
});

describe('as results age: offloadOutput (per-tool hooks)', () => {
  it('returns an output up to maxInlineResultChars as it is, and cuts a larger one as prepare would', async () => {
    const { manager } = createAgingManager();
    const small = textOf(20_000, 'fits');
    expect(await manager.offloadOutput(small, { toolName: 'bash', toolCallId: 'a' })).toBe(small);
    const large = textOf(20_001, 'cut');
    const text = await manager.offloadOutput(large, { toolName: 'bash', toolCallId: 'b' });
    expect(text).toBe(`${directReference(directKey('b', large))}${buildPreview(large, CUT)}`);
    // prepare, meeting the raw output later, gives it the same text
    const result = await createAgingManager().manager.prepare([TASK, ...toolTurn('b', large)]);
    expect(resultContent(result.messages[2])).toBe(text);
  });
});
