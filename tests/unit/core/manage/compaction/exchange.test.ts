/**
 * A compaction inside `prepare` keeps the exchange in flight verbatim after the summary: the
 * assistant's newest tool calls with their results, or the user's latest message. A request
 * never ends with the summary's acknowledgement, and a call is never split from its result.
 */
import { describe, expect, it } from 'vitest';
import { findExchangeStart } from '../../../../../src/core/manage/compaction/exchange.js';
import type { Message } from '../../../../../src/core/types.js';
import { buildPreview } from '../../../../../src/core/offload/offload-reference.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import {
  createTestManager,
  directKey,
  directReference,
  resultContent,
  SYSTEM,
  TASK,
  textOf,
  toolTurn,
} from '../manager-fixtures.js';

const LONG_TALK: Message[] = [
  { role: 'assistant', content: textOf(6000, 'analysis') },
  { role: 'user', content: textOf(6000, 'details') },
];

describe('the exchange in flight', () => {
  it('is the assistant message with the calls the last message answers, and that message', () => {
    const history = [SYSTEM, TASK, ...LONG_TALK, ...toolTurn('a', 'ok')];
    expect(findExchangeStart(history, 1)).toBe(4);
  });

  it('is the latest user message when it answers no call', () => {
    const history = [
      SYSTEM,
      TASK,
      ...LONG_TALK,
      { role: 'assistant' as const, content: 'Done.' },
      { role: 'user' as const, content: 'Next?' },
    ];
    expect(findExchangeStart(history, 1)).toBe(5);
  });

  it('starts at the earliest assistant message whose calls the last message answers', () => {
    const history: Message[] = [
      TASK,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'bash', input: {} }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'y', name: 'bash', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'x', content: 'a' },
          { type: 'tool_result', tool_use_id: 'y', content: 'b' },
        ],
      },
    ];
    expect(findExchangeStart(history, 0)).toBe(1);
  });

  it("is nothing when the history ends with the assistant's own message", () => {
    const history = [SYSTEM, TASK, ...LONG_TALK, { role: 'assistant' as const, content: 'Done.' }];
    expect(findExchangeStart(history, 1)).toBe(history.length);
  });
});

describe('compaction inside prepare', () => {
  it('keeps the newest tool call and its result verbatim after the summary, its acknowledgement left out', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 3000, threshold: 100_000, ratioThreshold: 1 });
    const exchange = toolTurn('latest', 'the file compiles');
    const result = await manager.prepare([SYSTEM, TASK, ...LONG_TALK, ...exchange]);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toEqual([SYSTEM, TASK, ...LONG_TALK]);
    expect(result.messages.slice(-2)).toEqual(exchange);
    expect(result.messages.at(-3)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('[Conversation compressed]'),
    });
  });

  it("keeps the user's latest message after the summary and its acknowledgement, so the request ends with it", async () => {
    const { manager, compact } = createTestManager({
      contextTokenLimit: 3000,
      threshold: 100_000,
      ratioThreshold: 1,
      resumeMessage: 'Continue.',
    });
    const latest: Message = { role: 'user', content: 'Now write the tests.' };
    const result = await manager.prepare([SYSTEM, TASK, ...LONG_TALK, { role: 'assistant', content: 'Done.' }, latest]);

    expect(compact.calls[0]!.call.resumeMessage).toBeUndefined();
    expect(result.messages.at(-1)).toBe(latest);
    expect(result.messages.at(-2)).toMatchObject({ role: 'assistant' });
  });

  it('keeps the exchange after the summary, whole, when a result nothing may offload makes it too large', async () => {
    const { manager, compact } = createTestManager({
      contextTokenLimit: 3000,
      threshold: 100_000,
      ratioThreshold: 1,
      excludeTools: ['bash'],
    });
    const exchange = toolTurn('huge', textOf(8000));
    const result = await manager.prepare([SYSTEM, TASK, ...LONG_TALK, ...exchange]);

    expect(compact.calls[0]!.messages).toEqual([SYSTEM, TASK, ...LONG_TALK]);
    expect(result.messages.slice(-2)).toEqual(exchange);
  });

  it('compacts nothing when nothing comes before the exchange in flight', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 3000, threshold: 100_000 });
    const history: Message[] = [SYSTEM, { role: 'user', content: textOf(20_000, 'paste') }];
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(0);
    expect(result.messages).toEqual(history);
    expect(result.actions).toEqual([{ type: 'compact-skipped', reason: 'nothing-to-compact', retryInCalls: 0 }]);
  });
});

/** A stored reference's path, as the agent's own file tool would be given it. */
const STORED_PATH = 'memory://default/s1/tool-result-ref-0123456789abcdef.md';
/** What the agent's file tool returns for it: 300 numbered lines, 12,000 characters. */
const READ_BACK = Array.from(
  { length: 300 },
  (_, index) => `${String(index + 1).padStart(6)}\t${textOf(32, `option${index % 10}`)}`,
).join('\n');
/** The read-back in flight: the agent's call opening a stored reference, and its result. */
const READ_BACK_TURN = toolTurn('read', READ_BACK, 'read_file').map((message) =>
  message.role === 'assistant'
    ? {
        ...message,
        content: [{ type: 'tool_use' as const, id: 'read', name: 'read_file', input: { path: STORED_PATH } }],
      }
    : message,
) as [Message, Message];

describe('a read-back in flight too large to follow a summary', () => {
  for (const timing of ['as-they-age', 'on-arrival'] as const) {
    it(`follows the summary cut to its reference, how to read it in pages, its head and tail (${timing})`, async () => {
      const { manager, store, compact } = createTestManager({
        contextTokenLimit: 3000,
        threshold: 1000,
        ratioThreshold: 1,
        offloadTiming: timing,
      });
      const result = await manager.prepare([SYSTEM, TASK, ...LONG_TALK, ...READ_BACK_TURN]);

      expect(compact.calls[0]!.messages).toEqual([SYSTEM, TASK, ...LONG_TALK]);
      const key = directKey('read', READ_BACK);
      expect(await store.get(key)).toBe(READ_BACK);
      expect(result.messages.at(-2)).toBe(READ_BACK_TURN[0]);
      expect(result.messages.at(-1)?.role).toBe('user');
      expect(resultContent(result.messages.at(-1))).toBe(
        `${directReference(key)}\nRead in pages (300 lines, about 250 lines a page): pass an offset and a limit, or search it.` +
          buildPreview(READ_BACK, { headChars: 100, tailChars: 200 }),
      );
    });
  }

  for (const timing of ['as-they-age', 'on-arrival'] as const) {
    it(`is sent alike by the manager that cut it and by a new one at the next request (${timing})`, async () => {
      const store = createMemoryStore();
      const settings = { store, contextTokenLimit: 3000, threshold: 1000, ratioThreshold: 1, offloadTiming: timing };
      const warm = createTestManager(settings).manager;
      const history: Message[] = [SYSTEM, TASK, ...LONG_TALK, ...READ_BACK_TURN];
      await warm.prepare(history);
      const next: Message[] = [
        ...history,
        { role: 'assistant', content: 'Read it.' },
        { role: 'user', content: 'Go on.' },
      ];

      const fromWarm = await warm.prepare(next);
      const fromNew = await createTestManager(settings).manager.prepare(next);

      expect(JSON.stringify(fromNew.messages)).toBe(JSON.stringify(fromWarm.messages));
      expect(JSON.stringify(fromWarm.messages)).toContain('Read in pages (300 lines');
    });
  }
});
