import { describe, expect, it } from 'vitest';
import { serializeWithoutCacheMarkers } from '../../../../../src/core/manage/records/fingerprint.js';
import type { Message } from '../../../../../src/core/types.js';

const marker = { cache_control: { type: 'ephemeral' as const } };

describe('a message as JSON without its prompt-cache markers', () => {
  it('leaves out the markers of blocks and of a tool result s blocks, and nothing else', () => {
    const message: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'look', ...marker },
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [{ type: 'text', text: 'out', ...marker }],
          is_error: false,
        },
      ],
    };

    expect(serializeWithoutCacheMarkers(message)).toBe(
      '{"role":"user","content":[{"type":"text","text":"look"},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out"}],"is_error":false}]}',
    );
  });

  it('keeps a field named cache_control inside a tool call s input: the tool s data', () => {
    const message: Message = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'set', input: { cache_control: 'on' } }],
    };

    expect(serializeWithoutCacheMarkers(message)).toBe(JSON.stringify(message));
  });

  it('gives each message its own text, however many were serialized in between', () => {
    const messages = Array.from({ length: 40 }, (_, index): Message => ({ role: 'user', content: `message ${index}` }));
    const first = messages.map((message) => serializeWithoutCacheMarkers(message));
    const again = [...messages].reverse().map((message) => serializeWithoutCacheMarkers(message));

    expect(again.reverse()).toEqual(first);
    expect(first[7]).toBe('{"role":"user","content":"message 7"}');
  });
});
