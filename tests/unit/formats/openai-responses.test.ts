/**
 * The openai-responses format: Responses API input items to the
 * canonical shape and back; reasoning, compaction and unknown items pass through untouched.
 */
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { openaiResponses } from '../../../src/formats/openai-responses.js';

describe('openai-responses toCanonical', () => {
  it('reads messages: developer as system, input_text and output_text as text blocks, other parts kept', () => {
    const image = { type: 'input_image' as const, image_url: 'https://x/a.png', detail: 'low' as const };
    const history: ResponseInputItem[] = [
      { role: 'developer', content: 'Use tools.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, image] },
      {
        type: 'message',
        id: 'm1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'ok', annotations: [] }],
      },
    ];
    expect(openaiResponses.toCanonical(history)).toEqual([
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: [{ type: 'text', text: 'see' }, image] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
  });

  it('reads function_call and function_call_output items as tool_use and tool_result', () => {
    const history: ResponseInputItem[] = [
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'out' }] },
    ];
    expect(openaiResponses.toCanonical(history)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'out' }] }] },
    ]);
  });

  it('holds reasoning, compaction, item references and unknown item types as one opaque block each', () => {
    const reasoning = { type: 'reasoning' as const, id: 'rs', summary: [], encrypted_content: 'e' };
    const future = { type: 'hologram_call', id: 'h1' };
    const canonical = openaiResponses.toCanonical([reasoning, { type: 'item_reference', id: 'm0' }, future]);
    expect(canonical).toEqual([
      { role: 'assistant', content: [{ type: 'openai-responses:reasoning', item: reasoning }] },
      {
        role: 'assistant',
        content: [{ type: 'openai-responses:item_reference', item: { type: 'item_reference', id: 'm0' } }],
      },
      { role: 'assistant', content: [{ type: 'openai-responses:hologram_call', item: future }] },
    ]);
    expect(openaiResponses.fromCanonical(canonical.map((message) => structuredClone(message)))[0]).toEqual(reasoning);
  });

  it('refuses an item that is neither a message nor a typed item, naming its index and field', () => {
    expect(() =>
      openaiResponses.toCanonical([{ role: 'user', content: 'x' }, { content: 'no role' } as never]),
    ).toThrow(/^messages\[1\]\.type: must be an item type/);
    expect(() => openaiResponses.toCanonical([{ type: 'function_call', call_id: 'c', name: 'f' } as never])).toThrow(
      'messages[0].arguments: must be a string, got undefined',
    );
  });
});

describe('openai-responses fromCanonical', () => {
  it('builds items in block order: a run of text makes one message, each tool block its own item', () => {
    const canonical: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'c2', name: 'read', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
          { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'two' }] },
          { type: 'text', text: 'next' },
        ],
      },
    ];
    expect(openaiResponses.fromCanonical(canonical)).toEqual([
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call', call_id: 'c2', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
      { role: 'user', content: 'next' },
    ]);
  });

  it('rebuilds an offloaded function_call_output on the original, id and status kept', () => {
    const history: ResponseInputItem[] = [
      { type: 'function_call_output', call_id: 'c1', output: 'big', id: 'fco_1', status: 'completed' },
    ];
    const [message] = openaiResponses.toCanonical(history);
    const changed: Message = { ...message!, content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ref' }] };
    expect(openaiResponses.fromCanonical([changed], history)).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: 'ref', id: 'fco_1', status: 'completed' },
    ]);
  });
});
