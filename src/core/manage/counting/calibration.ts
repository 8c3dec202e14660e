/**
 * Self-calibrating token counts. The local tokenizer (o200k) is not every provider's: Claude
 * counts about a third more for the same messages. Each usage figure the provider reports
 * teaches the manager the ratio provider tokens / local tokens for the messages added since the
 * previous figure; the ratio scales every local estimate (the messages the provider has not
 * counted yet). Until the first figure arrives, a margin per provider family keeps the estimate
 * from under-counting.
 */

/** Which tokenizer family the model belongs to: it decides the margin used before any usage arrives. */
export type ProviderFamily = 'anthropic' | 'openai' | 'other';

/**
 * Provider tokens per local (o200k) token assumed before the first usage figure arrives.
 * - `anthropic` 1.5: on real Claude Code sessions the provider counted a median 1.29x-1.37x the
 *   local count for the same messages (p10 1.13-1.18, p90 1.5-1.7); 1.5 sits above the median
 *   with room, and a whole history's ratio stays near the median.
 * - `openai` 1: o200k is the tokenizer of OpenAI's current models; the local count is theirs.
 * - `other` 1.5: an unknown tokenizer is assumed to count like the one measured to count most.
 */
export const DEFAULT_CALIBRATION_MARGINS: Readonly<Record<ProviderFamily, number>> = Object.freeze({
  anthropic: 1.5,
  openai: 1,
  other: 1.5,
});

/** The learned ratio never leaves this range, whatever a figure says. */
export const MIN_CALIBRATION_RATIO = 0.5;
/** See {@link MIN_CALIBRATION_RATIO}. */
export const MAX_CALIBRATION_RATIO = 3;
/**
 * Weight of each new figure in the smoothed ratio (exponential moving average): a figure moves
 * the ratio 30% of the way to itself, so one odd request cannot swing it, and about ten requests
 * replace the starting margin.
 */
export const CALIBRATION_SMOOTHING = 0.3;
/**
 * Figures covering fewer local tokens than this are not learned from: on a few tokens the fixed
 * per-message overheads and rounding dominate the ratio.
 */
export const MIN_CALIBRATION_SAMPLE_TOKENS = 100;

/**
 * The family of a model, from its name: `claude-*` is `'anthropic'`; `gpt-*`, `chatgpt-*`,
 * `o1`, `o3`, `o4`... and `codex-*` are `'openai'`; anything else `'other'`. A provider prefix
 * (`anthropic/claude-sonnet-4-6`, `openai:gpt-5`) is looked through.
 */
export function inferProviderFamily(model: string): ProviderFamily {
  const name = model.toLowerCase().replace(/^.*[/:]/, '');
  if (name.startsWith('claude')) return 'anthropic';
  if (/^(?:gpt-|chatgpt|o\d|codex)/.test(name)) return 'openai';
  return 'other';
}

function clampRatio(ratio: number): number {
  return Math.min(MAX_CALIBRATION_RATIO, Math.max(MIN_CALIBRATION_RATIO, ratio));
}

/**
 * The smallest move of the ratio, as a share of the ratio in force, that a usage figure must make
 * to be worth recording: 2%, a figure within 6.7% of the ratio. Claude's figures spread about ±14%
 * from request to request (p10 1.13x, p90 1.6x), so the smoothed ratio itself wanders by about ±6%
 * (the moving average keeps 0.42 of the spread); a figure inside that moves it by less than its own
 * noise. The next figure, learned against the last one recorded, counts its messages too, so
 * nothing is dropped: the ratio in force is at most 6.7% from what the figures since say, and only
 * scales the messages the provider has not counted yet.
 */
const MIN_RECORDED_RATIO_SHIFT = 0.02;

/**
 * Whether learning moved `before` to an `after` worth recording: a figure that taught nothing
 * (too few tokens) or moved the ratio by less than {@link MIN_RECORDED_RATIO_SHIFT} of it is not.
 */
export function movesCalibration(before: CalibrationState, after: CalibrationState): boolean {
  if (after.samples === before.samples) return false;
  return Math.abs(after.ratio - before.ratio) > MIN_RECORDED_RATIO_SHIFT * before.ratio;
}

/** A calibration's state: the smoothed ratio provider tokens / local tokens, and how many figures it learned from. */
export interface CalibrationState {
  readonly ratio: number;
  readonly samples: number;
}

/**
 * `calibration` after learning that the provider counted `providerTokens` for messages the local
 * tokenizer counts `localTokens`; `undefined` (nothing learned) when `localTokens` is below
 * {@link MIN_CALIBRATION_SAMPLE_TOKENS} or either figure is not a positive finite number. Pure:
 * the same figures learned in the same order give the same ratio in any process.
 */
export function learnCalibration(
  calibration: CalibrationState,
  providerTokens: number,
  localTokens: number,
): CalibrationState | undefined {
  const usable =
    Number.isFinite(providerTokens) &&
    Number.isFinite(localTokens) &&
    providerTokens > 0 &&
    localTokens >= MIN_CALIBRATION_SAMPLE_TOKENS;
  if (!usable) return undefined;
  // the sample is clamped too: one absurd figure moves the ratio by at most 30% of the range
  const sample = clampRatio(providerTokens / localTokens);
  const ratio = clampRatio(calibration.ratio);
  return { ratio: clampRatio(ratio + CALIBRATION_SMOOTHING * (sample - ratio)), samples: calibration.samples + 1 };
}

/** The smoothed ratio provider tokens / local tokens, and how many figures it learned from. */
export interface TokenCalibration {
  /** Provider tokens per local token: the starting margin until a figure is learned. */
  readonly ratio: number;
  /** Figures learned so far. */
  readonly samples: number;
  /**
   * Learns from one figure: the provider counted `providerTokens` for messages the local
   * tokenizer counts `localTokens`. Ignored when `localTokens` is below
   * {@link MIN_CALIBRATION_SAMPLE_TOKENS} or either figure is not a positive finite number.
   * Returns whether it was learned.
   */
  observe(providerTokens: number, localTokens: number): boolean;
}

/** A calibration starting at `initialRatio` (the family's margin), clamped to [0.5, 3]. */
export function createTokenCalibration(initialRatio: number): TokenCalibration {
  let ratio = clampRatio(initialRatio);
  let samples = 0;
  return {
    get ratio() {
      return ratio;
    },
    get samples() {
      return samples;
    },
    observe(providerTokens, localTokens) {
      const learned = learnCalibration({ ratio, samples }, providerTokens, localTokens);
      if (learned === undefined) return false;
      ({ ratio, samples } = learned);
      return true;
    },
  };
}

/** What picks the ratio local counts are scaled by, outside the manager (`shouldCompact`). */
export interface EstimateRatioOptions {
  /** A ratio given outright: it wins. */
  tokenSafetyFactor?: number | undefined;
  /** The provider family of the model the history goes to. */
  provider?: ProviderFamily | undefined;
  /** The model the history goes to: its name gives the family when `provider` is not given. */
  model?: string | undefined;
}

/**
 * The ratio a history's local counts are scaled by before any usage figure taught one: the
 * `tokenSafetyFactor` given, else the margin the manager's calibration starts from for the family
 * (`provider`, else inferred from `model`, else `'other'`), so that a trigger check outside the
 * manager says what the manager's first check says.
 */
export function resolveEstimateRatio(options: EstimateRatioOptions): number {
  if (options.tokenSafetyFactor !== undefined) return options.tokenSafetyFactor;
  const family = options.provider ?? (options.model === undefined ? 'other' : inferProviderFamily(options.model));
  return DEFAULT_CALIBRATION_MARGINS[family];
}
