/**
 * Decisions already taken never change: an offloaded result stays offloaded, a
 * reference never changes, so the prompt prefix is byte-stable between calls; the same holds
 * when a framework sends its original messages again, or new objects with the same content.
 */
import { describe, expect, it } from 'vitest';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import {
  createCountingStore,
  createTestManager,
  directKey,
  directReference,
  resultContent,
  SYSTEM,
  TASK,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

describe('the prompt prefix stays byte-stable between calls', () => {
  it('returns the first N messages of the previous result as the very same objects when a turn is appended', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const first = await manager.prepare([SYSTEM, TASK, ...toolTurn('a', textOf(4000)), ...toolTurn('b', textOf(60))]);
    const next = [...first.messages, ...toolTurn('c', textOf(5000))];
    const second = await manager.prepare(next);

    expect(second.actions.map((action) => action.type)).toEqual(['direct-offload']);
    first.messages.forEach((message, index) => expect(second.messages[index]).toBe(message));
    expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
  });

  it('keeps the prefix over ten turns of an agent loop (no compaction)', async () => {
    const { manager } = createTestManager({ threshold: 1000, ratioThreshold: 1 });
    let history: Message[] = [SYSTEM, TASK];
    let previous: Message[] = [];
    for (let turn = 0; turn < 10; turn += 1) {
      history = [...history, ...toolTurn(`t${turn}`, textOf(turn % 2 === 0 ? 3000 : 200, `out${turn}`))];
      const result = await manager.prepare(history);
      previous.forEach((message, index) => expect(result.messages[index]).toBe(message));
      previous = result.messages;
      history = result.messages;
    }
  });
});

describe('an offloaded result stays offloaded', () => {
  it('gives the same reference object when the original history is sent again, and writes nothing', async () => {
    const store = createCountingStore();
    const { manager } = createTestManager({ store, threshold: 1000 });
    const original = [SYSTEM, TASK, ...toolTurn('a', textOf(4000))];
    const first = await manager.prepare(original);
    const writes = store.writes.length;
    const again = await manager.prepare([...original, ...toolTurn('b', 'ok')]);

    expect(again.actions).toEqual([]);
    expect(again.messages[3]).toBe(first.messages[3]);
    expect(store.writes).toHaveLength(writes);
  });

  it('gives the same reference to a new object with the same result (a framework rebuilding its messages)', async () => {
    const store = createCountingStore();
    const { manager } = createTestManager({ store, threshold: 1000 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(4000))]);
    const rebuilt = structuredClone([TASK, ...toolTurn('a', textOf(4000))]);
    const writes = store.writes.length;
    const again = await manager.prepare(rebuilt);

    expect(again.actions).toEqual([]);
    expect(resultContent(again.messages[2])).toBe(resultContent(first.messages[2]));
    expect(store.writes).toHaveLength(writes);
  });

  it('gives the same reference to a rebuilt lone text block, a lone surrogate in it included', async () => {
    const store = createCountingStore();
    const { manager } = createTestManager({ store, threshold: 1000 });
    const result = (): ContentBlock[] => [{ type: 'text', text: `${textOf(4000)} \ud800 tail` }];
    const first = await manager.prepare([TASK, ...toolTurn('a', result())]);
    expect(first.actions.map((action) => action.type)).toEqual(['direct-offload']);
    const writes = store.writes.length;
    const again = await manager.prepare([TASK, ...toolTurn('a', result())]);

    expect(again.actions).toEqual([]);
    expect(resultContent(again.messages[2])).toBe(resultContent(first.messages[2]));
    expect(store.writes).toHaveLength(writes);
  });

  it('keeps a batch-offloaded result offloaded even when the gate would not pass on the history sent again', async () => {
    const { manager } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.3 });
    const original = [TASK, ...toolTurn('a', textOf(600))];
    const first = await manager.prepare(original);
    expect(first.actions.map((action) => action.type)).toEqual(['batch-offload']);
    // so much talk is appended that the gate no longer passes: the decision stands all the same
    const again = await manager.prepare([...structuredClone(original), { role: 'assistant', content: textOf(20_000) }]);
    expect(resultContent(again.messages[2])).toBe(resultContent(first.messages[2]));
  });

  it('offloads a new result under a reused call id to a name of its own, the first one untouched', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, ratioThreshold: 1 });
    const first = await manager.prepare([TASK, ...toolTurn('call_0', textOf(3000, 'first'))]);
    const second = await manager.prepare([...first.messages, ...toolTurn('call_0', textOf(3000, 'second'))]);

    expect(await store.get(directKey('call_0', textOf(3000, 'first')))).toBe(textOf(3000, 'first'));
    expect(await store.get(directKey('call_0', textOf(3000, 'second')))).toBe(textOf(3000, 'second'));
    expect(resultContent(second.messages[2])).toBe(resultContent(first.messages[2]));
    expect(resultContent(second.messages[4])).toBe(directReference(directKey('call_0', textOf(3000, 'second'))));
  });
});

describe('compaction is not redone', () => {
  it('puts the compacted history back when the caller sends the history it replaced again (plus new turns)', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 3000 });
    const original: Message[] = [SYSTEM, TASK, { role: 'assistant', content: textOf(12_000) }];
    const first = await manager.prepare(original);
    expect(compact.calls).toHaveLength(1);
    const again = await manager.prepare([...original, { role: 'user', content: 'and now?' }]);

    expect(compact.calls).toHaveLength(1);
    first.messages.forEach((message, index) => expect(again.messages[index]).toBe(message));
    expect(again.messages.at(-1)).toEqual({ role: 'user', content: 'and now?' });
  });

  it('prepares the compacted history as it is when the caller continues from it', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 3000 });
    const first = await manager.prepare([SYSTEM, TASK, { role: 'assistant', content: textOf(12_000) }]);
    const again = await manager.prepare([...first.messages, { role: 'user', content: 'next' }]);

    expect(compact.calls).toHaveLength(1);
    expect(again.actions).toEqual([]);
    first.messages.forEach((message, index) => expect(again.messages[index]).toBe(message));
  });
});
