import { describe, expect, it } from 'vitest';
import {
  fitCompactBudgets,
  MIN_SUMMARY_WORDS,
  RESTORED_FILE_FRAME_TOKENS,
  SUMMARY_FRAME_TOKENS,
  TOKENS_PER_SUMMARY_WORD,
} from '../../../../../src/core/manage/compaction/room-to-spare.js';
import type { CompactBudgets } from '../../../../../src/core/manage/types.js';

const DEFAULTS: CompactBudgets = {
  summaryMaxWords: 1200,
  maxRestoreFiles: 5,
  maxRestoreTokensPerFile: 5000,
  maxRestoreTokensTotal: 50_000,
};

/** Provider tokens the compacted context takes at most with these budgets. */
function worstCase(budgets: CompactBudgets, keptTokens: number, ratio: number): number {
  const summary = (budgets.summaryMaxWords * TOKENS_PER_SUMMARY_WORD + SUMMARY_FRAME_TOKENS) * ratio;
  const files =
    budgets.maxRestoreFiles === 0
      ? 0
      : (budgets.maxRestoreTokensTotal + budgets.maxRestoreFiles * RESTORED_FILE_FRAME_TOKENS) * ratio;
  return keptTokens + summary + files;
}

describe('a compacted context fits with room to spare', () => {
  it('keeps the configured budgets when the window is large (200,000 tokens: target 92,000)', () => {
    expect(fitCompactBudgets({ targetTokens: 92_000, keptTokens: 3000, ratio: 1, configured: DEFAULTS })).toEqual(
      DEFAULTS,
    );
  });

  it('shrinks the restore budgets to fit a 30,000-token window (trigger 27,600, target 13,800)', () => {
    const budgets = fitCompactBudgets({ targetTokens: 13_800, keptTokens: 800, ratio: 1.5, configured: DEFAULTS });
    expect(budgets.maxRestoreTokensTotal).toBeLessThan(DEFAULTS.maxRestoreTokensTotal);
    expect(budgets.maxRestoreTokensTotal).toBeGreaterThan(0);
    expect(budgets.maxRestoreTokensPerFile).toBeLessThanOrEqual(budgets.maxRestoreTokensTotal);
    expect(worstCase(budgets, 800, 1.5)).toBeLessThanOrEqual(13_800);
  });

  it('gives the summary at most half of the room left by the kept messages', () => {
    const budgets = fitCompactBudgets({ targetTokens: 4000, keptTokens: 1000, ratio: 1, configured: DEFAULTS });
    const free = 4000 - 1000 - SUMMARY_FRAME_TOKENS;
    expect(budgets.summaryMaxWords * TOKENS_PER_SUMMARY_WORD).toBeLessThanOrEqual(free / 2);
    expect(budgets.summaryMaxWords).toBeLessThan(DEFAULTS.summaryMaxWords);
    expect(worstCase(budgets, 1000, 1)).toBeLessThanOrEqual(4000);
  });

  it('restores nothing and keeps a minimal summary when the kept messages alone fill the target', () => {
    const budgets = fitCompactBudgets({ targetTokens: 2000, keptTokens: 2500, ratio: 1.2, configured: DEFAULTS });
    expect(budgets).toEqual({
      summaryMaxWords: MIN_SUMMARY_WORDS,
      maxRestoreFiles: 0,
      maxRestoreTokensPerFile: 0,
      maxRestoreTokensTotal: 0,
    });
  });

  it('never raises a budget above what was configured', () => {
    const configured: CompactBudgets = {
      summaryMaxWords: 30,
      maxRestoreFiles: 1,
      maxRestoreTokensPerFile: 100,
      maxRestoreTokensTotal: 100,
    };
    expect(fitCompactBudgets({ targetTokens: 1_000_000, keptTokens: 0, ratio: 1, configured })).toEqual(configured);
  });

  it('fits every window from 8,000 to 1,000,000 tokens, kept messages taking a tenth of the target', () => {
    for (const targetTokens of [4000, 8000, 13_800, 30_000, 92_000, 460_000]) {
      for (const ratio of [1, 1.33, 1.5, 3]) {
        const keptTokens = Math.floor(targetTokens / 10);
        const budgets = fitCompactBudgets({ targetTokens, keptTokens, ratio, configured: DEFAULTS });
        expect(worstCase(budgets, keptTokens, ratio)).toBeLessThanOrEqual(targetTokens);
      }
    }
  });
});
