import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import { createReadToolWire } from '../../../src/proxy/read-calls.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

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

describe('the read tool on the Gemini wire', () => {
  const GEMINI = '/v1beta/models/*:generateContent' as const;
  const readPart = (id?: string): Record<string, unknown> => ({
    functionCall: { ...(id === undefined ? {} : { id }), name: 'read_offloaded', args: { ref: 'redis://a/s/x.md' } },
  });
  const answer = (parts: readonly unknown[], finishReason?: string): Record<string, unknown> => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
  });
  const events = (chunks: readonly unknown[]): string =>
    chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('');

  it('declares the read tool in Gemini’s schema: its types named as Gemini names them, no additionalProperties', () => {
    const wire = createReadToolWire(GEMINI, tool);

    expect(wire.definition).toEqual({
      functionDeclarations: [
        {
          name: 'read_offloaded',
          description: tool.description,
          parameters: {
            type: 'OBJECT',
            properties: {
              ref: { type: 'STRING', description: tool.inputSchema.properties.ref.description },
              offset: { type: 'INTEGER', minimum: 1, description: tool.inputSchema.properties.offset.description },
              limit: { type: 'INTEGER', minimum: 1, description: tool.inputSchema.properties.limit.description },
              pattern: { type: 'STRING', description: tool.inputSchema.properties.pattern.description },
            },
            required: ['ref'],
          },
        },
      ],
    });
  });

  it('adds the declaration as a tools entry of its own after the agent’s, and not when the client declares one of that name', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const own = { functionDeclarations: [{ name: 'run_shell_command', parameters: { type: 'object' } }] };
    const search = { googleSearch: {} };

    expect(wire.addTool([own, search])).toEqual([own, search, wire.definition]);
    expect(wire.addTool(undefined)).toEqual([wire.definition]);
    expect(wire.addTool([{ function_declarations: [{ name: 'read_offloaded' }] }])).toBeUndefined();
  });

  it('rebuilds a streamed turn: text pieces joined, the signed part kept, the read call and its args', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const stream = events([
      answer([{ text: 'I should ', thought: true }]),
      answer([{ text: 'read it.', thought: true }]),
      answer([{ ...readPart(), thoughtSignature: 'c2ln' }]),
      answer([{ text: '' }], 'STOP'),
    ]);

    expect(wire.findReads(stream, true)).toEqual({
      calls: [{ id: undefined, input: { ref: 'redis://a/s/x.md' } }],
      turn: [
        {
          role: 'model',
          parts: [
            { text: 'I should read it.', thought: true },
            { ...readPart(), thoughtSignature: 'c2ln' },
            { text: '' },
          ],
        },
      ],
    });
  });

  it('keeps the parts of a whole answer as the model wrote them', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const parts = [{ text: 'First.' }, { text: 'Second.' }, readPart()];

    expect(wire.findReads(JSON.stringify(answer(parts, 'STOP')), false)?.turn).toEqual([{ role: 'model', parts }]);
  });

  it('reads the chunks of a stream written as one JSON array', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const array = JSON.stringify([answer([{ text: 'Reading.' }]), answer([readPart('call-1')], 'STOP')]);

    expect(wire.findReads(array, false)?.calls).toEqual([{ id: 'call-1', input: { ref: 'redis://a/s/x.md' } }]);
  });

  it('leaves events cut before a chunk says why the answer finished to the client', () => {
    const wire = createReadToolWire(GEMINI, tool);

    expect(wire.findReads(events([answer([readPart()])]), true)).toBeUndefined();
  });

  it('leaves an answer with several candidates to the client', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const candidate = (index: number): Record<string, unknown> => ({
      content: { role: 'model', parts: [readPart()] },
      finishReason: 'STOP',
      index,
    });

    expect(wire.findReads(JSON.stringify({ candidates: [candidate(0), candidate(1)] }), false)).toBeUndefined();
    expect(wire.findReads(JSON.stringify({ candidates: [candidate(0)] }), false)?.calls).toHaveLength(1);
  });

  it('leaves out the agent’s own call, its signature moved to the first read so the turn stays signed', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const own = { functionCall: { name: 'run_shell_command', args: { command: 'ls' } }, thoughtSignature: 'c2ln' };
    const round = wire.findReads(JSON.stringify(answer([own, readPart()], 'STOP')), false);

    expect(round?.turn).toEqual([{ role: 'model', parts: [{ ...readPart(), thoughtSignature: 'c2ln' }] }]);
  });

  it('answers each call in a user content of function responses, echoing the call’s id when it has one', () => {
    const wire = createReadToolWire(GEMINI, tool);
    const round = wire.findReads(JSON.stringify(answer([readPart('call-1'), readPart()], 'STOP')), false);

    expect(wire.writeResults(round!.calls, ['first', 'second'])).toEqual([
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call-1', name: 'read_offloaded', response: { output: 'first' } } },
          { functionResponse: { name: 'read_offloaded', response: { output: 'second' } } },
        ],
      },
    ]);
  });
});

describe('the read tool’s wire of a route', () => {
  it('is a programming error for a route no wire is written for', () => {
    expect(() => createReadToolWire('/v1/embeddings' as '/v1/messages', tool)).toThrow(/no read tool wire.*embeddings/);
  });
});
