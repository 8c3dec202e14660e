/**
 * What `agent-context replay` reports: per model request, the tokens sent without the context
 * manager (the raw history up to that request) and with it (the managed history), what the
 * manager did, and the estimated input cost, uncached and with prompt caching; then the
 * totals. `replay --json` prints {@link ReplayReport} as it is.
 */
import type { CacheFamily } from '../../core/cost/cost-model.js';

/** A compaction the manager ran before one request. */
export interface ReplayCompaction {
  /** Tokens of the managed history right before and right after (the manager's estimate). */
  tokensBefore: number;
  tokensAfter: number;
  /** Where the compacted messages were archived (a path in the offload store), when they were. */
  archiveReference: string | null;
}

/** One model request of the transcript, replayed. */
export interface ReplayRequest {
  /** 1-based number of the request. */
  request: number;
  /** Index, in the transcript, of the assistant message that answered it. */
  messageIndex: number;
  /** Messages and tokens the request sent without the manager: the raw history before that answer. */
  messagesWithout: number;
  tokensWithout: number;
  /** Messages and tokens the request sends with the manager. */
  messagesWith: number;
  tokensWith: number;
  /** Tool results the manager offloaded before this request, and the characters that freed. */
  offloadedResults: number;
  freedChars: number;
  /** The compaction before this request, or `null`. */
  compaction: ReplayCompaction | null;
  /** Why a compaction the manager needed did not happen (`backing-off`, `summarizer-failed`, ...), or `null`. */
  compactionSkipped: string | null;
  /** Estimated input cost of the request, in US dollars, without and with the manager. */
  costWithout: number;
  costWith: number;
  /**
   * Tokens of the request that repeat the previous request's prefix exactly (whole messages,
   * and the tool definitions): read from the prompt cache. 0 for the first request.
   */
  cacheReadTokensWithout: number;
  cacheReadTokensWith: number;
  /** Whether the managed request changed a message the previous one sent (an offload, a compaction): the cache broke there. */
  prefixChangedWith: boolean;
  /** Estimated input cost with prompt caching: the prefix read from the cache, the rest written to it. */
  cachedCostWithout: number;
  cachedCostWith: number;
  /**
   * Read-backs after this request with the manager: one more request for each tool result that
   * reached the model only as a reference (or cut around one) before it acted on it (see
   * `read-backs.ts`); their input tokens, and their cost uncached and with prompt caching.
   */
  readBacks: number;
  readBackTokens: number;
  readBackCost: number;
  readBackCachedCost: number;
}

/** The sums and peaks of a replay. */
export interface ReplayTotals {
  /** Model requests replayed. */
  requests: number;
  /** Input tokens of every request added up, without and with the manager. */
  tokensWithout: number;
  tokensWith: number;
  /** `1 - tokensWith / tokensWithout`: the share of input tokens the manager saved. */
  savedShare: number;
  /** The largest request, without and with the manager. */
  peakWithout: number;
  peakWith: number;
  /** Requests larger than the window, without and with the manager. */
  requestsOverWindowWithout: number;
  requestsOverWindowWith: number;
  /** Tool results offloaded, and the characters that freed. */
  offloadedResults: number;
  freedChars: number;
  /** Compactions that ran, and compactions needed that did not. */
  compactions: number;
  skippedCompactions: number;
  /** Estimated input cost of all requests, in US dollars. */
  costWithout: number;
  costWith: number;
  /** Tokens read from the prompt cache, over all requests. */
  cacheReadTokensWithout: number;
  cacheReadTokensWith: number;
  /** Managed requests whose prefix changed (the cache broke), after the first. */
  prefixChangesWith: number;
  /** Estimated input cost of all requests with prompt caching, in US dollars. */
  cachedCostWithout: number;
  cachedCostWith: number;
  /** Read-back requests with the manager (not in the figures above), their input tokens, and their cost uncached and with prompt caching. */
  readBacks: number;
  readBackTokens: number;
  readBackCost: number;
  readBackCachedCost: number;
}

/** Everything `replay` found. */
export interface ReplayReport {
  /** The transcript as given (`stdin` for standard input). */
  source: string;
  /** How the file holds the history (`json`, `request-body`, `jsonl`, `claude-code`) and its message format. */
  shape: string;
  messageFormat: string;
  /** Messages in the transcript. */
  messageCount: number;
  /** Tokens of a request body's tool definitions, counted in every request (0 for other shapes). */
  toolDefinitionTokens: number;
  /** The window the manager worked in, its compaction share and the trigger in tokens. */
  contextTokenLimit: number;
  compactThresholdRatio: number;
  triggerTokens: number;
  /** Tool results of at least this many characters were offloaded as they arrived. */
  threshold: number;
  /** Who wrote the summaries. */
  summarizer: string;
  /** US dollars per million input tokens used for the cost estimate. */
  pricePerMTok: number;
  /** Whose cache prices apply: `'anthropic'`, `'openai'` or `'none'`. */
  costFamily: CacheFamily;
  /** Prices of a token read from and written to the prompt cache, as shares of `pricePerMTok`. */
  cacheReadRatio: number;
  cacheWriteRatio: number;
  /** The offload store kept with `--out`, or `null` (a temporary directory, removed). */
  store: string | null;
  /** Every request, in order. */
  requests: ReplayRequest[];
  totals: ReplayTotals;
}

/** Estimated cost of `tokens` input tokens at `pricePerMTok` dollars per million. */
export function estimateInputCost(tokens: number, pricePerMTok: number): number {
  return (tokens * pricePerMTok) / 1_000_000;
}

/** Adds up the requests of a replay in a window of `contextTokenLimit` tokens. */
export function summarizeReplay(requests: readonly ReplayRequest[], contextTokenLimit: number): ReplayTotals {
  const totals: ReplayTotals = {
    requests: requests.length,
    tokensWithout: 0,
    tokensWith: 0,
    savedShare: 0,
    peakWithout: 0,
    peakWith: 0,
    requestsOverWindowWithout: 0,
    requestsOverWindowWith: 0,
    offloadedResults: 0,
    freedChars: 0,
    compactions: 0,
    skippedCompactions: 0,
    costWithout: 0,
    costWith: 0,
    cacheReadTokensWithout: 0,
    cacheReadTokensWith: 0,
    prefixChangesWith: 0,
    cachedCostWithout: 0,
    cachedCostWith: 0,
    readBacks: 0,
    readBackTokens: 0,
    readBackCost: 0,
    readBackCachedCost: 0,
  };
  for (const request of requests) {
    totals.tokensWithout += request.tokensWithout;
    totals.tokensWith += request.tokensWith;
    totals.peakWithout = Math.max(totals.peakWithout, request.tokensWithout);
    totals.peakWith = Math.max(totals.peakWith, request.tokensWith);
    if (request.tokensWithout > contextTokenLimit) totals.requestsOverWindowWithout += 1;
    if (request.tokensWith > contextTokenLimit) totals.requestsOverWindowWith += 1;
    totals.offloadedResults += request.offloadedResults;
    totals.freedChars += request.freedChars;
    if (request.compaction !== null) totals.compactions += 1;
    if (request.compactionSkipped !== null) totals.skippedCompactions += 1;
    totals.costWithout += request.costWithout;
    totals.costWith += request.costWith;
    totals.cacheReadTokensWithout += request.cacheReadTokensWithout;
    totals.cacheReadTokensWith += request.cacheReadTokensWith;
    if (request.prefixChangedWith) totals.prefixChangesWith += 1;
    totals.cachedCostWithout += request.cachedCostWithout;
    totals.cachedCostWith += request.cachedCostWith;
    totals.readBacks += request.readBacks;
    totals.readBackTokens += request.readBackTokens;
    totals.readBackCost += request.readBackCost;
    totals.readBackCachedCost += request.readBackCachedCost;
  }
  totals.savedShare = totals.tokensWithout === 0 ? 0 : 1 - totals.tokensWith / totals.tokensWithout;
  return totals;
}
