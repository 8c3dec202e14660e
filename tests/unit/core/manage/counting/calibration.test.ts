import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_SMOOTHING,
  createTokenCalibration,
  DEFAULT_CALIBRATION_MARGINS,
  inferProviderFamily,
  MAX_CALIBRATION_RATIO,
  MIN_CALIBRATION_RATIO,
  MIN_CALIBRATION_SAMPLE_TOKENS,
} from '../../../../../src/core/manage/counting/calibration.js';
import { resolveProviderFamily } from '../../../../../src/core/manage/manager-options.js';
import { InvalidOptionError } from '../../../../../src/core/errors.js';
import { ADDED_LOCAL_TOKENS, ADDED_RATIOS, buildUsagePairs, FIXED_PROMPT_TOKENS, quantile } from './usage-series.js';

describe('provider family', () => {
  it.each([
    ['claude-opus-4-5-20251101', 'anthropic'],
    ['anthropic/claude-3-5-haiku-latest', 'anthropic'],
    ['Claude-Opus-4-1', 'anthropic'],
    ['gpt-5', 'openai'],
    ['openai:gpt-4.1-mini', 'openai'],
    ['o3-mini', 'openai'],
    ['chatgpt-4o-latest', 'openai'],
    ['gemini-2.5-pro', 'other'],
    ['llama-3.1-70b-instruct', 'other'],
  ] as const)('infers %s as %s', (model, family) => {
    expect(inferProviderFamily(model)).toBe(family);
  });

  it('takes provider over model, and model over the format', () => {
    expect(resolveProviderFamily('openai', 'claude-sonnet-4-6', 'anthropic')).toBe('openai');
    expect(resolveProviderFamily(undefined, 'gpt-5', 'anthropic')).toBe('openai');
  });

  it('falls back to the format: anthropic, the OpenAI formats, anything else', () => {
    expect(resolveProviderFamily(undefined, undefined, 'anthropic')).toBe('anthropic');
    expect(resolveProviderFamily(undefined, undefined, 'openai-chat')).toBe('openai');
    expect(resolveProviderFamily(undefined, undefined, 'openai-agents')).toBe('openai');
    expect(resolveProviderFamily(undefined, undefined, 'ai-sdk')).toBe('other');
  });

  it('rejects an unknown provider and a blank model, naming the option', () => {
    expect(() => resolveProviderFamily('google', undefined, 'anthropic')).toThrow(InvalidOptionError);
    expect(() => resolveProviderFamily('google', undefined, 'anthropic')).toThrow(
      /provider must be "anthropic", "openai" or "other", got "google"/,
    );
    expect(() => resolveProviderFamily(undefined, '  ', 'anthropic')).toThrow(/model must be a non-empty string/);
  });
});

describe('the series the tests calibrate on', () => {
  it('has the measured shape: median about 1.33, p10 about 1.15, p90 about 1.6', () => {
    expect(quantile(ADDED_RATIOS, 0.5)).toBeGreaterThanOrEqual(1.29);
    expect(quantile(ADDED_RATIOS, 0.5)).toBeLessThanOrEqual(1.37);
    expect(quantile(ADDED_RATIOS, 0.1)).toBeGreaterThanOrEqual(1.13);
    expect(quantile(ADDED_RATIOS, 0.1)).toBeLessThanOrEqual(1.18);
    expect(quantile(ADDED_RATIOS, 0.9)).toBeGreaterThanOrEqual(1.5);
    expect(quantile(ADDED_RATIOS, 0.9)).toBeLessThanOrEqual(1.7);
  });
});

describe('default margins before any usage', () => {
  it('are 1.5 for Claude, 1 for OpenAI, 1.5 for an unknown family', () => {
    expect(DEFAULT_CALIBRATION_MARGINS).toEqual({ anthropic: 1.5, openai: 1, other: 1.5 });
  });

  it('never under-count a Claude history of the series: 1.5 x local >= the messages the provider counted', () => {
    for (const pair of buildUsagePairs()) {
      const providerMessages = pair.providerInputTokens - FIXED_PROMPT_TOKENS;
      expect(DEFAULT_CALIBRATION_MARGINS.anthropic * pair.localTokens).toBeGreaterThanOrEqual(providerMessages);
    }
  });

  it('would under-count without a margin: the local count alone is below the provider count', () => {
    const last = buildUsagePairs().at(-1)!;
    expect(last.localTokens).toBeLessThan(last.providerInputTokens - FIXED_PROMPT_TOKENS);
  });
});

describe('createTokenCalibration', () => {
  it('starts at its margin with no samples', () => {
    const calibration = createTokenCalibration(1.5);
    expect(calibration.ratio).toBe(1.5);
    expect(calibration.samples).toBe(0);
  });

  it('moves a share CALIBRATION_SMOOTHING of the way to each figure', () => {
    const calibration = createTokenCalibration(1.5);
    expect(calibration.observe(1200, 1000)).toBe(true);
    expect(calibration.ratio).toBeCloseTo(1.5 + CALIBRATION_SMOOTHING * (1.2 - 1.5), 10);
    expect(calibration.samples).toBe(1);
  });

  it('clamps an absurd figure to [0.5, 3] before learning from it, and the ratio too', () => {
    const high = createTokenCalibration(1);
    for (let index = 0; index < 50; index += 1) high.observe(1_000_000, 1000);
    expect(high.ratio).toBeLessThanOrEqual(MAX_CALIBRATION_RATIO);
    expect(high.ratio).toBeGreaterThan(2.9);
    const low = createTokenCalibration(1);
    for (let index = 0; index < 50; index += 1) low.observe(1, 1000);
    expect(low.ratio).toBeGreaterThanOrEqual(MIN_CALIBRATION_RATIO);
    expect(low.ratio).toBeLessThan(0.51);
  });

  it('clamps its starting margin', () => {
    expect(createTokenCalibration(10).ratio).toBe(MAX_CALIBRATION_RATIO);
    expect(createTokenCalibration(0.1).ratio).toBe(MIN_CALIBRATION_RATIO);
  });

  it('does not learn from a figure over too few local tokens', () => {
    const calibration = createTokenCalibration(1.5);
    expect(calibration.observe(300, MIN_CALIBRATION_SAMPLE_TOKENS - 1)).toBe(false);
    expect(calibration.ratio).toBe(1.5);
    expect(calibration.samples).toBe(0);
  });

  it.each([
    ['zero provider tokens', 0, 1000],
    ['negative provider tokens', -500, 1000],
    ['NaN', Number.NaN, 1000],
    ['Infinity', Number.POSITIVE_INFINITY, 1000],
    ['infinite local tokens', 1000, Number.POSITIVE_INFINITY],
  ])('does not learn from %s', (_, provider, local) => {
    const calibration = createTokenCalibration(1.5);
    expect(calibration.observe(provider, local)).toBe(false);
    expect(calibration.ratio).toBe(1.5);
  });

  it('learns the series: it ends within the series p10-p90 and near its median', () => {
    const calibration = createTokenCalibration(DEFAULT_CALIBRATION_MARGINS.anthropic);
    ADDED_RATIOS.forEach((ratio, index) =>
      calibration.observe(Math.round(ratio * ADDED_LOCAL_TOKENS[index]!), ADDED_LOCAL_TOKENS[index]!),
    );
    expect(calibration.samples).toBe(ADDED_RATIOS.length);
    expect(calibration.ratio).toBeGreaterThanOrEqual(quantile(ADDED_RATIOS, 0.1));
    expect(calibration.ratio).toBeLessThanOrEqual(quantile(ADDED_RATIOS, 0.9));
    expect(Math.abs(calibration.ratio - quantile(ADDED_RATIOS, 0.5))).toBeLessThan(0.12);
  });

  it('stays within [0.5, 3] whatever the figures', () => {
    const calibration = createTokenCalibration(1.5);
    const figures = [0.01, 100, 1e9, 3, 0.2, 7, 1, 0.5, 2.999, 42];
    for (const factor of figures) {
      calibration.observe(factor * 1000, 1000);
      expect(calibration.ratio).toBeGreaterThanOrEqual(MIN_CALIBRATION_RATIO);
      expect(calibration.ratio).toBeLessThanOrEqual(MAX_CALIBRATION_RATIO);
    }
  });
});
