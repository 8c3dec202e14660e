import { describe, expect, it } from 'vitest';
import { countBlockChars, countMessageChars, countToolResultChars } from '../../../../src/core/text/char-count.js';
import type { ContentBlock } from '../../../../src/core/types.js';

describe('countToolResultChars', () => {
  it('counts a string by .length, in UTF-16 code units', () => {
    expect(countToolResultChars('hello')).toBe(5);
    expect(countToolResultChars('中文')).toBe(2);
    expect(countToolResultChars('😀')).toBe(2);
    expect(countToolResultChars('')).toBe(0);
  });

  it('counts an array by JSON.stringify(content).length', () => {
    const content: ContentBlock[] = [{ type: 'text', text: 'a"b' }];
    expect(countToolResultChars(content)).toBe(JSON.stringify(content).length);
    expect(countToolResultChars(content)).toBe('[{"type":"text","text":"a\\"b"}]'.length);
    expect(countToolResultChars([])).toBe(2);
  });

  it('leaves out the base64 data of an image or a document in an array: a screenshot is not a long text', () => {
    const screenshot = 'iVBORw0KGgo'.repeat(20_000);
    const content = [
      { type: 'text', text: 'Captured a screenshot' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: screenshot } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } },
    ];
    expect(countToolResultChars(content)).toBe(JSON.stringify(content).length - screenshot.length - 'JVBERi0x'.length);
    expect(countToolResultChars(content)).toBeLessThan(300);
  });

  it('counts missing content as 0', () => {
    expect(countToolResultChars(undefined)).toBe(0);
  });
});

describe('countBlockChars', () => {
  it.each<[string, ContentBlock, number]>([
    ['text → text.length', { type: 'text', text: 'abc' }, 3],
    [
      'tool_use → JSON.stringify(input).length',
      { type: 'tool_use', id: 't', name: 'read_file', input: { path: 'a.ts' } },
      15,
    ],
    ['tool_result string', { type: 'tool_result', tool_use_id: 't', content: 'abcd' }, 4],
    [
      'tool_result array',
      { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: '' }] },
      '[{"type":"text","text":""}]'.length,
    ],
    ['thinking → thinking.length', { type: 'thinking', thinking: 'hmm', signature: 'sig'.repeat(100) }, 3],
    ['image → 0', { type: 'image', source: { type: 'base64', data: 'A'.repeat(1000) } }, 0],
    ['redacted_thinking → 0', { type: 'redacted_thinking', data: 'x'.repeat(50) }, 0],
    ['server_tool_use → 0', { type: 'server_tool_use', id: 's', name: 'web_search', input: { query: 'q' } }, 0],
  ])('%s', (_label, block, expected) => {
    expect(countBlockChars(block)).toBe(expected);
  });
});

describe('countMessageChars', () => {
  it('counts string content by .length and block content as the sum of its blocks', () => {
    expect(countMessageChars({ role: 'user', content: 'hello' })).toBe(5);
    expect(
      countMessageChars({
        role: 'user',
        content: [
          { type: 'text', text: 'ab' },
          { type: 'tool_result', tool_use_id: 't', content: 'cde' },
          { type: 'image', source: {} },
        ],
      }),
    ).toBe(5);
  });
});
