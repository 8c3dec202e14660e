/**
 * Large tool inputs: a string field of an older tool call's input of at least `threshold`
 * characters goes to the store with the batch that offloads older results, the field keeping
 * the reference; the calls of the last assistant message stay whole; the same decisions in any
 * manager; bad input left as it is.
 */
import { describe, expect, it } from 'vitest';
import { selectCostModel } from '../../../../../src/core/cost/cost-model.js';
import type { ContextOffloadAction } from '../../../../../src/core/manage/types.js';
import type { ContentStore } from '../../../../../src/core/ports.js';
import type { Message, ToolUseBlock } from '../../../../../src/core/types.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import {
  batchReference,
  contentHash,
  createCountingStore,
  createRecordingLogger,
  createTestManager,
  listKeys,
  TASK,
  textOf,
  type TestManagerSettings,
} from '../manager-fixtures.js';

/** The key of an input field offloaded by the manager: `<session>/tool-input-<id>-<hash>.md`. */
function inputKey(id: string, text: string): string {
  return `s1/tool-input-${id}-${contentHash(text)}.md`;
}

/** A call that writes `content` to `path`, and its short result. */
function writeTurn(id: string, path: string, content: string): [Message, Message] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'write_file', input: { path, content } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `Wrote ${path}.` }] },
  ];
}

function inputOf(message: Message | undefined, position = 0): unknown {
  const blocks = (message?.content ?? []) as ToolUseBlock[];
  return blocks.filter((block) => block.type === 'tool_use')[position]?.input;
}

function createAgingManager(settings: TestManagerSettings = {}): ReturnType<typeof createTestManager<Message>> {
  // no cache: each batch goes as its budget passes (the schedule these tests follow the inputs through)
  return createTestManager({
    offloadTiming: 'as-they-age',
    threshold: 1000,
    agedBudgetChars: 4000,
    costModel: selectCostModel({ override: { family: 'none' } }),
    ...settings,
  });
}

const FIRST = textOf(3000, 'alpha');
const SECOND = textOf(2500, 'beta');
const THIRD = textOf(2000, 'gamma');

describe('large tool inputs, as results age', () => {
  it('stay whole while the older results and inputs add up to at most the budget', async () => {
    const { manager } = createAgingManager();
    const history = [TASK, ...writeTurn('w1', 'a.ts', FIRST), ...writeTurn('w2', 'b.ts', textOf(900, 'small'))];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
  });

  it('go with the batch once they pass it: each large field keeps its reference, the newest call stays whole', async () => {
    const { manager, store } = createAgingManager();
    const history = [
      TASK,
      ...writeTurn('w1', 'a.ts', FIRST),
      ...writeTurn('w2', 'b.ts', SECOND),
      ...writeTurn('w3', 'c.ts', THIRD),
    ];
    const result = await manager.prepare(history);

    expect(result.actions).toEqual([
      {
        type: 'input-offload',
        reason: 'aged',
        toolCallIds: ['w1', 'w2'],
        references: [batchReference(inputKey('w1', FIRST)), batchReference(inputKey('w2', SECOND))],
        freedChars:
          FIRST.length +
          SECOND.length -
          batchReference(inputKey('w1', FIRST)).length -
          batchReference(inputKey('w2', SECOND)).length,
      } satisfies ContextOffloadAction,
    ]);
    expect(inputOf(result.messages[1])).toEqual({ path: 'a.ts', content: batchReference(inputKey('w1', FIRST)) });
    expect(await store.get(inputKey('w1', FIRST))).toBe(FIRST);
    expect(await store.get(inputKey('w2', SECOND))).toBe(SECOND);
    expect(result.messages[5]).toBe(history[5]);
    // the given history is not changed
    expect(inputOf(history[1])).toEqual({ path: 'a.ts', content: FIRST });
  });

  it('reach into nested fields (a list of edits), each large string on its own', async () => {
    const { manager, store } = createAgingManager({ agedBudgetChars: 1000 });
    const edits = [
      { old_string: textOf(1200, 'old'), new_string: textOf(1300, 'new') },
      { old_string: 'x', new_string: 'y' },
    ];
    const call: Message = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'e1', name: 'multi_edit', input: { path: 'a.ts', edits } }],
    };
    const history = [
      TASK,
      call,
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'e1', content: 'ok' }] },
      ...writeTurn('w9', 'z.ts', 'short'),
    ];
    const result = await manager.prepare(history);

    expect(inputOf(result.messages[1])).toEqual({
      path: 'a.ts',
      edits: [
        {
          old_string: batchReference(inputKey('e1', edits[0]!.old_string)),
          new_string: batchReference(inputKey('e1', edits[0]!.new_string)),
        },
        { old_string: 'x', new_string: 'y' },
      ],
    });
    expect(await store.get(inputKey('e1', edits[0]!.new_string))).toBe(edits[0]!.new_string);
  });

  it('give a new manager, sent the raw history, the messages the first one sent, writing nothing', async () => {
    const store = createCountingStore();
    const raw = [
      TASK,
      ...writeTurn('w1', 'a.ts', FIRST),
      ...writeTurn('w2', 'b.ts', SECOND),
      ...writeTurn('w3', 'c.ts', THIRD),
    ];
    const first = await createAgingManager({ store }).manager.prepare(raw);
    expect(first.actions.map((action) => action.type)).toEqual(['input-offload']);
    const contentWrites = (): number => store.writes.filter((key) => !key.includes('/.records/')).length;
    const written = contentWrites();

    const again = await createAgingManager({ store }).manager.prepare(structuredClone(raw));
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    const next = [...first.messages, ...writeTurn('w4', 'd.ts', 'tiny')];
    expect(JSON.stringify((await createAgingManager({ store }).manager.prepare(next)).messages)).toBe(
      JSON.stringify(
        (await createAgingManager({ store }).manager.prepare([...raw, ...writeTurn('w4', 'd.ts', 'tiny')])).messages,
      ),
    );
    expect(contentWrites()).toBe(written);
  });
});

describe('large tool inputs, on arrival', () => {
  it('go with the batch the ratio gate lets through', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, charThreshold: 100, ratioThreshold: 0.2 });
    const history = [
      TASK,
      ...writeTurn('w1', 'a.ts', FIRST),
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_use' as const, id: 'r1', name: 'bash', input: { command: 'ls' } }],
      },
      {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: 'r1', content: textOf(900, 'listing') }],
      },
      ...writeTurn('w3', 'c.ts', 'x'),
    ];
    const result = await manager.prepare(history);

    expect(result.actions.map((action) => action.type)).toEqual(['batch-offload', 'input-offload']);
    expect(await store.get(inputKey('w1', FIRST))).toBe(FIRST);
  });
});

describe('large tool inputs left as they are', () => {
  it('an input that is not an object, and every call of a message with an empty input (unparsed OpenAI arguments read as {})', async () => {
    const { manager } = createAgingManager({ agedBudgetChars: 100 });
    const odd: Message = {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'o1', name: 'raw', input: FIRST as never },
        { type: 'tool_use', id: 'o2', name: 'ping', input: {} },
        { type: 'tool_use', id: 'o3', name: 'write_file', input: { path: 'a.ts', content: SECOND } },
      ],
    };
    const results: Message = {
      role: 'user',
      content: ['o1', 'o2', 'o3'].map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' })),
    };
    const history = [TASK, odd, results, ...writeTurn('w9', 'z.ts', 'short')];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    expect(result.messages[1]).toBe(odd);
  });

  it('a field that is a reference already', async () => {
    const reference = batchReference(`s1/tool-input-w0-${contentHash('x')}.md`);
    const { manager } = createAgingManager({ threshold: 10, agedBudgetChars: 10 });
    const history = [TASK, ...writeTurn('w1', 'a.ts', reference), ...writeTurn('w9', 'z.ts', 'short')];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    expect(result.messages[1]).toBe(history[1]);
  });

  it('an input whose offload fails: kept inline, the failure logged, the other inputs and results offloaded', async () => {
    const inner = createMemoryStore();
    const store: ContentStore = {
      ...inner,
      kind: inner.kind,
      putIfAbsent: (key, content) =>
        key.includes('tool-input-w1-') ? Promise.reject(new Error('disk full')) : inner.putIfAbsent(key, content),
    };
    const logger = createRecordingLogger();
    const { manager } = createAgingManager({ store, logger });
    const history = [
      TASK,
      ...writeTurn('w1', 'a.ts', FIRST),
      ...writeTurn('w2', 'b.ts', SECOND),
      ...writeTurn('w3', 'c.ts', THIRD),
    ];
    const result = await manager.prepare(history);

    expect(inputOf(result.messages[1])).toEqual({ path: 'a.ts', content: FIRST });
    expect(inputOf(result.messages[3])).toEqual({ path: 'b.ts', content: batchReference(inputKey('w2', SECOND)) });
    expect(
      logger.warnings.some(
        (warning) => warning.includes('the input of tool call "w1" stays inline') && warning.includes('disk full'),
      ),
    ).toBe(true);
    expect((await listKeys(inner)).filter((key) => key.includes('tool-input-'))).toEqual([inputKey('w2', SECOND)]);
  });
});
