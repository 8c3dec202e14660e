/**
 * Types of the context manager: one call per model request that offloads, then compacts only
 * when offloading was not enough. The implementation lives next to this file; integrations
 * (`agent-context-offload/ai-sdk`, `/langchain`, `/openai-agents`) code against these types.
 */
import type { LastUsage } from '../tokens.js';

/** What one `prepare` call did, step by step, in order. */
export type ContextAction =
  | {
      /** New tool results over `threshold` moved to the store before the model saw them. */
      type: 'direct-offload';
      /** The tool call ids whose results were offloaded. */
      toolCallIds: string[];
      /** The references now in the history, one per id. */
      references: string[];
      /** Characters removed from the history. */
      freedChars: number;
    }
  | {
      /** The ratio gate passed and older large results were offloaded. */
      type: 'batch-offload';
      toolCallIds: string[];
      references: string[];
      freedChars: number;
    }
  | {
      /** The history was over the trigger and was compacted. */
      type: 'compact';
      /** Token estimate before and after. */
      tokensBefore: number;
      tokensAfter: number;
      /** The archive's reference (readable with the read tool), when it was written. */
      archiveReference?: string | undefined;
      /** Which summarizer ran. */
      summarizer: string;
    }
  | {
      /** Compaction was needed but did not happen; `reason` says why (the next call retries, with back-off). */
      type: 'compact-skipped';
      reason: string;
      /** The error, when one caused the skip. */
      error?: unknown;
    }
  | {
      /** A `lastUsage` that does not fit the history was ignored. */
      type: 'usage-ignored';
      reason: string;
    };

/** Figures of one `prepare` call. */
export interface ContextStats {
  /** Messages in and out. */
  messagesIn: number;
  messagesOut: number;
  /** Estimated prompt tokens of the history before and after this call (calibrated). */
  tokensBefore: number;
  tokensAfter: number;
  /** The compaction trigger in tokens (`contextTokenLimit × compactThresholdRatio`). */
  triggerTokens: number;
  /** Provider tokens per local token, as learned from `lastUsage` (1 before any usage, or the family's default margin). */
  calibrationRatio: number;
}

/** Options of one `prepare` call. */
export interface PrepareOptions {
  /** The usage of the last model request, with how many leading messages it sent. */
  lastUsage?: LastUsage | undefined;
  /** Cancels a pending compaction. */
  signal?: AbortSignal | undefined;
}

/** The result of `prepare`: send `messages`, and append the next turn to them. */
export interface PrepareResult<M> {
  messages: M[];
  actions: ContextAction[];
  stats: ContextStats;
}

/** The identity of one tool call, for offloading its output as it arrives. */
export interface ToolCallIdentity {
  toolName: string;
  toolCallId: string;
}

/**
 * One call per model request (`prepare`), plus what per-tool hooks of agent frameworks need:
 * `offloadOutput` for a single tool output as it arrives.
 */
export interface ContextManager<M> {
  /**
   * Prepares the history for the next model request: direct offload of new large tool results,
   * batch offload when the ratio gate passes, compaction only when still over the trigger.
   * Decisions already taken never change, so the prompt prefix stays byte-stable between calls.
   */
  prepare(messages: readonly M[], options?: PrepareOptions): Promise<PrepareResult<M>>;
  /**
   * Offloads one tool output as it arrives when it is at least `threshold` characters (and its
   * tool is not excluded): resolves with the reference text that replaces it, else with the
   * output itself.
   */
  offloadOutput(output: string, call: ToolCallIdentity): Promise<string>;
}
