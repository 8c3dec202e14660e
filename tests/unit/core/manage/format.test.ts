/**
 * The manager works in any message format: it converts with `toCanonical` at the
 * start and `fromCanonical(result, input)` at the end, so the caller gets its own objects back
 * for every message nothing changed, and a changed message keeps the fields the canonical
 * model lacks.
 */
import { describe, expect, it } from 'vitest';
import type { MessageFormat } from '../../../../src/core/format.js';
import type { Message } from '../../../../src/core/types.js';
import { createTestManager, directKey, directReference, textOf } from './manager-fixtures.js';

/** A small chat shape of its own: text turns, calls, and outputs that carry an extra field. */
type ChatItem =
  | { kind: 'text'; role: 'system' | 'user' | 'assistant'; text: string }
  | { kind: 'call'; id: string; name: string; args: Record<string, unknown> }
  | { kind: 'output'; id: string; output: string; elapsedMs?: number };

function createChatFormat(): MessageFormat<ChatItem> & { conversions: number } {
  const memo = new WeakMap<ChatItem, Message>();
  const toMessage = (item: ChatItem): Message => {
    switch (item.kind) {
      case 'text':
        return { role: item.role, content: item.text };
      case 'call':
        return { role: 'assistant', content: [{ type: 'tool_use', id: item.id, name: item.name, input: item.args }] };
      case 'output':
        return { role: 'user', content: [{ type: 'tool_result', tool_use_id: item.id, content: item.output }] };
    }
  };
  const toItem = (message: Message): ChatItem => {
    if (typeof message.content === 'string') return { kind: 'text', role: message.role, text: message.content };
    const block = message.content[0] as {
      type: string;
      id?: string;
      name?: string;
      input?: Record<string, unknown>;
      tool_use_id?: string;
      content?: unknown;
    };
    if (block.type === 'tool_use') return { kind: 'call', id: block.id!, name: block.name!, args: block.input! };
    return { kind: 'output', id: block.tool_use_id!, output: String(block.content) };
  };
  const format = {
    name: 'chat-items',
    conversions: 0,
    detect: (messages: readonly unknown[]) =>
      messages.every((item) => typeof item === 'object' && item !== null && 'kind' in item),
    toCanonical(items: readonly ChatItem[]): Message[] {
      return items.map((item) => {
        let message = memo.get(item);
        if (message === undefined) {
          format.conversions += 1;
          message = toMessage(item);
          memo.set(item, message);
        }
        return message;
      });
    },
    fromCanonical(canonical: readonly Message[], original: readonly ChatItem[] = []): ChatItem[] {
      return canonical.map((message, index) => {
        const source = original[index];
        if (source !== undefined && memo.get(source) === message) return source;
        if (source !== undefined && canonical.length === original.length && source.kind === 'output') {
          return { ...source, output: (toItem(message) as { output: string }).output };
        }
        return toItem(message);
      });
    },
  };
  return format;
}

const history: ChatItem[] = [
  { kind: 'text', role: 'system', text: 'You are an agent.' },
  { kind: 'text', role: 'user', text: 'Look at the logs.' },
  { kind: 'call', id: 'c1', name: 'bash', args: { command: 'cat app.log' } },
  { kind: 'output', id: 'c1', output: textOf(3000), elapsedMs: 42 },
];

describe('prepare in a format of its own', () => {
  it("gives back the caller's own objects for unchanged messages and rebuilds the changed one on its original", async () => {
    const format = createChatFormat();
    const { manager, store } = createTestManager({ format, threshold: 1000 });
    const result = await manager.prepare(history);

    expect(result.messages.slice(0, 3).every((item, index) => item === history[index])).toBe(true);
    expect(result.messages[3]).toEqual({
      kind: 'output',
      id: 'c1',
      output: directReference(directKey('c1', textOf(3000))),
      elapsedMs: 42,
    });
    expect(await store.get(directKey('c1', textOf(3000)))).toBe(textOf(3000));
  });

  it('returns the same objects for the prefix on the next call, the rebuilt one included', async () => {
    const format = createChatFormat();
    const { manager } = createTestManager({ format, threshold: 1000 });
    // a framework that sends its originals every time, plus the new turn
    const first = await manager.prepare(history);
    const second = await manager.prepare([
      ...history,
      { kind: 'text', role: 'assistant', text: 'The log shows a timeout.' },
    ]);
    first.messages.forEach((item, index) => expect(second.messages[index]).toBe(item));
  });

  it('converts each caller object once, however many calls see it', async () => {
    const format = createChatFormat();
    const { manager } = createTestManager({ format, threshold: 1000 });
    const first = await manager.prepare(history);
    await manager.prepare(first.messages);
    await manager.prepare(first.messages);
    // 4 originals + the rebuilt output
    expect(format.conversions).toBe(5);
  });

  it("builds the compacted history in the caller's shape", async () => {
    const format = createChatFormat();
    const { manager } = createTestManager({ format, contextTokenLimit: 2000 });
    const result = await manager.prepare([
      ...history.slice(0, 2),
      { kind: 'text', role: 'assistant', text: textOf(9000) },
    ]);
    expect(result.messages).toEqual([
      history[0],
      { kind: 'text', role: 'user', text: '[Conversation compressed]\n\nSummary of the work so far.' },
      { kind: 'text', role: 'assistant', text: 'Understood.' },
    ]);
  });
});
