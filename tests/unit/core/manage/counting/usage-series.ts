/**
 * A Claude agent loop's usage figures against local o200k counts, shaped like the measurements
 * of two Claude Code sessions with claude-sonnet-4-6 (79 requests): for the
 * messages each request added, the provider counted a median 1.29x-1.37x the local count, p10
 * 1.13x-1.18x, p90 1.5x-1.7x. Each entry is one request: the local tokens of the messages it
 * added, and the provider's ratio for them; the prompt's fixed part (system prompt and tools,
 * which the messages do not hold) is `FIXED_PROMPT_TOKENS`.
 */
import {
  learnCalibration,
  movesCalibration,
  type CalibrationState,
} from '../../../../../src/core/manage/counting/calibration.js';

/** Provider tokens of what every request sends besides the messages (system prompt, tool definitions). */
export const FIXED_PROMPT_TOKENS = 14_000;

/** Provider tokens per local token for the messages each request added. */
export const ADDED_RATIOS: readonly number[] = [
  1.31, 1.12, 1.45, 1.36, 1.62, 1.28, 1.19, 1.33, 1.71, 1.25, 1.38, 1.16, 1.52, 1.3, 1.41, 1.22, 1.35, 1.58, 1.27, 1.14,
  1.34, 1.47, 1.29, 1.66, 1.37, 1.21, 1.32, 1.43, 1.18, 1.55, 1.26, 1.39, 1.33, 1.24, 1.49, 1.3, 1.36, 1.17, 1.6, 1.28,
];

/** Local tokens of the messages each request added (tool results of a few hundred to a few thousand tokens). */
export const ADDED_LOCAL_TOKENS: readonly number[] = ADDED_RATIOS.map((_, index) => 400 + ((index * 379) % 2600));

/** One request of the series: what it added, and the prompt size the provider reported for it. */
export interface UsagePair {
  /** Local tokens of the messages added since the previous request. */
  addedLocalTokens: number;
  /** The provider's prompt size for this request (fixed part + every message so far). */
  providerInputTokens: number;
  /** Local tokens of every message so far. */
  localTokens: number;
}

/** The series as cumulative pairs, request by request. */
export function buildUsagePairs(): UsagePair[] {
  let provider = FIXED_PROMPT_TOKENS;
  let local = 0;
  return ADDED_RATIOS.map((ratio, index) => {
    const added = ADDED_LOCAL_TOKENS[index]!;
    provider += Math.round(ratio * added);
    local += added;
    return { addedLocalTokens: added, providerInputTokens: provider, localTokens: local };
  });
}

/** The `q` quantile (0-1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * The calibration in force after the manager has learned the figures of `pairs`, in order: the
 * first only anchors; each later one learns against the last figure recorded, and is recorded
 * (becomes the next one's anchor) only when it moves the ratio by more than the recorded shift.
 */
export function learnAsRecorded(pairs: readonly UsagePair[], initialRatio: number): CalibrationState {
  let calibration: CalibrationState = { ratio: initialRatio, samples: 0 };
  let anchor = pairs[0];
  for (const pair of pairs.slice(1)) {
    if (anchor === undefined) break;
    const learned =
      learnCalibration(
        calibration,
        pair.providerInputTokens - anchor.providerInputTokens,
        pair.localTokens - anchor.localTokens,
      ) ?? calibration;
    if (!movesCalibration(calibration, learned)) continue;
    calibration = learned;
    anchor = pair;
  }
  return calibration;
}
