/**
 * The proxy's usage figures, each kept with the history it counted: taken only by a history
 * that starts with that one (prompt-cache markers aside), the one covering the most messages
 * first, each once.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/types.js';
import { sha256Hashing } from '../../src/infrastructure/sha256-hashing.js';
import { createCountedUsages } from '../../src/proxy/counted-usages.js';

const FIRST: Message = { role: 'user', content: [{ type: 'text', text: 'Fix the date test.' }] };
const REPLY: Message = { role: 'assistant', content: 'Looking.' };
const NEXT: Message = { role: 'user', content: 'Go on.' };

function figure(inputTokens: number, messageCount: number) {
  return { inputTokens, messageCount };
}

describe('createCountedUsages', () => {
  it('gives a figure to a history that starts with the one it counted, once', () => {
    const usages = createCountedUsages(4, sha256Hashing);
    usages.keep('s', figure(9_000, 1), usages.fingerprint([FIRST], 1));

    expect(usages.take('s', [FIRST, REPLY, NEXT])).toEqual(figure(9_000, 1));
    expect(usages.take('s', [FIRST, REPLY, NEXT])).toBeUndefined();
  });

  it('matches by content: the same messages rebuilt, a prompt-cache marker moved', () => {
    const usages = createCountedUsages(4, sha256Hashing);
    const marked: Message = {
      role: 'user',
      content: [{ type: 'text', text: 'Fix the date test.', cache_control: { type: 'ephemeral' } }],
    };
    usages.keep('s', figure(9_000, 1), usages.fingerprint([marked], 1));

    expect(usages.take('s', [structuredClone(FIRST), REPLY])).toEqual(figure(9_000, 1));
  });

  it("never gives a figure to another conversation's history, nor under another key", () => {
    const usages = createCountedUsages(4, sha256Hashing);
    usages.keep('s', figure(91_000, 1), usages.fingerprint([FIRST], 1));

    expect(usages.take('s', [{ role: 'user', content: 'Find the callers.' }, REPLY, NEXT])).toBeUndefined();
    expect(usages.take('other', [FIRST, REPLY, NEXT])).toBeUndefined();
    expect(usages.take('s', [FIRST])).toEqual(figure(91_000, 1));
  });

  it('gives the figure covering the most messages among those the history extends', () => {
    const usages = createCountedUsages(4, sha256Hashing);
    usages.keep('s', figure(9_000, 1), usages.fingerprint([FIRST], 1));
    usages.keep('s', figure(9_500, 3), usages.fingerprint([FIRST, REPLY, NEXT], 3));

    expect(usages.take('s', [FIRST, REPLY, NEXT, REPLY])).toEqual(figure(9_500, 3));
  });
});
