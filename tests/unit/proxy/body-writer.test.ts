/**
 * Writing a request body with a new history: the client's bytes for what the history change
 * left alone, JSON for the rest, and the value is the body with the new history.
 */
import { describe, expect, it } from 'vitest';
import { createBodyParser } from '../../../src/proxy/body-parser.js';
import { writeBodyPartsWithHistory, writeBodyWithHistory } from '../../../src/proxy/body-writer.js';

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

  it('sends a long stretch of items sent as they came as one slice of the client bytes, separators included', () => {
    const long = 'x'.repeat(40_000);
    const raw = `{"messages": [ {"role": "user", "content": "${long}"} ,\n {"role": "assistant", "content": "${long}"}, {"role": "user", "content": "three"} ], "stream": true}`;
    const { body, value, layout } = parse(raw);
    const [first, second] = value.messages;
    const replaced = { role: 'user', content: '[offloaded]' };
    const parts = writeBodyPartsWithHistory(body, layout, value.messages, [first, second, replaced]);
    const stretch = `{"role": "user", "content": "${long}"} ,\n {"role": "assistant", "content": "${long}"}`;

    expect(Buffer.concat(parts).toString('utf8')).toBe(
      `{"messages": [${stretch},{"role":"user","content":"[offloaded]"}], "stream": true}`,
    );
    // no copy of the long stretch: a view of the client's own bytes
    expect(parts.some((part) => part.buffer === body.buffer && part.toString('utf8') === stretch)).toBe(true);
  });
  it('writes the JSON of an item it wrote before once: the manager hands back the same object at each request', () => {
    const { body, value, layout } = parse(RAW);
    const replaced = { role: 'user', content: `[offloaded] ${'y'.repeat(70_000)}` };
    const first = writeBodyPartsWithHistory(body, layout, value.messages, [value.messages[0], replaced]);
    const again = writeBodyPartsWithHistory(body, layout, value.messages, [value.messages[0], replaced]);
    const written = first.find((part) => part.length > 70_000);

    expect(written?.toString('utf8')).toBe(JSON.stringify(replaced));
    expect(again.find((part) => part.length > 70_000)).toBe(written);
  });
});
