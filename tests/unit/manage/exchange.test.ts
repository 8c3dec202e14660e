/**
 * A compaction inside `prepare` keeps the exchange in flight verbatim after the summary: the
 * assistant's newest tool calls with their results, or the user's latest message. A request
 * never ends with the summary's acknowledgement, and a call is never split from its result.
 */
import { describe, expect, it } from 'vitest';
import { findExchangeStart } from '../../../src/core/manage/exchange.js';
import type { Message } from '../../../src/core/types.js';
import { createTestManager, SYSTEM, TASK, textOf, toolTurn } from './manager-fixtures.js';

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

  it('compacts the exchange too when it is too large to leave room for the summary', async () => {
    const { manager, compact } = createTestManager({
      contextTokenLimit: 3000,
      threshold: 100_000,
      ratioThreshold: 1,
      excludeTools: ['bash'],
    });
    const history = [SYSTEM, TASK, ...LONG_TALK, ...toolTurn('huge', textOf(8000))];
    await manager.prepare(history);
    expect(compact.calls[0]!.messages).toEqual(history);
  });
});
