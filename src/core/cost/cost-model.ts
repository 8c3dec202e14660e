/**
 * What a request costs with prompt caching, per provider family. Providers cache the prompt
 * they were sent; the next request's identical prefix is read from the cache at a share of the
 * input price, and the rest is paid as new input:
 * - `'anthropic'`: explicit cache breakpoints. A token read from the cache costs 0.1x the input
 *   price; a token written to it 1.25x for a 5-minute entry, 2x for an hour's.
 * - `'openai'`: automatic prefix caching. No write premium (1x); a cached token costs the
 *   model's discount: 0.5x for `gpt-4o`, `o1` and `o3-mini`, 0.25x for `gpt-4.1`, `o3`,
 *   `o4-mini` and `codex-mini`, 0.1x for `gpt-5` and later.
 * - `'none'`: no cache; every token costs the input price.
 *
 * Ratios and prices are the providers' list prices, as examples for estimates, not quotes. Every
 * price is a share of the model's uncached input price, so a cost comes out in units of
 * uncached input tokens; {@link CostModel.inputPricePerMTok} turns it into dollars.
 *
 * The `cost` folder: what requests cost with prompt caching.
 * - `cost-model.ts`: the price of a prompt per provider family (this file).
 * - `session-statistics.ts`: the proxy's per-session figures (requests, tokens, cost sent and as
 *   the client would have sent them).
 */
import { describeValue, InvalidOptionError } from '../errors.js';
import { inferProviderFamily } from '../manage/counting/calibration.js';

/** How a provider prices a cached prompt: explicit breakpoints (`'anthropic'`), automatic prefix caching (`'openai'`), or no cache (`'none'`). */
export type CacheFamily = 'anthropic' | 'openai' | 'none';

/** Prices as shares of the model's uncached input price. */
export interface CostModel {
  /** The provider family the prices follow. */
  family: CacheFamily;
  /**
   * A cached token read: `'anthropic'` 0.1; `'openai'` the model's discount (0.5 for `gpt-4o`,
   * 0.25 for `gpt-4.1`, 0.1 for `gpt-5`); `'none'` 1.
   */
  readRatio: number;
  /**
   * A token written to (or not found in) the cache: `'anthropic'` 1.25 (5-minute entries) or 2
   * (hour-long, `cacheTtl: '1h'`); `'openai'` 1; `'none'` 1.
   */
  writeRatio: number;
  /** US dollars per million uncached input tokens (an example list price, for estimates). */
  inputPricePerMTok: number;
}

/** Changes to the cost model chosen from the provider and model: each field given wins. */
export interface CostModelOptions {
  /** The family whose prices apply. @default from `provider`, else the model's name (`'none'` for a model of neither family), else `'anthropic'` */
  family?: CacheFamily;
  /** A cached token read, as a share of the input price (a number >= 0). @default the family's (and model's) ratio */
  readRatio?: number;
  /** A token written to the cache, as a share of the input price (a number >= 0). @default the family's ratio */
  writeRatio?: number;
  /** US dollars per million uncached input tokens (a number >= 0). @default the model's list price, else 3 (a mid-size model's) */
  inputPricePerMTok?: number;
  /** How long Anthropic keeps a cache entry: an hour's entry costs 2x to write, 5 minutes' 1.25x. Ignored by the other families. @default '5m' */
  cacheTtl?: '5m' | '1h';
}

/** What {@link selectCostModel} chooses from. */
export interface SelectCostModelInput {
  /** The provider family, as the context manager's `provider` option: `'anthropic'`, `'openai'` or `'other'` (no cache). */
  provider?: string | undefined;
  /** The model the requests go to (`claude-sonnet-4-6`, `openai/gpt-5`): picks the family when `provider` does not, and the OpenAI discount and the price. */
  model?: string | undefined;
  /** Fields that win over what the provider and model give. */
  override?: CostModelOptions | undefined;
}

/** Anthropic's price of a token read from the cache, as a share of the input price. */
const ANTHROPIC_READ_RATIO = 0.1;
/** Anthropic's price of a token written to a 5-minute cache entry. */
const ANTHROPIC_WRITE_RATIO_5M = 1.25;
/** Anthropic's price of a token written to an hour-long cache entry. */
const ANTHROPIC_WRITE_RATIO_1H = 2;
/** The discount of an OpenAI model the tables below do not know: that of the oldest cached models (0.5), the least a cache saves. */
const DEFAULT_OPENAI_READ_RATIO = 0.5;
/** The input price assumed when the model is not known: a mid-size model's list price, in US dollars per million tokens. */
const DEFAULT_INPUT_PRICE_PER_MTOK = 3;
/** The family when neither `provider` nor `model` says: Anthropic's, the prices that punish a rewritten prefix most. */
const DEFAULT_CACHE_FAMILY: CacheFamily = 'anthropic';

/** One row of a price table: a model name pattern (matched on the name without a provider prefix), its cached-read share and input price. */
interface ModelPrice {
  pattern: RegExp;
  readRatio?: number;
  inputPricePerMTok: number;
}

// Most specific first: the first matching row wins.
const OPENAI_PRICES: readonly ModelPrice[] = [
  { pattern: /^gpt-5(?:\.\d+)?-nano/, readRatio: 0.1, inputPricePerMTok: 0.05 },
  { pattern: /^gpt-5(?:\.\d+)?-mini/, readRatio: 0.1, inputPricePerMTok: 0.25 },
  { pattern: /^gpt-5-pro|^gpt-5\.\d+-pro/, readRatio: 1, inputPricePerMTok: 15 },
  { pattern: /^gpt-(?:[5-9]|1\d)(?:[.-]|$)/, readRatio: 0.1, inputPricePerMTok: 1.25 },
  { pattern: /^gpt-4\.1-nano/, readRatio: 0.25, inputPricePerMTok: 0.1 },
  { pattern: /^gpt-4\.1-mini/, readRatio: 0.25, inputPricePerMTok: 0.4 },
  { pattern: /^gpt-4\.1/, readRatio: 0.25, inputPricePerMTok: 2 },
  { pattern: /^gpt-4o-mini/, readRatio: 0.5, inputPricePerMTok: 0.15 },
  { pattern: /^gpt-4o|^chatgpt-4o/, readRatio: 0.5, inputPricePerMTok: 2.5 },
  { pattern: /^o1-mini/, readRatio: 0.5, inputPricePerMTok: 1.1 },
  { pattern: /^o1-pro/, readRatio: 1, inputPricePerMTok: 150 },
  { pattern: /^o3-pro/, readRatio: 1, inputPricePerMTok: 20 },
  { pattern: /^o1/, readRatio: 0.5, inputPricePerMTok: 15 },
  { pattern: /^o3-mini/, readRatio: 0.5, inputPricePerMTok: 1.1 },
  { pattern: /^o3/, readRatio: 0.25, inputPricePerMTok: 2 },
  { pattern: /^o4-mini/, readRatio: 0.25, inputPricePerMTok: 1.1 },
  { pattern: /^codex-mini/, readRatio: 0.25, inputPricePerMTok: 1.5 },
  { pattern: /^(?:gpt-5-)?codex/, readRatio: 0.1, inputPricePerMTok: 1.25 },
];

const ANTHROPIC_PRICES: readonly ModelPrice[] = [
  { pattern: /^claude-opus-4-[5-9]|^claude-opus-[5-9]/, inputPricePerMTok: 5 },
  { pattern: /opus/, inputPricePerMTok: 15 },
  { pattern: /^claude-haiku-4|^claude-haiku-[5-9]/, inputPricePerMTok: 1 },
  { pattern: /^claude-3-5-haiku|^claude-3\.5-haiku/, inputPricePerMTok: 0.8 },
  { pattern: /haiku/, inputPricePerMTok: 0.25 },
  { pattern: /sonnet/, inputPricePerMTok: 3 },
];

const FAMILIES: readonly CacheFamily[] = ['anthropic', 'openai', 'none'];
const PROVIDERS: Readonly<Record<string, CacheFamily>> = { anthropic: 'anthropic', openai: 'openai', other: 'none' };

function bareModelName(model: string): string {
  return model.toLowerCase().replace(/^.*[/:]/, '');
}

function findPrice(table: readonly ModelPrice[], model: string | undefined): ModelPrice | undefined {
  if (model === undefined) return undefined;
  const name = bareModelName(model);
  return table.find((row) => row.pattern.test(name));
}

function checkRatio(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidOptionError(`${name} must be a finite number >= 0, got ${describeValue(value)}`);
  }
  return value;
}

function checkOverride(override: unknown): CostModelOptions {
  if (override === undefined) return {};
  if (typeof override !== 'object' || override === null || Array.isArray(override)) {
    throw new InvalidOptionError(`cost must be an object of cost-model fields, got ${describeValue(override)}`);
  }
  const fields = override as Record<string, unknown>;
  if (fields.family !== undefined && !FAMILIES.includes(fields.family as CacheFamily)) {
    throw new InvalidOptionError(
      `cost.family must be "anthropic", "openai" or "none", got ${describeValue(fields.family)}`,
    );
  }
  if (fields.cacheTtl !== undefined && fields.cacheTtl !== '5m' && fields.cacheTtl !== '1h') {
    throw new InvalidOptionError(`cost.cacheTtl must be "5m" or "1h", got ${describeValue(fields.cacheTtl)}`);
  }
  const checked: CostModelOptions = {};
  if (fields.family !== undefined) checked.family = fields.family as CacheFamily;
  if (fields.cacheTtl !== undefined) checked.cacheTtl = fields.cacheTtl as '5m' | '1h';
  const readRatio = checkRatio('cost.readRatio', fields.readRatio);
  if (readRatio !== undefined) checked.readRatio = readRatio;
  const writeRatio = checkRatio('cost.writeRatio', fields.writeRatio);
  if (writeRatio !== undefined) checked.writeRatio = writeRatio;
  const price = checkRatio('cost.inputPricePerMTok', fields.inputPricePerMTok);
  if (price !== undefined) checked.inputPricePerMTok = price;
  return checked;
}

/** The family `provider` and `model` give (`provider` first; a model of neither family has no cache), else {@link DEFAULT_CACHE_FAMILY}. */
function selectFamily(provider: unknown, model: string | undefined): CacheFamily {
  if (provider !== undefined) {
    const family = typeof provider === 'string' && Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
    if (family === undefined) {
      throw new InvalidOptionError(`provider must be "anthropic", "openai" or "other", got ${describeValue(provider)}`);
    }
    return family;
  }
  if (model !== undefined) {
    const inferred = inferProviderFamily(model);
    // a model of another provider is priced as the manager's provider 'other' is: by its tokens
    return inferred === 'other' ? 'none' : inferred;
  }
  return DEFAULT_CACHE_FAMILY;
}

/**
 * The cost model of a provider and model: the family from `provider` (`'other'` has no cache),
 * else from the model's name (`claude-*` Anthropic, `gpt-*`, `o3`... OpenAI, any other model no
 * cache), else {@link DEFAULT_CACHE_FAMILY}; the OpenAI discount and the input price from the model's name
 * when it is known. Fields of `override` win, `override.family` included (the ratios then follow
 * that family).
 *
 * @example
 * ```ts
 * selectCostModel({ model: 'gpt-4.1' });                        // openai, read 0.25, write 1
 * selectCostModel({ provider: 'anthropic', override: { cacheTtl: '1h' } }); // read 0.1, write 2
 * ```
 * @throws {InvalidOptionError} naming the field: a `provider` not among the three, a `model` that
 *   is not a non-empty string, an `override` field out of range (`cost.readRatio must be a finite
 *   number >= 0, got -1`).
 */
export function selectCostModel(input: SelectCostModelInput): CostModel {
  const { provider, model } = input;
  if (model !== undefined && (typeof model !== 'string' || model.trim() === '')) {
    throw new InvalidOptionError(
      `model must be a non-empty string (the model the requests go to), got ${describeValue(model)}`,
    );
  }
  const override = checkOverride(input.override);
  const family = override.family ?? selectFamily(provider, model);
  let base: Omit<CostModel, 'family'>;
  if (family === 'anthropic') {
    base = {
      readRatio: ANTHROPIC_READ_RATIO,
      writeRatio: override.cacheTtl === '1h' ? ANTHROPIC_WRITE_RATIO_1H : ANTHROPIC_WRITE_RATIO_5M,
      inputPricePerMTok: findPrice(ANTHROPIC_PRICES, model)?.inputPricePerMTok ?? DEFAULT_INPUT_PRICE_PER_MTOK,
    };
  } else if (family === 'openai') {
    const row = findPrice(OPENAI_PRICES, model);
    base = {
      readRatio: row?.readRatio ?? DEFAULT_OPENAI_READ_RATIO,
      writeRatio: 1,
      inputPricePerMTok: row?.inputPricePerMTok ?? DEFAULT_INPUT_PRICE_PER_MTOK,
    };
  } else {
    base = { readRatio: 1, writeRatio: 1, inputPricePerMTok: DEFAULT_INPUT_PRICE_PER_MTOK };
  }
  return {
    family,
    readRatio: override.readRatio ?? base.readRatio,
    writeRatio: override.writeRatio ?? base.writeRatio,
    inputPricePerMTok: override.inputPricePerMTok ?? base.inputPricePerMTok,
  };
}

/**
 * The cost of a request of `tokens` input tokens whose first `cachedPrefixTokens` are read from
 * the cache (the rest written to it), in units of uncached input tokens. A cached prefix longer
 * than the request counts as the whole request; a negative one as none.
 *
 * @example
 * ```ts
 * priceTokens(selectCostModel({ provider: 'anthropic' }), 1000, 800); // 800 × 0.1 + 200 × 1.25 = 330
 * ```
 */
export function priceTokens(model: CostModel, tokens: number, cachedPrefixTokens: number): number {
  const read = Math.min(Math.max(cachedPrefixTokens, 0), tokens);
  return read * model.readRatio + (tokens - read) * model.writeRatio;
}

/** A cost in units of uncached input tokens ({@link priceTokens}) in US dollars, at the model's input price. */
export function priceInDollars(model: CostModel, units: number): number {
  return (units * model.inputPricePerMTok) / 1_000_000;
}

/** Prices of a token read from and written to the cache, as shares of the input price: the part of a {@link CostModel} a cost needs. */
export type CacheRatios = Pick<CostModel, 'readRatio' | 'writeRatio'>;

/** Anthropic's read share: what a replay or the proxy assumes when nothing chooses another model. */
export const DEFAULT_CACHE_READ_RATIO = ANTHROPIC_READ_RATIO;
/** Anthropic's write share for a 5-minute entry: what a replay or the proxy assumes when nothing chooses another model. */
export const DEFAULT_CACHE_WRITE_RATIO = ANTHROPIC_WRITE_RATIO_5M;
/** The input price assumed for a dollar estimate when the model is not known: {@link DEFAULT_INPUT_PRICE_PER_MTOK}. */
export const DEFAULT_PRICE_PER_MTOK = DEFAULT_INPUT_PRICE_PER_MTOK;

/** The cost of `tokens` input tokens of which `cacheReadTokens` are read from the cache and the rest written to it, in US dollars. */
export function estimateCachedInputCost(
  tokens: number,
  cacheReadTokens: number,
  pricePerMTok: number,
  ratios: CacheRatios,
): number {
  const read = Math.min(cacheReadTokens, tokens);
  return ((read * ratios.readRatio + (tokens - read) * ratios.writeRatio) * pricePerMTok) / 1_000_000;
}
