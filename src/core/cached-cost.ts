/**
 * The input cost of a model request with prompt caching: the provider caches the prompt it was
 * sent, and the next request's identical prefix is read from the cache at a fraction of the
 * input price; the rest is written to the cache, at a premium. Shared by `agent-context replay`
 * and the proxy's session figures, so both price a request alike.
 */

/**
 * Price of a token read from the cache, as a share of the input price: Anthropic's list ratio
 * (0.1x), an example, not a quote.
 */
export const DEFAULT_CACHE_READ_RATIO = 0.1;
/** Price of a token written to the cache, as a share of the input price: Anthropic's list ratio for a 5-minute entry (1.25x). */
export const DEFAULT_CACHE_WRITE_RATIO = 1.25;

/**
 * The input price assumed for a cost estimate, in US dollars per million input tokens: an
 * example (the list price of a mid-size model's uncached input), not a promise of any bill.
 */
export const DEFAULT_PRICE_PER_MTOK = 3;

/** Prices of a token read from and written to the cache, as shares of the input price. */
export interface CacheRatios {
  readRatio: number;
  writeRatio: number;
}

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
