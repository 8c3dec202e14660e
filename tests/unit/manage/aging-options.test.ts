/**
 * The defaults of the as-they-age timing: the smallest older result an aging batch takes.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_AGED_CHARS, resolveAgingOptions } from '../../../src/core/manage/manager-options.js';

describe('as results age: the smallest older result a batch takes', () => {
  it('is a few hundred characters by default, below the direct-offload threshold', () => {
    const { aging } = resolveAgingOptions({}, { contextTokenLimit: 30_000, threshold: 1000 });
    expect(aging.minAgedChars).toBe(DEFAULT_MIN_AGED_CHARS);
    expect(aging.minAgedChars).toBeLessThan(1000);
  });

  it('is the threshold when the threshold is smaller', () => {
    const threshold = DEFAULT_MIN_AGED_CHARS - 1;
    const { aging } = resolveAgingOptions({}, { contextTokenLimit: 30_000, threshold });
    expect(aging.minAgedChars).toBe(threshold);
  });
});
