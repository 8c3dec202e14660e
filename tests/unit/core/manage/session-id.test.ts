/**
 * Sessions named by content: `sessionId: 'auto'` derives the session from the system prompt and
 * the first user message, the same in every process; an explicit id still wins.
 */
import { describe, expect, it } from 'vitest';
import { deriveSessionId } from '../../../../src/api/session-id.js';
import { InvalidOptionError } from '../../../../src/core/errors.js';
import type { Message } from '../../../../src/core/types.js';
import { createTestManager, listKeys, SYSTEM, TASK, textOf, toolTurn } from './manager-fixtures.js';

const CHAT: Message[] = [SYSTEM, TASK, { role: 'assistant', content: 'Looking.' }, { role: 'user', content: 'Go on.' }];

describe('deriveSessionId', () => {
  it('is auto-<32 hex>, the same for the same system prompt and first user message, whatever follows', () => {
    const session = deriveSessionId(CHAT);
    expect(session).toMatch(/^auto-[0-9a-f]{32}$/);
    expect(deriveSessionId(JSON.parse(JSON.stringify(CHAT)) as Message[])).toBe(session);
    expect(deriveSessionId(CHAT.slice(0, 2))).toBe(session);
  });

  it('differs for another first user message, another system prompt, or another salt', () => {
    const session = deriveSessionId(CHAT);
    expect(deriveSessionId([SYSTEM, { role: 'user', content: 'hi' }])).not.toBe(session);
    expect(deriveSessionId([{ role: 'system', content: 'Other.' }, TASK])).not.toBe(session);
    expect(deriveSessionId(CHAT, { salt: 'credential-hash-1' })).not.toBe(
      deriveSessionId(CHAT, { salt: 'credential-hash-2' }),
    );
    expect(deriveSessionId([TASK], { system: 'You are a careful coding agent.' })).not.toBe(deriveSessionId([TASK]));
  });

  it('leaves out prompt-cache markers, so a client that moves them keeps its session', () => {
    const marker = { cache_control: { type: 'ephemeral' } };
    const marked = [
      { role: 'user', content: [{ type: 'text', text: TASK.content as string, ...marker }] },
      { role: 'assistant', content: 'Looking.' },
    ];
    const unmarked = [{ role: 'user', content: [{ type: 'text', text: TASK.content as string }] }];
    const system = [{ type: 'text', text: 'Be brief.' }];
    expect(deriveSessionId(marked)).toBe(deriveSessionId(unmarked));
    expect(deriveSessionId(marked, { system: [{ ...system[0], ...marker }] })).toBe(
      deriveSessionId(unmarked, { system }),
    );
    expect(deriveSessionId(marked)).not.toBe(
      deriveSessionId([{ role: 'user', content: [{ type: 'text', text: 'Other.', ...marker }] }]),
    );
  });

  it('reads a history in any format', () => {
    const chat = [{ role: 'user', content: 'Fix the failing test in src/date.ts.' }];
    expect(deriveSessionId(chat, { format: 'openai-chat' })).toBe(deriveSessionId([TASK]));
  });

  it('rejects a salt that is not a string, naming it', () => {
    expect(() => deriveSessionId(CHAT, { salt: 42 as never })).toThrow(InvalidOptionError);
    expect(() => deriveSessionId(CHAT, { salt: 42 as never })).toThrow(/salt must be a string, got 42/);
  });
});

describe('a manager with sessionId "auto"', () => {
  it('works in the session its first history names, under <session>/ in the store', async () => {
    const { manager, store } = createTestManager({ sessionId: 'auto' });
    const result = await manager.prepare([...CHAT, ...toolTurn('a', textOf(3000))]);
    expect(result.sessionId).toBe(deriveSessionId(CHAT));
    expect((await listKeys(store)).every((key) => key.startsWith(`${deriveSessionId(CHAT)}/`))).toBe(true);
  });

  it('keeps that session for the conversation it serves, even once a compaction replaced the first user message', async () => {
    const { manager } = createTestManager({ sessionId: 'auto', contextTokenLimit: 3000 });
    const first = await manager.prepare([...CHAT, { role: 'assistant', content: textOf(12_000) }]);
    const second = await manager.prepare([...first.messages, { role: 'user', content: 'More.' }]);
    expect(second.sessionId).toBe(first.sessionId);
  });
});
