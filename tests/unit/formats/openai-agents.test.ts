/**
 * The openai-agents format: the Agents SDK's own items
 * (`function_call_result` with `callId`, `name`, `status`, `output`) to the canonical shape and back.
 */
import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { openaiAgents } from '../../../src/formats/openai-agents.js';

describe('openai-agents toCanonical', () => {
  it('reads function_call and function_call_result by callId; a string output is the content', () => {
    const history: AgentInputItem[] = [
      { type: 'function_call', callId: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call_result', callId: 'c1', name: 'read', status: 'completed', output: 'out' },
    ];
    expect(openaiAgents.toCanonical(history)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }] },
    ]);
  });

  it('reads a text output as its string, and an image output or a list of parts as blocks', () => {
    const image = { type: 'input_image' as const, image: 'https://x/a.png' };
    const history: AgentInputItem[] = [
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'f',
        status: 'completed',
        output: { type: 'text', text: 'one' },
      },
      {
        type: 'function_call_result',
        callId: 'c2',
        name: 'f',
        status: 'completed',
        output: [{ type: 'input_text', text: 'two' }, image],
      },
    ];
    expect(openaiAgents.toCanonical(history).map((message) => message.content)).toEqual([
      [{ type: 'tool_result', tool_use_id: 'c1', content: 'one' }],
      [{ type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: 'two' }, image] }],
    ]);
  });

  it('holds reasoning and hosted tool calls as opaque blocks', () => {
    const hosted: AgentInputItem = { type: 'hosted_tool_call', name: 'web_search', status: 'completed' };
    expect(openaiAgents.toCanonical([hosted])).toEqual([
      { role: 'assistant', content: [{ type: 'openai-agents:hosted_tool_call', item: hosted }] },
    ]);
  });

  it('refuses a Responses API item where an Agents SDK item is declared, naming the field', () => {
    expect(() =>
      openaiAgents.toCanonical([{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' } as never]),
    ).toThrow('messages[0].callId: must be a string, got undefined');
  });
});

describe('openai-agents fromCanonical', () => {
  it('builds a function_call_result with the name of its call and status completed', () => {
    const canonical: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }] },
      { role: 'assistant', content: 'Done.' },
    ];
    expect(openaiAgents.fromCanonical(canonical)).toEqual([
      { type: 'function_call', callId: 'c1', name: 'read', arguments: '{"path":"a"}' },
      { type: 'function_call_result', callId: 'c1', name: 'read', status: 'completed', output: 'out' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.' }] },
    ]);
  });

  it('keeps the shape of a structured text output when it is offloaded', () => {
    const history: AgentInputItem[] = [
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'f',
        status: 'completed',
        output: { type: 'text', text: 'big', providerData: { a: 1 } },
      },
    ];
    const [message] = openaiAgents.toCanonical(history);
    const changed: Message = { ...message!, content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ref' }] };
    expect(openaiAgents.fromCanonical([changed], history)).toEqual([
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'f',
        status: 'completed',
        output: { type: 'text', text: 'ref', providerData: { a: 1 } },
      },
    ]);
  });
});
