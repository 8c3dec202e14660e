/**
 * The archive text in parts: joined, always exactly `JSON.stringify(items, null, 2)`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyArrayInParts } from '../../../../src/core/compact/archive-json.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';

const join = (items: readonly unknown[]): string => [...stringifyArrayInParts(items)].join('');

// Any UTF-16 text: CJK, emoji (surrogate pairs), lone surrogates, control characters, quotes.
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom('上', '下', '文', '。', '😀', '\uD83D', '\uDE00', '"', '\\', '\n', '\t', '\u2028', ' ', 'a'),
    maxLength: 30,
  }),
);
const leafBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  anyText.map((text) => ({ type: 'text', text })),
  anyText.map((thinking) => ({ type: 'thinking', thinking, signature: 'sig' })),
  fc
    .record({ id: anyText, name: anyText, input: fc.jsonValue() })
    .map(({ id, name, input }) => ({ type: 'tool_use', id, name, input: { value: input } })),
  fc.constant({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }),
);
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  leafBlock,
  fc
    .record({ content: fc.oneof(anyText, fc.array(leafBlock, { maxLength: 3 })), isError: fc.boolean() })
    .map(({ content, isError }) => ({ type: 'tool_result', tool_use_id: 'toolu_x', content, is_error: isError })),
);
const message: fc.Arbitrary<Message> = fc.record({
  role: fc.constantFrom('system', 'user', 'assistant'),
  content: fc.oneof(anyText, fc.array(block, { maxLength: 4 })),
}) as fc.Arbitrary<Message>;

describe('stringifyArrayInParts', () => {
  it('joins to exactly JSON.stringify(messages, null, 2), for any history (CJK, emoji, nested blocks)', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        expect(join(messages)).toBe(JSON.stringify(messages, null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it('joins to exactly JSON.stringify(items, null, 2), for any values, sparse arrays included', () => {
    const value = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(fc.oneof(fc.array(value, { maxLength: 8 }), fc.sparseArray(value, { maxLength: 8 })), (items) => {
        expect(join(items)).toBe(JSON.stringify(items, null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it("is '[]' alone for an empty array", () => {
    expect([...stringifyArrayInParts([])]).toEqual(['[]']);
    expect(join([])).toBe(JSON.stringify([], null, 2));
  });

  it('yields one part per item, then the closing bracket', () => {
    const messages: Message[] = [
      { role: 'user', content: '修复数据库迁移 😀' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ];
    expect([...stringifyArrayInParts(messages)]).toEqual([
      '[\n  {\n    "role": "user",\n    "content": "修复数据库迁移 😀"\n  }',
      ',\n  {\n    "role": "assistant",\n    "content": [\n      {\n        "type": "text",\n        "text": "Done."\n      }\n    ]\n  }',
      '\n]',
    ]);
  });

  it('writes null for what JSON omits from an object, as JSON.stringify does in an array', () => {
    const items = [undefined, () => 1, Symbol('s'), { toJSON: () => undefined }, {}, []];
    expect(join(items)).toBe(JSON.stringify(items, null, 2));
    expect(join(items)).toContain('null,\n  null,\n  null,\n  null,\n  {},\n  []');
  });

  it('passes each item its index to toJSON, as JSON.stringify does', () => {
    const items = [0, 1, 2].map(() => ({ toJSON: (key: string) => ({ key }) }));
    expect(join(items)).toBe(JSON.stringify(items, null, 2));
    expect(join(items)).toContain('"key": "2"');
  });

  it('passes a bigint its index when BigInt.prototype.toJSON is defined', () => {
    const prototype = BigInt.prototype as { toJSON?: (key: string) => string };
    prototype.toJSON = function (this: bigint, key: string) {
      return `${this.toString()}@${key}`;
    };
    try {
      const items = [1n, { big: 2n }, 3n];
      expect(join(items)).toBe(JSON.stringify(items, null, 2));
      expect(join(items)).toContain('"3@2"');
    } finally {
      delete prototype.toJSON;
    }
  });

  it('is lazy: an item is serialized only when its part is asked for, and throws what JSON.stringify throws there', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const parts = stringifyArrayInParts([{ role: 'user', content: 'ok' }, cyclic]);
    expect(parts.next().value).toContain('"ok"');
    expect(() => parts.next()).toThrow(TypeError);
  });
});
