import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../src/api/read-offloaded-tool.js';
import { createReadToolWire } from '../../src/proxy/read-calls.js';
import { createMemoryStore } from '../../src/stores/memory-store.js';

const tool = createReadOffloadedTool({ store: createMemoryStore() });

function sse(events: readonly Record<string, unknown>[]): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const THINKING_THEN_READ = [
  { type: 'message_start', message: { id: 'msg_1', role: 'assistant', content: [] } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'I should read ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'the log.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_r', name: 'read_offloaded', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"ref":"redis://a/' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 's/x.md"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
];

describe('the read tool on the Anthropic wire', () => {
  it('rebuilds a streamed turn, thinking and its signature kept, with the read call and its input', () => {
    const wire = createReadToolWire('/v1/messages', tool);
    const round = wire.findReads(sse([...THINKING_THEN_READ, { type: 'message_stop' }]), true);

    expect(round).toEqual({
      calls: [{ id: 'toolu_r', input: { ref: 'redis://a/s/x.md' } }],
      turn: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read the log.', signature: 'sig-1' },
            { type: 'tool_use', id: 'toolu_r', name: 'read_offloaded', input: { ref: 'redis://a/s/x.md' } },
          ],
        },
      ],
    });
  });

  it('leaves a stream cut before its end to the client', () => {
    const wire = createReadToolWire('/v1/messages', tool);

    expect(wire.findReads(sse(THINKING_THEN_READ), true)).toBeUndefined();
  });

  it('adds the read tool last, and not when the client has one of that name', () => {
    const wire = createReadToolWire('/v1/messages', tool);
    const own = { name: 'Bash', input_schema: { type: 'object' } };

    expect(wire.addTool([own])).toEqual([own, tool.anthropic]);
    expect(wire.addTool(undefined)).toEqual([tool.anthropic]);
    expect(wire.addTool([own, { name: 'read_offloaded' }])).toBeUndefined();
  });
});

describe('the read tool on the Chat Completions wire', () => {
  it('leaves an answer with several choices to the client', () => {
    const wire = createReadToolWire('/v1/chat/completions', tool);
    const choice = (index: number): Record<string, unknown> => ({
      index,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: 'read_offloaded', arguments: '{}' } }],
      },
      finish_reason: 'tool_calls',
    });

    expect(wire.findReads(JSON.stringify({ choices: [choice(0), choice(1)] }), false)).toBeUndefined();
    expect(wire.findReads(JSON.stringify({ choices: [choice(0)] }), false)?.calls).toEqual([
      { id: 'call_0', input: '{}' },
    ]);
  });
});

describe('the read tool on the Responses wire', () => {
  it('keeps reasoning items in the turn and leaves out the calls of the agent’s own tools', () => {
    const wire = createReadToolWire('/v1/responses', tool);
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      { type: 'function_call', call_id: 'call_r', name: 'read_offloaded', arguments: '{"ref":"x"}' },
      { type: 'function_call', call_id: 'call_ls', name: 'shell', arguments: '{}' },
    ];
    const round = wire.findReads(JSON.stringify({ output }), false);

    expect(round?.turn).toEqual([output[0], output[1]]);
    expect(wire.writeResults(round!.calls, ['the text'])).toEqual([
      { type: 'function_call_output', call_id: 'call_r', output: 'the text' },
    ]);
  });
});
