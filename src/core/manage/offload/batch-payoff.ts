/**
 * Whether a batch of aged results pays for the prompt prefix it rewrites, with prompt caching.
 *
 * A batch changes the history from its first offloaded message on: this request writes that
 * part to the cache (`writeRatio` of the input price) where it would have read it
 * (`readRatio`), and every later request reads the freed characters no more. So it pays when
 *
 *   (expected + 1) × freed × readRatio  >=  (rewritten − freed) × (writeRatio − readRatio)
 *
 * where `rewritten` is what stands from the first changed message to the end. How many
 * requests follow is not known: as in rent-or-buy, the session's past is the forecast. The
 * requests since the last rewrite (the last batch, or the last compaction) are taken as the
 * requests to come, and never more than fit before the next compaction at the history's pace,
 * since a compaction rewrites everything anyway: a batch a few requests before the trigger never
 * pays, and its results wait for the pass at the trigger (one rewrite instead of two).
 *
 * The worst case: a batch that goes and is followed by no request costs at most the savings of
 * as many requests as the session had since the last rewrite (its forecast); one followed by at
 * least that many requests never costs more than keeping the results inline. Without a cache
 * (`readRatio` = `writeRatio` = 1) rewriting costs nothing, and every batch over the budget pays:
 * the token-minimising schedule.
 *
 * Counted in characters of the history as given, so that the decision is a function of the
 * history alone (a new manager, in any process, decides the same).
 */
import type { CostModel } from '../../cost/cost-model.js';

/** What {@link doesBatchPay} weighs. */
export interface BatchPayoffInput {
  /** How the provider prices cached and uncached input. */
  costModel: Pick<CostModel, 'readRatio' | 'writeRatio'>;
  /** Characters the batch takes out of every later request. */
  freedChars: number;
  /** Characters from the first message the batch changes to the end of the history, before it. */
  rewrittenChars: number;
  /** Requests since the last rewrite of the prefix: the forecast of those to come. */
  requestsSinceRewrite: number;
  /** Requests that fit before the next compaction at the history's pace (once the batch went). */
  requestsBeforeCompaction: number;
}

/** The requests a batch is expected to serve: the session's run since the last rewrite, at most until the next compaction. */
export function expectRequests(
  input: Pick<BatchPayoffInput, 'requestsSinceRewrite' | 'requestsBeforeCompaction'>,
): number {
  return Math.max(0, Math.min(input.requestsSinceRewrite, input.requestsBeforeCompaction));
}

/** Whether the batch saves more over the requests it can expect than rewriting the prefix costs (see the module's note). */
export function doesBatchPay(input: BatchPayoffInput): boolean {
  const { readRatio, writeRatio } = input.costModel;
  const premium = Math.max(0, writeRatio - readRatio);
  const rewriteCost = Math.max(0, input.rewrittenChars - input.freedChars) * premium;
  const savings = (expectRequests(input) + 1) * input.freedChars * readRatio;
  return savings >= rewriteCost;
}
