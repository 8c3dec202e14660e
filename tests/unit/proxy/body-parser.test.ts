/**
 * The proxy's request body parser: a body that repeats an earlier one of the same credential
 * takes the items the two share byte for byte as they were parsed, and parses only the rest;
 * whatever the body, the value is the one `JSON.parse` gives, and so is the error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBodyParser } from '../../../src/proxy/body-parser.js';

/** Strings with what a scanner of JSON could trip on: quotes, backslashes, brackets, multi-byte characters. */
const trickyText = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\\', '\\"', '{', '}', '[', ']', ',', ':', 'é', '数', '😀', '\n', '\u0000'),
  maxLength: 30,
});
const item = fc.record({
  role: fc.constantFrom('user', 'assistant'),
  content: fc.oneof(
    trickyText,
    fc.array(
      fc.record({
        type: fc.constant('text'),
        text: trickyText,
        n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
      }),
      { maxLength: 3 },
    ),
  ),
});

/** A body as a client writes it: `fields` around the history, with or without spaces. */
function writeBody(items: readonly unknown[], spaced: boolean, historyFirst = false): Buffer {
  const fields = { model: 'claude-x', system: 'You are "terse" \\ é', max_tokens: 5 };
  const body = historyFirst ? { messages: items, ...fields } : { ...fields, messages: items, stream: true };
  return Buffer.from(JSON.stringify(body, null, spaced ? 2 : undefined), 'utf8');
}

function historyOf(value: unknown): unknown[] {
  return (value as { messages: unknown[] }).messages;
}

describe('parsing a body that repeats an earlier one', () => {
  it('gives what JSON.parse gives, for any history grown, cut or changed between two requests', () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 8 }),
        fc.array(item, { maxLength: 8 }),
        fc.nat(8),
        fc.boolean(),
        fc.boolean(),
        (first, added, keep, spaced, historyFirst) => {
          const parser = createBodyParser(4);
          const earlier = writeBody(first, spaced, historyFirst);
          expect(parser.parse(earlier, 'k').value).toEqual(JSON.parse(earlier.toString('utf8')));
          const later = writeBody([...first.slice(0, keep), ...added], spaced, historyFirst);
          expect(parser.parse(later, 'k').value).toEqual(JSON.parse(later.toString('utf8')));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hands back the very objects of the items both bodies hold byte for byte, and new ones for the rest', () => {
    const parser = createBodyParser(4);
    const items = [
      { role: 'user', content: 'Fix the "rounding" bug \\ please' },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading é 数 😀' }] },
      { role: 'user', content: [{ type: 'text', text: 'last', cache_control: { type: 'ephemeral' } }] },
    ];
    const first = historyOf(parser.parse(writeBody(items, false), 'k').value);
    const next = [
      ...items.slice(0, 2),
      { role: 'user', content: [{ type: 'text', text: 'last' }] },
      { role: 'assistant', content: 'Done.' },
    ];
    const second = historyOf(parser.parse(writeBody(next, false), 'k').value);

    expect(second).toEqual(next);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2]).not.toBe(first[2]);
  });

  it('parses afresh an item whose bytes differ only where the earlier one ended', () => {
    const parser = createBodyParser(4);
    parser.parse(Buffer.from('{"messages":[{"role":"user","content":"a"},12]}'), 'k');
    expect(parser.parse(Buffer.from('{"messages":[{"role":"user","content":"a"},13]}'), 'k').value).toEqual({
      messages: [{ role: 'user', content: 'a' }, 13],
    });
    parser.parse(Buffer.from('{"messages":[{"role":"user","content":"a","n":1}]}'), 'k');
    expect(parser.parse(Buffer.from('{"messages":[{"role":"user","content":"a","n":12}]}'), 'k').value).toEqual({
      messages: [{ role: 'user', content: 'a', n: 12 }],
    });
  });

  it('forgets the least recently used bodies past its bound, and past 8 of one credential', () => {
    const session = (name: string, length: number) =>
      writeBody(
        Array.from({ length }, (_, index) => ({ role: 'user', content: `${name} ${index}` })),
        false,
      );
    const bounded = createBodyParser(1);
    const first = historyOf(bounded.parse(session('a', 1), 'alice').value);
    bounded.parse(session('b', 1), 'bob');
    expect(historyOf(bounded.parse(session('a', 2), 'alice').value)[0]).not.toBe(first[0]);

    const parser = createBodyParser(64);
    const kept = historyOf(parser.parse(session('s0', 1), 'alice').value);
    for (let index = 1; index <= 7; index += 1) parser.parse(session(`s${index}`, 1), 'alice');
    expect(historyOf(parser.parse(session('s0', 2), 'alice').value)[0]).toBe(kept[0]);
    for (let index = 1; index <= 8; index += 1) parser.parse(session(`t${index}`, 1), 'alice');
    expect(historyOf(parser.parse(session('s0', 3), 'alice').value)[0]).not.toBe(kept[0]);
  });

  it('reuses nothing across credentials', () => {
    const parser = createBodyParser(4);
    const body = writeBody([{ role: 'user', content: 'hi' }], false);
    const first = historyOf(parser.parse(body, 'alice').value);
    const second = historyOf(parser.parse(body, 'bob').value);
    expect(second).toEqual(first);
    expect(second[0]).not.toBe(first[0]);
  });

  it('throws the SyntaxError JSON.parse throws for the whole body when the new part is broken', () => {
    const parser = createBodyParser(4);
    const items = [{ role: 'user', content: 'one' }];
    parser.parse(writeBody(items, false), 'k');
    const broken = Buffer.from(
      writeBody([...items, { role: 'assistant', content: 'two' }], false)
        .toString('utf8')
        .replace('"two"', '"two'),
    );
    let expected: unknown;
    try {
      JSON.parse(broken.toString('utf8'));
    } catch (error) {
      expected = error;
    }
    expect(() => parser.parse(broken, 'k')).toThrow(SyntaxError);
    expect(() => parser.parse(broken, 'k')).toThrow((expected as Error).message);
  });

  it('leaves two history fields, or a history key written with escapes, to JSON.parse', () => {
    const parser = createBodyParser(4);
    const twice = Buffer.from(
      '{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}',
    );
    const escaped = Buffer.from(
      '{"m\\u0065ssages":[{"role":"user","content":"c"}],"messages":[{"role":"user","content":"d"}]}',
    );
    for (const body of [twice, escaped, twice, escaped])
      expect(parser.parse(body, 'k')).toEqual({ value: JSON.parse(body.toString('utf8')), layout: undefined });
  });

  it('finds the bytes of each history item, which parse to that item', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.boolean(), (items, spaced) => {
        const body = writeBody(items, spaced);
        const { layout } = createBodyParser(1).parse(body, 'k');
        const spans = layout?.spans ?? [];
        expect(spans).toHaveLength(items.length * 2);
        // compared with the item as JSON gives it back (-0 comes back as 0)
        items.forEach((expected, index) =>
          expect(JSON.parse(body.toString('utf8', spans[index * 2], spans[index * 2 + 1]))).toEqual(
            JSON.parse(JSON.stringify(expected)),
          ),
        );
        expect(body.toString('utf8', layout?.arrayStart, layout?.arrayEnd)).toBe(
          JSON.stringify(items, null, spaced ? 2 : undefined).replaceAll('\n', `\n${spaced ? '  ' : ''}`),
        );
      }),
    );
  });
});
