import { describe, expect, it } from 'vitest';
import { priceInDollars, priceTokens, selectCostModel } from '../../../../src/core/cost/cost-model.js';
import { InvalidOptionError } from '../../../../src/core/errors.js';

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('selectCostModel', () => {
  describe('the family', () => {
    it('follows provider "anthropic": reads at 0.1, writes at 1.25', () => {
      expect(selectCostModel({ provider: 'anthropic' })).toMatchObject({
        family: 'anthropic',
        readRatio: 0.1,
        writeRatio: 1.25,
      });
    });

    it('follows provider "openai": no write premium', () => {
      expect(selectCostModel({ provider: 'openai' })).toMatchObject({ family: 'openai', writeRatio: 1 });
    });

    it('gives provider "other" no cache: every token at the input price', () => {
      expect(selectCostModel({ provider: 'other' })).toMatchObject({ family: 'none', readRatio: 1, writeRatio: 1 });
    });

    it('takes the family from the model name when provider is not given', () => {
      expect(selectCostModel({ model: 'claude-sonnet-4-6' }).family).toBe('anthropic');
      expect(selectCostModel({ model: 'openai/gpt-5' }).family).toBe('openai');
      expect(selectCostModel({ model: 'o4-mini' }).family).toBe('openai');
    });

    it('lets provider win over the model name', () => {
      expect(selectCostModel({ provider: 'other', model: 'gpt-4o' }).family).toBe('none');
    });

    it('prices a model of neither family by its tokens, as provider "other"', () => {
      expect(selectCostModel({ model: 'llama-3-70b' }).family).toBe('none');
    });

    it('falls back to Anthropic prices when neither provider nor model is given', () => {
      expect(selectCostModel({}).family).toBe('anthropic');
    });
  });

  describe('the OpenAI discount per model', () => {
    it.each([
      ['gpt-4o', 0.5],
      ['gpt-4o-mini-2024-07-18', 0.5],
      ['gpt-4.1', 0.25],
      ['gpt-4.1-mini', 0.25],
      ['o3', 0.25],
      ['o3-mini', 0.5],
      ['o4-mini', 0.25],
      ['gpt-5', 0.1],
      ['gpt-5-mini', 0.1],
      ['gpt-5.1-codex', 0.1],
      ['gpt-35-turbo', 0.5],
    ])('reads %s from the cache at %s of the input price', (model, readRatio) => {
      expect(selectCostModel({ model }).readRatio).toBe(readRatio);
    });

    it('takes the least discount for an OpenAI model it does not know', () => {
      expect(selectCostModel({ provider: 'openai', model: 'my-fine-tune' }).readRatio).toBe(0.5);
    });

    it('prices a known model at its input price and an unknown one at the default', () => {
      expect(selectCostModel({ model: 'gpt-4.1' }).inputPricePerMTok).toBe(2);
      expect(selectCostModel({ model: 'claude-opus-4-1' }).inputPricePerMTok).toBe(15);
      expect(selectCostModel({ provider: 'openai', model: 'my-fine-tune' }).inputPricePerMTok).toBe(3);
    });
  });

  describe('override', () => {
    it('writes at 2x for an hour-long Anthropic entry', () => {
      expect(selectCostModel({ provider: 'anthropic', override: { cacheTtl: '1h' } }).writeRatio).toBe(2);
    });

    it('ignores cacheTtl for a family with no write premium', () => {
      expect(selectCostModel({ provider: 'openai', override: { cacheTtl: '1h' } }).writeRatio).toBe(1);
    });

    it('lets each given field win over the selection', () => {
      const model = selectCostModel({
        model: 'gpt-4o',
        override: { readRatio: 0.3, writeRatio: 1.1, inputPricePerMTok: 7 },
      });
      expect(model).toEqual({ family: 'openai', readRatio: 0.3, writeRatio: 1.1, inputPricePerMTok: 7 });
    });

    it('takes the ratios of an overriding family', () => {
      expect(selectCostModel({ model: 'claude-sonnet-4-6', override: { family: 'openai' } })).toMatchObject({
        family: 'openai',
        writeRatio: 1,
      });
    });

    it('does not change the override it is given', () => {
      const override = Object.freeze({ readRatio: 0.2 });
      selectCostModel({ provider: 'anthropic', override });
      expect(override).toEqual({ readRatio: 0.2 });
    });
  });

  describe('bad input', () => {
    it.each([
      [{ provider: 'google' }, 'provider must be "anthropic", "openai" or "other", got "google"'],
      [{ provider: 'toString' }, 'provider must be "anthropic", "openai" or "other", got "toString"'],
      [{ model: '' }, 'model must be a non-empty string'],
      [{ override: { readRatio: -1 } }, 'cost.readRatio must be a finite number >= 0, got -1'],
      [{ override: { writeRatio: Number.NaN } }, 'cost.writeRatio must be a finite number >= 0, got NaN'],
      [{ override: { inputPricePerMTok: '3' } }, 'cost.inputPricePerMTok must be a finite number >= 0, got "3"'],
      [{ override: { family: 'gemini' } }, 'cost.family must be "anthropic", "openai" or "none", got "gemini"'],
      [{ override: { cacheTtl: '1d' } }, 'cost.cacheTtl must be "5m" or "1h", got "1d"'],
      [{ override: 5 }, 'cost must be an object'],
    ])('rejects %j naming the field', (input, message) => {
      const error = catchError(() => selectCostModel(input as Parameters<typeof selectCostModel>[0]));
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toContain(message);
    });
  });
});

describe('priceTokens', () => {
  const anthropic = selectCostModel({ provider: 'anthropic' });

  it('reads the cached prefix and writes the rest', () => {
    expect(priceTokens(anthropic, 1000, 800)).toBeCloseTo(800 * 0.1 + 200 * 1.25, 10);
  });

  it('counts a cached prefix longer than the request as the whole request', () => {
    expect(priceTokens(anthropic, 1000, 5000)).toBeCloseTo(100, 10);
  });

  it('charges an OpenAI request with nothing cached the plain input price', () => {
    expect(priceTokens(selectCostModel({ model: 'gpt-5' }), 1000, 0)).toBe(1000);
  });

  it('turns units into dollars at the input price', () => {
    expect(priceInDollars(selectCostModel({ model: 'gpt-4.1' }), 1_000_000)).toBe(2);
  });
});
