/**
 * The defaults of the as-they-age timing: the smallest older result an aging batch takes, and
 * the budget the older results stay inline within.
 */
import { describe, expect, it } from 'vitest';
import {
  CHARS_PER_WINDOW_TOKEN,
  DEFAULT_AGED_BUDGET_SHARE,
  DEFAULT_MAX_AGED_BUDGET_CHARS,
  DEFAULT_MIN_AGED_CHARS,
  resolveAgingOptions,
} from '../../../../src/core/manage/manager-options.js';

describe('as results age: the smallest older result a batch takes', () => {
  it('is a few hundred characters by default, below the direct-offload threshold', () => {
    const { aging } = resolveAgingOptions({}, { contextTokenLimit: 30_000 });
    expect(aging.minAgedResultChars).toBe(DEFAULT_MIN_AGED_CHARS);
    expect(aging.minAgedResultChars).toBeLessThan(1000);
  });

  it('is minAgedResultChars when given, smaller or larger than the default', () => {
    expect(
      resolveAgingOptions({ minAgedResultChars: 120 }, { contextTokenLimit: 30_000 }).aging.minAgedResultChars,
    ).toBe(120);
    expect(
      resolveAgingOptions({ minAgedResultChars: 5000 }, { contextTokenLimit: 30_000 }).aging.minAgedResultChars,
    ).toBe(5000);
  });

  it('refuses a minAgedResultChars that is not an integer >= 1, naming it', () => {
    expect(() => resolveAgingOptions({ minAgedResultChars: 0 }, { contextTokenLimit: 30_000 })).toThrow(
      'minAgedResultChars must be an integer >= 1 (a number of characters), got 0',
    );
  });
});

describe('as results age: the budget of the older results', () => {
  it('is a share of a small window', () => {
    const { aging } = resolveAgingOptions({}, { contextTokenLimit: 10_000 });
    expect(aging.agedBudgetChars).toBe(Math.floor(10_000 * CHARS_PER_WINDOW_TOKEN * DEFAULT_AGED_BUDGET_SHARE));
    expect(aging.agedBudgetChars).toBeLessThan(DEFAULT_MAX_AGED_BUDGET_CHARS);
  });

  it('lets a few requests of results pile up in a 30,000-token window before a batch is weighed', () => {
    const { aging } = resolveAgingOptions({}, { contextTokenLimit: 30_000 });
    expect(aging.agedBudgetChars).toBe(DEFAULT_MAX_AGED_BUDGET_CHARS);
    expect(aging.agedBudgetChars).toBeGreaterThan(30_000 * CHARS_PER_WINDOW_TOKEN * 0.1);
  });

  it('does not grow with a large window: batches are for the cost rule to weigh, not held back until late', () => {
    const large = resolveAgingOptions({}, { contextTokenLimit: 200_000 }).aging;
    const larger = resolveAgingOptions({}, { contextTokenLimit: 1_000_000 }).aging;
    expect(large.agedBudgetChars).toBe(DEFAULT_MAX_AGED_BUDGET_CHARS);
    expect(larger.agedBudgetChars).toBe(DEFAULT_MAX_AGED_BUDGET_CHARS);
    expect(DEFAULT_MAX_AGED_BUDGET_CHARS).toBeLessThan(200_000 * CHARS_PER_WINDOW_TOKEN * DEFAULT_AGED_BUDGET_SHARE);
  });

  it('is the one given, above the bound', () => {
    const { aging } = resolveAgingOptions({ agedBudgetChars: 80_000 }, { contextTokenLimit: 200_000 });
    expect(aging.agedBudgetChars).toBe(80_000);
  });
});
