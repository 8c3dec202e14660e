/**
 * What one compaction costs and saves with prompt caching, for `agent-context eval`: the
 * request after it sends the compacted context written anew, where without it the whole
 * history would have been read from the cache; each later request then reads fewer tokens.
 */
import { priceTokens, type CostModel } from '../../core/cost/cost-model.js';
import { groupDigits } from '../../core/text/figures.js';

/**
 * The compaction's price with prompt caching, in units of uncached input tokens: the next
 * request sends the compacted context written anew, where without it the whole history would
 * have been read from the cache; each later request then reads fewer tokens.
 */
export interface EvalCost {
  /** The cost model: family, ratios and the input price. */
  model: CostModel;
  /** The next request without the compaction (its history read from the cache) and with it (written again). */
  nextRequestWithout: number;
  nextRequestWith: number;
  /** Requests after the next one until the compaction has paid for its rewrite (0: it pays at once; `null`: never). */
  breakEvenRequests: number | null;
}

/** What the compaction from `tokensBefore` to `tokensAfter` costs and saves under `model`. */
export function priceCompaction(model: CostModel, tokensBefore: number, tokensAfter: number): EvalCost {
  const nextRequestWithout = priceTokens(model, tokensBefore, tokensBefore);
  const nextRequestWith = priceTokens(model, tokensAfter, 0);
  const extra = nextRequestWith - nextRequestWithout;
  const savedPerRequest = (tokensBefore - tokensAfter) * model.readRatio;
  const breakEvenRequests = extra <= 0 ? 0 : savedPerRequest > 0 ? Math.ceil(extra / savedPerRequest) : null;
  return { model, nextRequestWithout, nextRequestWith, breakEvenRequests };
}

/** The cost model on one line: `anthropic: read 0.1x, write 1.25x, $3/MTok`. */
export function describeCostModel(model: CostModel): string {
  return `${model.family}: read ${model.readRatio}x, write ${model.writeRatio}x, $${model.inputPricePerMTok}/MTok`;
}

/** {@link EvalCost} on one line. */
export function describeCompactionPrice(cost: EvalCost): string {
  const next = `the next request costs ${groupDigits(Math.round(cost.nextRequestWith))} input-token units against ${groupDigits(Math.round(cost.nextRequestWithout))} uncompacted`;
  if (cost.breakEvenRequests === null) return `${next}; it never pays back`;
  if (cost.breakEvenRequests === 0) return `${next}; it pays at once`;
  return `${next}; it pays back after ${groupDigits(cost.breakEvenRequests)} more requests`;
}
