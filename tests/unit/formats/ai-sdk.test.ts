/**
 * The ai-sdk format: Vercel AI SDK ModelMessage (ai 6 and 7) to
 * the canonical shape and back, tool outputs by their `output` union.
 */
import type { ModelMessage } from 'ai';
import type { ModelMessage as ModelMessageV6 } from 'ai-v6';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { aiSdk } from '../../../src/formats/ai-sdk.js';

const result = (toolCallId: string, output: unknown, toolName = 'f') => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output,
});

describe('ai-sdk toCanonical', () => {
  it('reads tool-call parts as tool_use blocks and reasoning as thinking', () => {
    const history: ModelMessage[] = [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: 'not an object' },
        ],
      },
    ];
    expect(aiSdk.toCanonical(history)[0]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        { type: 'tool_use', id: 'c2', name: 'read', input: {} },
      ],
    });
  });

  it('reads each output type: text, error-text, json, error-json, content, execution-denied', () => {
    const image = { type: 'image-data', data: 'AAAA', mediaType: 'image/png' };
    const history: ModelMessageV6[] = [
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'text', value: 'ok' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'f', output: { type: 'error-text', value: 'boom' } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'f', output: { type: 'json', value: { a: [1] } } },
          { type: 'tool-result', toolCallId: 'c4', toolName: 'f', output: { type: 'error-json', value: { code: 7 } } },
          {
            type: 'tool-result',
            toolCallId: 'c5',
            toolName: 'f',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'see' },
                { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
              ],
            },
          },
          { type: 'tool-result', toolCallId: 'c6', toolName: 'f', output: { type: 'execution-denied' } },
        ],
      },
    ];
    expect(aiSdk.toCanonical(history)[0]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'ok' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'boom', is_error: true },
        { type: 'tool_result', tool_use_id: 'c3', content: '{"a":[1]}' },
        { type: 'tool_result', tool_use_id: 'c4', content: '{"code":7}', is_error: true },
        { type: 'tool_result', tool_use_id: 'c5', content: [{ type: 'text', text: 'see' }, image] },
        { type: 'tool_result', tool_use_id: 'c6', content: 'Tool call execution denied.' },
      ],
    });
  });

  it('keeps tool-approval-response parts as blocks of the tool message', () => {
    const approval = { type: 'tool-approval-response' as const, approvalId: 'a1', approved: true };
    expect(aiSdk.toCanonical([{ role: 'tool', content: [approval] }])[0]).toEqual({
      role: 'user',
      content: [approval],
    });
  });

  it('refuses a tool result without an output, naming the field', () => {
    expect(() =>
      aiSdk.toCanonical([
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f' }] } as never,
      ]),
    ).toThrow(
      'messages[0].content[0].output: must be a tool output object with a type ("text", "json", "error-text", ...), got undefined',
    );
  });
});

describe('ai-sdk fromCanonical', () => {
  it("builds a tool message from a user turn's tool results, tool names from their calls", () => {
    const canonical: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'out' },
          { type: 'tool_result', tool_use_id: 'lost', content: 'no', is_error: true },
          { type: 'text', text: 'go on' },
        ],
      },
    ];
    expect(aiSdk.fromCanonical(canonical)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} }] },
      {
        role: 'tool',
        content: [
          result('c1', { type: 'text', value: 'out' }, 'read'),
          result('lost', { type: 'error-text', value: 'no' }, 'unknown'),
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ]);
  });

  it('gives back an offloaded error result as error-text holding the reference, other parts and fields kept', () => {
    const history: ModelMessage[] = [
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'f',
            output: { type: 'error-json', value: { big: true } },
            providerOptions: { p: { q: 1 } },
          },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'f', output: { type: 'text', value: 'small' } },
        ],
      },
    ];
    const [message] = aiSdk.toCanonical(history);
    const blocks = message!.content as Message['content'] & unknown[];
    const changed: Message = {
      role: 'user',
      content: [{ ...(blocks[0] as object), content: 'ref' } as never, structuredClone(blocks[1]) as never],
    };
    const [back] = aiSdk.fromCanonical([changed], history);
    expect(back).toEqual({
      role: 'tool',
      content: [
        { ...result('c1', { type: 'error-text', value: 'ref' }), providerOptions: { p: { q: 1 } } },
        result('c2', { type: 'text', value: 'small' }),
      ],
    });
    expect((back!.content as unknown[])[1]).toBe((history[0]!.content as unknown[])[1]);
  });
});
