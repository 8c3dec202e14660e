import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countWords, truncateToWords } from '../../../../src/core/text/words.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('countWords', () => {
  it('counts whitespace-separated words', () => {
    expect(countWords('Fix the failing test')).toBe(4);
    expect(countWords('  leading and\ttrailing\n\nspace  ')).toBe(4);
    expect(countWords('')).toBe(0);
  });

  it('counts paths, contractions and dates as one word each', () => {
    expect(countWords("src/core/index.ts don't 2026-11-21")).toBe(3);
  });

  it('does not count Markdown markers and lone punctuation', () => {
    expect(countWords('## Task Status')).toBe(2);
    expect(countWords('- item → done — ok')).toBe(3);
    expect(countWords('> quoted […]')).toBe(1);
  });

  it('counts each Chinese, Japanese or Korean character as a word', () => {
    expect(countWords('修复测试')).toBe(4);
    expect(countWords('修复测试 in CI')).toBe(6);
    expect(countWords('テストを直す')).toBe(6);
    expect(countWords('테스트')).toBe(3);
  });

  it('does not count CJK punctuation', () => {
    expect(countWords('你好，世界。')).toBe(4);
  });

  it('counts a word glued to CJK characters separately', () => {
    expect(countWords('运行npm测试')).toBe(5);
  });
});

describe('truncateToWords', () => {
  it('keeps the first N words, ending right after the last one', () => {
    expect(truncateToWords('one two three four', 2)).toBe('one two');
    expect(truncateToWords('修复测试', 2)).toBe('修复');
  });

  it('returns the text itself when it fits', () => {
    const text = 'one two.';
    expect(truncateToWords(text, 2)).toBe(text);
    expect(truncateToWords(text, 10)).toBe(text);
  });

  it('returns an empty string for a budget of 0', () => {
    expect(truncateToWords('one', 0)).toBe('');
  });

  it('never splits a surrogate pair', () => {
    const cut = truncateToWords('a😀b c', 1);
    expect(cut).toBe('a😀b');
    expect(cut).not.toMatch(LONE_SURROGATE);
  });

  it('property: the result is a prefix holding min(N, words) words', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite', maxLength: 200 }), fc.nat(40), (text, maxWords) => {
        const cut = truncateToWords(text, maxWords);
        expect(text.startsWith(cut)).toBe(true);
        expect(countWords(cut)).toBe(Math.min(maxWords, countWords(text)));
      }),
    );
  });
});
