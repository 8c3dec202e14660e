/**
 * The langchain format: LangChain.js messages, duck-typed, to the
 * canonical shape and back; changed and fresh messages are instances of LangChain's classes.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { createLangchainFormat, langchain } from '../../../src/formats/langchain.js';

describe('langchain toCanonical', () => {
  it('reads instances by their type: human, system, ai with tool_calls, tool with an error status', () => {
    const history = [
      new SystemMessage('Be terse.'),
      new HumanMessage('Read a.'),
      new AIMessage({ content: 'Reading.', tool_calls: [{ id: 'c1', name: 'read', args: { path: 'a' } }] }),
      new ToolMessage({ content: 'ENOENT', tool_call_id: 'c1', status: 'error' }),
    ];
    expect(langchain.toCanonical(history)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Read a.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ENOENT', is_error: true }] },
    ]);
  });

  it('does not repeat a call already present as a native tool_use part', () => {
    const message = new AIMessage({
      content: [{ type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } }],
      tool_calls: [{ id: 'c1', name: 'read', args: { path: 'a' } }],
    });
    expect(langchain.toCanonical([message])[0]!.content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
    ]);
  });

  it('reads the serialized forms and plain message-likes', () => {
    const serialized = JSON.parse(JSON.stringify(new ToolMessage({ content: 'out', tool_call_id: 'c1' }))) as object;
    const stored = new HumanMessage('hi').toDict();
    expect(langchain.toCanonical([serialized, stored, { type: 'ai', content: 'hello' }])).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }] },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('refuses an object that is no LangChain message, naming its index', () => {
    expect(() => langchain.toCanonical([new HumanMessage('hi'), { role: 'user', content: 'x' } as never])).toThrow(
      /^messages\[1\]: must be a LangChain message/,
    );
  });
});

describe('langchain fromCanonical', () => {
  it("rebuilds an offloaded ToolMessage as an instance of the original's class, every field but content kept", () => {
    const history = [
      new ToolMessage({
        content: 'big',
        tool_call_id: 'c1',
        name: 'read',
        artifact: { raw: 1 },
        id: 't1',
        status: 'success',
      }),
    ];
    const [message] = langchain.toCanonical(history);
    const changed: Message = { ...message!, content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ref' }] };
    const [back] = langchain.fromCanonical([changed], history);
    expect(back).toBeInstanceOf(ToolMessage);
    expect(back).toMatchObject({
      content: 'ref',
      tool_call_id: 'c1',
      name: 'read',
      artifact: { raw: 1 },
      id: 't1',
      status: 'success',
    });
  });

  it('rebuilds a serialized ToolMessage in its serialized form', () => {
    const serialized = JSON.parse(JSON.stringify(new ToolMessage({ content: 'big', tool_call_id: 'c1' }))) as {
      lc: number;
      type: string;
      id: string[];
      kwargs: object;
    };
    const [message] = langchain.toCanonical([serialized]);
    const changed: Message = { ...message!, content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ref' }] };
    expect(langchain.fromCanonical([changed], [serialized])).toEqual([
      { ...serialized, kwargs: { ...serialized.kwargs, content: 'ref' } },
    ]);
  });

  it('builds fresh messages with the classes given to createLangchainFormat', () => {
    const format = createLangchainFormat({ messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage } });
    const canonical: Message[] = [
      { role: 'system', content: 'sys' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'out', is_error: true },
          { type: 'text', text: 'next' },
        ],
      },
    ];
    const built = format.fromCanonical(canonical);
    expect(built.map((message) => message.constructor)).toEqual([SystemMessage, AIMessage, ToolMessage, HumanMessage]);
    expect(built[1]).toMatchObject({
      content: 'Reading.',
      tool_calls: [{ id: 'c1', name: 'read', args: { path: 'a' } }],
    });
    expect(built[2]).toMatchObject({ content: 'out', tool_call_id: 'c1', name: 'read', status: 'error' });
  });

  it('without classes, borrows the class of a message of the same kind in the history, else builds a plain message-like', () => {
    const history = [new HumanMessage('hi')];
    const summary: Message = { role: 'user', content: 'summary' };
    const reply: Message = { role: 'assistant', content: 'ok' };
    const built = langchain.fromCanonical([summary, reply, ...langchain.toCanonical(history)], history);
    expect(built[0]).toBeInstanceOf(HumanMessage);
    expect(built[0]).toMatchObject({ content: 'summary' });
    expect(built[1]).toEqual({ type: 'ai', content: 'ok' });
    expect(built[2]).toBe(history[0]);
  });
});
