import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../../../../src/api/read-offloaded-tool.js';
import { selectCostModel } from '../../../../../src/core/cost/cost-model.js';
import { extractReference } from '../../../../../src/core/read/read-offloaded.js';
import type { ContextOffloadAction } from '../../../../../src/core/manage/types.js';
import type { Message } from '../../../../../src/core/types.js';
import {
  contentHash,
  createCountingStore,
  createTestManager,
  SYSTEM,
  TASK,
  type TestManagerSettings,
} from '../manager-fixtures.js';

/** 30,000 characters of numbered lines: over the 20,000 a result may take whole. */
const LONG_ANSWER = Array.from({ length: 600 }, (_, line) => `line ${line + 1}: ${'analysis '.repeat(4)}`).join('\n');

function createTextManager(settings: TestManagerSettings = {}): ReturnType<typeof createTestManager<Message>> {
  return createTestManager({
    offloadTiming: 'as-they-age',
    maxInlineResultChars: 20_000,
    costModel: selectCostModel({ provider: 'anthropic' }),
    ...settings,
  });
}

const answered: Message[] = [SYSTEM, TASK, { role: 'assistant', content: [{ type: 'text', text: LONG_ANSWER }] }];
const movedOn: Message[] = [
  ...answered,
  { role: 'user', content: 'Now apply the fix.' },
  { role: 'assistant', content: 'Applying it.' },
  { role: 'user', content: 'Done?' },
];

describe('large assistant text ages like a result', () => {
  it('stays whole while it is the latest assistant turn', async () => {
    const { manager } = createTextManager();
    const history = [...answered, { role: 'user', content: 'Now apply the fix.' } as Message];
    const result = await manager.prepare(history);
    expect(result.actions).toEqual([]);
    expect(result.messages[2]).toBe(history[2]);
  });

  it('goes to the store once the model has moved on, and reads back exactly', async () => {
    const { manager, store } = createTextManager();
    const result = await manager.prepare(movedOn);

    const action = result.actions[0] as ContextOffloadAction;
    expect(action).toMatchObject({ type: 'batch-offload', kind: 'assistant-text', reason: 'aged', toolCallIds: [] });
    const key = `s1/assistant-text-${contentHash(LONG_ANSWER)}.md`;
    expect(await store.get(key)).toBe(LONG_ANSWER);
    const reference = (result.messages[2]?.content as Array<{ text: string }>)[0]!.text;
    expect(reference).toBe(action.references[0]);
    expect(reference.length).toBeLessThan(LONG_ANSWER.length / 5);
    const read = await createReadOffloadedTool({ store }).execute({
      ref: extractReference(reference),
      offset: 512,
      limit: 1,
    });
    expect(read).toContain(`line 512: ${'analysis '.repeat(4)}`);
    // what follows it is as it was
    result.messages.slice(3).forEach((message, index) => expect(message).toBe(movedOn[index + 3]));
  });

  it('gets the same reference from a new manager meeting the raw message again, with nothing written', async () => {
    const store = createCountingStore();
    const first = await createTextManager({ store }).manager.prepare(movedOn);
    const writes = store.writes.filter((key) => !key.includes('/.records/')).length;
    const again = await createTextManager({ store }).manager.prepare([
      ...movedOn,
      { role: 'assistant', content: 'Yes.' },
      { role: 'user', content: 'Thanks.' },
    ]);
    expect(JSON.stringify(again.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
    expect(store.writes.filter((key) => !key.includes('/.records/'))).toHaveLength(writes);
  });
});
