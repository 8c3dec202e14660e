/**
 * The anthropic format: the canonical shape itself, so both
 * directions hand back the very same objects.
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../../../src/formats/anthropic.js';

describe('anthropic', () => {
  it('converts to canonical as the same message objects, in a new array', () => {
    const history: MessageParam[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ];
    const canonical = anthropic.toCanonical(history);
    expect(canonical).not.toBe(history);
    canonical.forEach((message, index) => expect(message).toBe(history[index]));
  });

  it("converts back as the same objects, typed as the caller's messages", () => {
    const history: MessageParam[] = [{ role: 'user', content: 'hi' }];
    const back: MessageParam[] = anthropic.fromCanonical(anthropic.toCanonical(history), history);
    expect(back[0]).toBe(history[0]);
  });

  it('refuses a message with another role or without content, naming the index and field', () => {
    expect(() =>
      anthropic.toCanonical([{ role: 'user', content: 'x' }, { role: 'tool', content: 'y' } as never]),
    ).toThrow('messages[1].role: must be "system", "user" or "assistant", got "tool"');
    expect(() => anthropic.toCanonical([{ role: 'user' } as never])).toThrow(
      'messages[0].content: must be a string or an array of blocks, got undefined',
    );
  });

  it("detects Anthropic histories but not ones holding another format's parts", () => {
    expect(
      anthropic.detect([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'x' }] }]),
    ).toBe(true);
    expect(
      anthropic.detect([
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} }] },
      ]),
    ).toBe(false);
    expect(anthropic.detect([{ role: 'assistant', content: null, tool_calls: [] }])).toBe(false);
    expect(anthropic.detect([])).toBe(false);
  });
});
