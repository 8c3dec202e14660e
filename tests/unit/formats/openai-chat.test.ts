/**
 * The openai-chat format: Chat Completions messages to the
 * canonical shape and back.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { openaiChat } from '../../../src/formats/openai-chat.js';

const call = (id: string, name: string, args: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
});

describe('openai-chat toCanonical', () => {
  it('makes system and developer messages canonical system messages, their parts kept', () => {
    const history: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Be terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
    ];
    expect(openaiChat.toCanonical(history)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'system', content: [{ type: 'text', text: 'Use tools.' }] },
    ]);
  });

  it("keeps a user message's image, audio and file parts as blocks", () => {
    const image = { type: 'image_url' as const, image_url: { url: 'https://x/a.png' } };
    const file = { type: 'file' as const, file: { file_id: 'f1' } };
    const [message] = openaiChat.toCanonical([{ role: 'user', content: [{ type: 'text', text: 'see' }, image, file] }]);
    expect(message).toEqual({ role: 'user', content: [{ type: 'text', text: 'see' }, image, file] });
  });

  it('turns parallel tool_calls into tool_use blocks after the text, arguments parsed', () => {
    const [message] = openaiChat.toCanonical([
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [call('c1', 'read', '{"path":"a"}'), call('c2', 'read', '{"path":"b"}')],
      },
    ]);
    expect(message).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading both.' },
        { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        { type: 'tool_use', id: 'c2', name: 'read', input: { path: 'b' } },
      ],
    });
  });

  it('gives input {} for arguments that are not a JSON object, and the original back unchanged', () => {
    const history: ChatCompletionMessageParam[] = [
      { role: 'assistant', content: null, tool_calls: [call('c1', 'f', '{"cut'), call('c2', 'g', '[1]')] },
    ];
    const canonical = openaiChat.toCanonical(history);
    expect(canonical[0]!.content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'f', input: {} },
      { type: 'tool_use', id: 'c2', name: 'g', input: {} },
    ]);
    expect(openaiChat.fromCanonical(canonical, history)[0]).toBe(history[0]);
  });

  it('turns a tool message into a user message holding one tool_result', () => {
    const [message] = openaiChat.toCanonical([
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'out' }] },
    ]);
    expect(message).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'out' }] }],
    });
  });

  it('keeps a custom tool call and a legacy function message as blocks that convert back to themselves', () => {
    const custom = { id: 'c3', type: 'custom' as const, custom: { name: 'grep', input: 'TODO' } };
    const history: ChatCompletionMessageParam[] = [
      { role: 'assistant', content: null, tool_calls: [custom] },
      { role: 'function', name: 'legacy', content: 'old' },
    ];
    const canonical = openaiChat.toCanonical(history);
    expect(canonical).toEqual([
      { role: 'assistant', content: [{ type: 'openai-chat:tool_call', tool_call: custom }] },
      { role: 'user', content: [{ type: 'openai-chat:function', message: history[1] }] },
    ]);
    const fresh = openaiChat.fromCanonical(canonical.map((message) => ({ ...message })));
    expect(fresh).toEqual([{ role: 'assistant', content: null, tool_calls: [custom] }, history[1]]);
  });

  it('refuses a message that is not a chat message, naming the index and field', () => {
    expect(() => openaiChat.toCanonical(['hi' as never])).toThrow(
      'messages[0]: must be an OpenAI chat message object, got "hi"',
    );
    expect(() =>
      openaiChat.toCanonical([{ role: 'user', content: 'x' }, { role: 'tool', content: 'y' } as never]),
    ).toThrow('messages[1].tool_call_id: must be a string, got undefined');
    expect(() => openaiChat.toCanonical([{ role: 'user', content: [{ type: 'text' }] } as never])).toThrow(
      'messages[0].content[0].text: must be a string, got undefined',
    );
  });
});

describe('openai-chat fromCanonical', () => {
  it('builds a canonical user turn with tool results as tool messages first, then the rest', () => {
    const canonical: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
          { type: 'text', text: 'and also', cache_control: { type: 'ephemeral' } },
          { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'two' }], is_error: true },
        ],
      },
    ];
    expect(openaiChat.fromCanonical(canonical)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'and also' }] },
    ]);
  });

  it('builds an assistant turn with its text as content and its tool_use blocks as tool_calls, thinking left out', () => {
    const canonical: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        ],
      },
    ];
    expect(openaiChat.fromCanonical(canonical)).toEqual([
      { role: 'assistant', content: 'Reading.', tool_calls: [call('c1', 'read', '{"path":"a"}')] },
    ]);
  });

  it("gives back the caller's own object for a copy of an unchanged canonical message", () => {
    const history: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'hi', name: 'ann' },
      { role: 'tool', tool_call_id: 'c1', content: 'out' },
    ];
    const copies = openaiChat.toCanonical(history).map((message) => structuredClone(message));
    const back = openaiChat.fromCanonical(copies, history);
    expect(back[0]).toBe(history[0]);
    expect(back[1]).toBe(history[1]);
  });

  it('rebuilds a changed tool output on the original, keeping fields the canonical model lacks', () => {
    const history = [{ role: 'tool' as const, tool_call_id: 'c1', content: 'big', extra: { kept: true } }];
    const [message] = openaiChat.toCanonical(history);
    const changed: Message = { ...message!, content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ref' }] };
    expect(openaiChat.fromCanonical([changed], history)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'ref', extra: { kept: true } },
    ]);
  });

  it('builds fresh a message whose change is not a tool output, and messages of a history of another length', () => {
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'before', name: 'ann' }];
    expect(openaiChat.fromCanonical([{ role: 'user', content: 'after' }], history)).toEqual([
      { role: 'user', content: 'after' },
    ]);
    const summary: Message = { role: 'user', content: 'summary' };
    const canonical = openaiChat.toCanonical(history);
    expect(openaiChat.fromCanonical([summary, ...canonical], history)).toEqual([
      { role: 'user', content: 'summary' },
      history[0],
    ]);
  });
});
