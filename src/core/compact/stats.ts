import type { LlmUsage } from '../ports.js';

/** What one compaction did. Every figure is 0 when nothing was compacted. */
export interface CompactStats {
  /** Tokens of the history before compaction, as the trigger counted them. */
  originalTokenCount: number;
  /** Tokens of the compacted history (local count). */
  compactedTokenCount: number;
  /** `compactedTokenCount / originalTokenCount` (0 when nothing was compacted). */
  compactionRatio: number;
  /** Messages summarized: the length of Rest. */
  compactedMessageCount: number;
  /** Messages kept verbatim: the length of Head. */
  retainedMessageCount: number;
  /** Files restored after the summary. */
  restoredFileCount: number;
  /** Tokens of the restored files' contents. */
  restoredTokenCount: number;
  /**
   * What the summary requests cost, as the LLM provider reported it (all requests of the
   * compaction summed, chunks and retries included): input tokens billed at the full rate, read
   * from the prompt cache and written to it, and output tokens. Set when compacted by an LLM
   * client that reports usage (the package's Anthropic and OpenAI clients do).
   */
  summaryUsage?: LlmUsage;
}

/** Stats of a compaction that did not happen: every figure 0 (a new object each call). */
export function createEmptyCompactStats(): CompactStats {
  return {
    originalTokenCount: 0,
    compactedTokenCount: 0,
    compactionRatio: 0,
    compactedMessageCount: 0,
    retainedMessageCount: 0,
    restoredFileCount: 0,
    restoredTokenCount: 0,
  };
}

/** The figures {@link computeCompactStats} derives the stats from. */
export interface CompactStatsInput {
  originalTokenCount: number;
  compactedTokenCount: number;
  headLength: number;
  restLength: number;
  restoredTokenCounts: readonly number[];
}

export function computeCompactStats(input: CompactStatsInput): CompactStats {
  return {
    originalTokenCount: input.originalTokenCount,
    compactedTokenCount: input.compactedTokenCount,
    compactionRatio: input.originalTokenCount === 0 ? 0 : input.compactedTokenCount / input.originalTokenCount,
    compactedMessageCount: input.restLength,
    retainedMessageCount: input.headLength,
    restoredFileCount: input.restoredTokenCounts.length,
    restoredTokenCount: input.restoredTokenCounts.reduce((sum, count) => sum + count, 0),
  };
}
