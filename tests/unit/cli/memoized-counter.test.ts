import { describe, expect, it } from 'vitest';
import { createMemoizedCounter, DIGESTED_TEXT_MIN_CHARS } from '../../../src/cli/memoized-counter.js';
import { defaultTokenCounter } from '../../../src/infrastructure/tokenizer.js';

/** A count that records every text it is asked for. */
function createRecordingCount(): { count: (text: string) => number; seen: string[] } {
  const seen: string[] = [];
  return { seen, count: (text) => (seen.push(text), text.length + (text.codePointAt(text.length - 1) ?? 0)) };
}

describe('createMemoizedCounter', () => {
  it('counts each distinct text once, short or long', () => {
    const inner = createRecordingCount();
    const counter = createMemoizedCounter({ count: inner.count });
    const long = 'a'.repeat(DIGESTED_TEXT_MIN_CHARS + 5);
    for (let round = 0; round < 3; round += 1) {
      expect(counter.count('short')).toBe(inner.count('short'));
      expect(counter.count(long)).toBe(inner.count(long));
    }
    // three direct calls per text above, one through the memo
    expect(inner.seen.filter((text) => text === 'short')).toHaveLength(4);
    expect(inner.seen.filter((text) => text === long)).toHaveLength(4);
  });

  it('tells apart long texts of one length that differ only in their last character', () => {
    const inner = createRecordingCount();
    const counter = createMemoizedCounter({ count: inner.count });
    const body = 'x'.repeat(30_000);
    const texts = ['a', 'b', 'c'].map((last) => body + last);
    expect(texts.map((text) => counter.count(text))).toEqual(
      texts.map((text) => text.length + text.codePointAt(text.length - 1)!),
    );
    expect(inner.seen).toHaveLength(3);
  });

  it('keeps the encoding of the counter it wraps, and claims none for a counter without one', () => {
    expect(createMemoizedCounter(defaultTokenCounter).encoding).toBe('o200k_base');
    expect(createMemoizedCounter({ count: (text) => text.length }).encoding).toBeUndefined();
  });
});
