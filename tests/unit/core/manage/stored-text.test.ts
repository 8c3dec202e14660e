/**
 * What the manager stores of a result made of blocks: the text the agent reads back. A result
 * of several text blocks (a sub-agent's report, an MCP tool's answer) is stored as its texts, a
 * blank line between two blocks, so `cat`, a file tool or a search by a line of the output find
 * the output itself; only blocks that are not all text keep their JSON. The seeds' functions
 * keep their own format (the blocks' JSON).
 */
import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../../../src/api/read-offloaded-tool.js';
import { offloadToolResults } from '../../../../src/api/offload.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  batchKey,
  batchReference,
  createCountingStore,
  createTestManager,
  directKey,
  listKeys,
  resultContent,
  TASK,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

const REPORT_LINES = Array.from({ length: 40 }, (_, index) => `finding ${index}: src/module-${index}.ts is covered`);
/** A sub-agent's answer: its report, then a line of its own, in two text blocks. */
const SUB_AGENT_RESULT: ContentBlock[] = [
  { type: 'text', text: REPORT_LINES.join('\n') },
  { type: 'text', text: 'agentId: a1b2 (the sub-agent can be resumed)' },
];
const SUB_AGENT_TEXT = `${REPORT_LINES.join('\n')}\n\nagentId: a1b2 (the sub-agent can be resumed)`;
const SCREENSHOT_RESULT: ContentBlock[] = [
  { type: 'text', text: textOf(400, 'caption') },
  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
];

describe('a result of several text blocks, offloaded by the manager', () => {
  it('is stored as its texts with a blank line between two blocks, on arrival', async () => {
    const { manager, store } = createTestManager({ threshold: 100, ratioThreshold: 1 });
    await manager.prepare([TASK, ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent')]);
    expect(await listKeys(store)).toEqual([directKey('agent', SUB_AGENT_TEXT)]);
    expect(await store.get(directKey('agent', SUB_AGENT_TEXT))).toBe(SUB_AGENT_TEXT);
  });

  it('is stored as its texts when it ages out in a batch', async () => {
    const { manager, store } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.2 });
    const result = await manager.prepare([
      TASK,
      ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent'),
      ...toolTurn('b', 'ok'),
    ]);
    expect(resultContent(result.messages[2])).toBe(batchReference(batchKey('agent', SUB_AGENT_TEXT)));
    expect(await store.get(batchKey('agent', SUB_AGENT_TEXT))).toBe(SUB_AGENT_TEXT);
  });

  it('is found by a line of its output when the read tool searches it', async () => {
    const store = createMemoryStore();
    const { manager } = createTestManager({ store, threshold: 100, ratioThreshold: 1 });
    await manager.prepare([TASK, ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent')]);
    const tool = createReadOffloadedTool({ store, sessionId: 's1' });

    const answer = await tool.execute({
      ref: store.referenceFor(directKey('agent', SUB_AGENT_TEXT)),
      pattern: 'src/module-17\\.ts is covered',
    });

    expect(answer).toContain('18:\tfinding 17: src/module-17.ts is covered');
    expect(answer).toContain('1 matching line');
  });

  it('gets the same reference from a new manager that meets it again, with nothing written', async () => {
    const store = createCountingStore();
    const history: Message[] = [TASK, ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent')];
    const first = await createTestManager({ store, threshold: 100, ratioThreshold: 1 }).manager.prepare(history);
    const writes = store.writes.length;

    const again = await createTestManager({ store, threshold: 100, ratioThreshold: 1 }).manager.prepare(history);

    expect(again.messages).toEqual(first.messages);
    expect(store.writes).toHaveLength(writes);
  });

  it('is found by its name by a warm manager after another process offloaded it', async () => {
    const store = createCountingStore();
    const warm = createTestManager({ store, threshold: 100, ratioThreshold: 1 }).manager;
    await warm.prepare([TASK, ...toolTurn('a', 'ok')]);
    const history: Message[] = [TASK, ...toolTurn('a', 'ok'), ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent')];
    const offloaded = await createTestManager({ store, threshold: 100, ratioThreshold: 1 }).manager.prepare(history);
    const writes = store.writes.length;

    const result = await warm.prepare(history);

    expect(result.messages).toEqual(offloaded.messages);
    expect(store.writes).toHaveLength(writes);
  });

  it('keeps the reference an earlier version gave it when a batch stored its JSON', async () => {
    const { manager, store } = createTestManager({ threshold: 100_000, charThreshold: 100, ratioThreshold: 0.2 });
    const legacyKey = batchKey('agent', JSON.stringify(SUB_AGENT_RESULT));
    await store.putIfAbsent(legacyKey, JSON.stringify(SUB_AGENT_RESULT));

    const result = await manager.prepare([
      TASK,
      ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent'),
      ...toolTurn('b', 'ok'),
    ]);

    expect(resultContent(result.messages[2])).toBe(batchReference(legacyKey));
    expect(await listKeys(store)).toEqual([legacyKey]);
  });
});

describe('a result whose blocks are not all text, offloaded by the manager', () => {
  it('is stored as the JSON of its blocks (an image among them)', async () => {
    const { manager, store } = createTestManager({ threshold: 100, ratioThreshold: 1 });
    await manager.prepare([TASK, ...toolTurn('shot', SCREENSHOT_RESULT, 'Screenshot')]);
    const key = directKey('shot', JSON.stringify(SCREENSHOT_RESULT));
    expect(await store.get(key)).toBe(JSON.stringify(SCREENSHOT_RESULT));
  });
});

describe("the seeds' offloadToolResults", () => {
  it('still stores a result of several text blocks as their JSON', async () => {
    const store = createMemoryStore();
    const messages: Message[] = [TASK, ...toolTurn('agent', SUB_AGENT_RESULT, 'Agent')];
    const result = await offloadToolResults(messages, { store, ratioThreshold: 0, charThreshold: 100 });
    expect(result.files).toHaveLength(1);
    const [key] = await listKeys(store);
    expect(await store.get(key!)).toBe(JSON.stringify(SUB_AGENT_RESULT));
  });
});
