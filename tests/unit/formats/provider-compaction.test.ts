/**
 * The providers' own compaction through the formats: Anthropic's `compaction` block and the
 * Responses API's encrypted `compaction` item come back from a round trip as the very objects
 * given, and as the same JSON bytes, also when the history around them changed.
 */
import type { BetaCompactionBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../../../src/formats/anthropic.js';
import { openaiAgents } from '../../../src/formats/openai-agents.js';
import { openaiResponses } from '../../../src/formats/openai-responses.js';
import type { Message } from '../../../src/core/types.js';

const COMPACTION_BLOCK: BetaCompactionBlockParam = {
  type: 'compaction',
  content: 'The user asked for a date parser; src/date.ts was written and two tests pass.',
  encrypted_content: 'EuYBCkYIBRgCKkBopaque+metadata/==',
  signature: 'sig-0a1b2c',
};

const ANTHROPIC_HISTORY: BetaMessageParam[] = [
  { role: 'user', content: 'Write a date parser.' },
  { role: 'assistant', content: [COMPACTION_BLOCK, { type: 'text', text: 'Continuing with the tests.' }] },
  { role: 'user', content: 'Now add time zones.' },
];

const COMPACTION_ITEM: ResponseInputItem = {
  type: 'compaction',
  id: 'cmp_68c1f0',
  encrypted_content: 'gAAAAABo-opaque-ciphertext_with/slashes+and=padding==',
};

const RESPONSES_HISTORY: ResponseInputItem[] = [
  { role: 'user', content: 'Write a date parser.' },
  COMPACTION_ITEM,
  { role: 'user', content: 'Now add time zones.' },
];

describe('provider compaction through the formats', () => {
  it('keeps an Anthropic compaction block as the very object, byte for byte', () => {
    const canonical = anthropic.toCanonical(ANTHROPIC_HISTORY as Message[]);
    const back = anthropic.fromCanonical(canonical);
    expect(back[1]).toBe(ANTHROPIC_HISTORY[1]);
    expect((back[1]?.content as unknown[])[0]).toBe(COMPACTION_BLOCK);
    expect(JSON.stringify(back)).toBe(JSON.stringify(ANTHROPIC_HISTORY));
  });

  it('detects a history holding a compaction block as Anthropic-shaped', () => {
    expect(anthropic.detect(ANTHROPIC_HISTORY)).toBe(true);
  });

  it('keeps an encrypted Responses compaction item as the very object, byte for byte', () => {
    const canonical = openaiResponses.toCanonical(RESPONSES_HISTORY);
    const back = openaiResponses.fromCanonical(canonical, RESPONSES_HISTORY);
    expect(back[1]).toBe(COMPACTION_ITEM);
    expect(JSON.stringify(back)).toBe(JSON.stringify(RESPONSES_HISTORY));
  });

  it('builds the same compaction item bytes from the canonical form alone', () => {
    const canonical = openaiResponses.toCanonical(RESPONSES_HISTORY);
    const rebuilt = openaiResponses.fromCanonical(structuredClone(canonical));
    expect(JSON.stringify(rebuilt[1])).toBe(JSON.stringify(COMPACTION_ITEM));
  });

  it('keeps the compaction item when a later message changed', () => {
    const canonical = openaiResponses.toCanonical(RESPONSES_HISTORY);
    const changed = [...canonical.slice(0, 2), { role: 'user' as const, content: 'Now add leap seconds.' }];
    const back = openaiResponses.fromCanonical(changed, RESPONSES_HISTORY);
    expect(back[1]).toBe(COMPACTION_ITEM);
    expect(back[2]).toEqual({ role: 'user', content: 'Now add leap seconds.' });
  });

  it('keeps an Agents SDK compaction item as the very object', () => {
    const items = [
      { role: 'user', content: 'Write a date parser.' },
      { type: 'compaction', encrypted_content: 'gAAAAABo-agents-ciphertext' },
    ];
    const back = openaiAgents.fromCanonical(openaiAgents.toCanonical(items as never), items as never);
    expect(back[1]).toBe(items[1]);
  });
});
