/**
 * Writing a request body with a new history: the client's bytes for what the history change
 * left alone, JSON for the rest, and the value is the body with the new history.
 */
import { describe, expect, it } from 'vitest';
import { createBodyParser } from '../../src/proxy/body-parser.js';
import { writeBodyPartsWithHistory, writeBodyWithHistory } from '../../src/proxy/body-writer.js';

// escapes and spacing JSON.stringify would not write: they show which bytes were copied
const RAW =
  '{ "model": "claude-x", "system": "caf\\u00e9",\n  "messages": [ {"role": "user", "content": "caf\\u00e9 one"} ,\n {"role": "assistant", "content": "two"}, {"role": "user", "content": "three"} ],\n  "stream": true }';

function parse(raw: string) {
  const body = Buffer.from(raw, 'utf8');
  const { value, layout } = createBodyParser(1).parse(body, 'k');
  if (layout === undefined) throw new Error('no layout');
  return { body, value: value as { messages: unknown[] }, layout };
}

describe('writing a body with a new history', () => {
  it('copies the items sent as they came and the other fields, and writes the changed items as JSON', () => {
    const { body, value, layout } = parse(RAW);
    const [first, , third] = value.messages;
    const replaced = { role: 'assistant', content: '[offloaded to /tmp/x.md]' };
    const written = writeBodyWithHistory(body, layout, value.messages, [first, replaced, third]).toString('utf8');

    expect(JSON.parse(written)).toEqual({ ...value, messages: [first, replaced, third] });
    expect(written).toBe(
      '{ "model": "claude-x", "system": "caf\\u00e9",\n  "messages": [{"role": "user", "content": "caf\\u00e9 one"},{"role":"assistant","content":"[offloaded to /tmp/x.md]"},{"role": "user", "content": "three"}],\n  "stream": true }',
    );
  });

  it('writes a shorter history, an empty one, and items in a new order', () => {
    const { body, value, layout } = parse(RAW);
    const summary = { role: 'user', content: '[Conversation compressed] é' };
    for (const items of [[summary, value.messages[2]], [], [value.messages[2], value.messages[0]]]) {
      expect(JSON.parse(writeBodyWithHistory(body, layout, value.messages, items).toString('utf8'))).toEqual({
        ...value,
        messages: items,
      });
    }
  });

  it('copies a stretch of items sent as they came in one slice of the client bytes, separators included', () => {
    const { body, value, layout } = parse(RAW);
    const [first, second] = value.messages;
    const replaced = { role: 'user', content: '[offloaded]' };
    const parts = writeBodyPartsWithHistory(body, layout, value.messages, [first, second, replaced]);

    expect(Buffer.concat(parts).toString('utf8')).toBe(
      '{ "model": "claude-x", "system": "caf\\u00e9",\n  "messages": [{"role": "user", "content": "caf\\u00e9 one"} ,\n {"role": "assistant", "content": "two"},{"role":"user","content":"[offloaded]"}],\n  "stream": true }',
    );
    // the body up to the history, the two items, a comma, the new item, the rest
    expect(parts).toHaveLength(5);
  });
});
