import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitSummaryToBudget } from '../../../../../src/core/compact/summary/summary-budget.js';
import { hasLoneSurrogate } from '../../../../../src/core/text/text.js';
import { charCounter, createCountingCounter } from '../../../../fixtures/compact-fixtures.js';

const MARKER = /\n\n\[… summary cut to its budget of [\d,]+ tokens: the summarizer returned [\d,]+ characters\]$/;

describe('fitSummaryToBudget: a summary far over its budget', () => {
  it('keeps a summary within its budget as it is, exactly at the budget included', () => {
    expect(fitSummaryToBudget('x'.repeat(100), 100, charCounter)).toEqual({ text: 'x'.repeat(100), cut: false });
  });

  it('cuts a summary one token over its budget, at a line, with the marker', () => {
    const line = 'x'.repeat(29);
    const summary = Array.from({ length: 10 }, () => line).join('\n'); // 299 characters
    const { text, cut } = fitSummaryToBudget(summary, 298, charCounter);
    expect(cut).toBe(true);
    const marker = '\n\n[… summary cut to its budget of 298 tokens: the summarizer returned 299 characters]';
    expect(text.endsWith(marker)).toBe(true);
    // the whole lines that fit with the marker: (298 - marker) / 30 of them
    const lines = Math.floor((298 - marker.length + 1) / 30);
    expect(text).toBe(Array.from({ length: lines }, () => line).join('\n') + marker);
  });

  it('cuts a 4 MB summary of one repeated line to the budget, ending at a whole line', () => {
    const summary = 'I will now fix the test.\n'.repeat(170_000);
    const { text, cut } = fitSummaryToBudget(summary, 3856, charCounter);
    expect(cut).toBe(true);
    expect(charCounter.count(text)).toBeLessThanOrEqual(3856);
    expect(text).toMatch(MARKER);
    expect(text).toContain(`the summarizer returned ${summary.length.toLocaleString('en-US')} characters]`);
    const head = text.replace(MARKER, '');
    expect(head.split('\n').every((line) => line === 'I will now fix the test.')).toBe(true);
    // nearly all of the budget is used
    expect(charCounter.count(text)).toBeGreaterThan(3856 - 2 * 'I will now fix the test.\n'.length);
  });

  it('counts no more than 128 characters per token of the budget, however long the summary', () => {
    const counter = createCountingCounter();
    fitSummaryToBudget('z'.repeat(4_000_000), 1000, counter);
    expect(Math.max(...counter.calls.map((text) => text.length))).toBeLessThanOrEqual(1000 * 128);
  });

  it('counts a few times the head that fits, however long the summary', () => {
    const counter = createCountingCounter();
    fitSummaryToBudget('z'.repeat(4_000_000), 1000, counter);
    const counted = counter.calls.reduce((sum, text) => sum + text.length, 0);
    expect(counted).toBeLessThanOrEqual(10 * 1000);
  });

  it('counts a summary within its budget a few times over at most, to find it whole', () => {
    const counter = createCountingCounter();
    const summary = 'y'.repeat(999);
    expect(fitSummaryToBudget(summary, 1000, counter)).toEqual({ text: summary, cut: false });
    const counted = counter.calls.reduce((sum, text) => sum + text.length, 0);
    expect(counted).toBeLessThanOrEqual(2 * summary.length);
  });

  it('cuts a line with no break inside it, never splitting a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 200, maxLength: 600 }),
        fc.integer({ min: 100, max: 150 }),
        (summary, budget) => {
          const { text, cut } = fitSummaryToBudget(summary, budget, charCounter);
          expect(charCounter.count(text)).toBeLessThanOrEqual(budget);
          expect(cut).toBe(summary.length > budget);
          expect(hasLoneSurrogate(text)).toBe(false);
        },
      ),
    );
  });

  it('fits a counter that counts more tokens than characters', () => {
    const doubleCounter = { count: (text: string) => 2 * text.length };
    const { text, cut } = fitSummaryToBudget('word '.repeat(1000), 500, doubleCounter);
    expect(cut).toBe(true);
    expect(doubleCounter.count(text)).toBeLessThanOrEqual(500);
  });
});
