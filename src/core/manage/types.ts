/**
 * Types of the context manager: one call per model request that offloads, then compacts only
 * when offloading was not enough. The implementation lives next to this file; integrations
 * (`agent-context-offload/ai-sdk`, `/langchain`, `/openai-agents`) code against these types.
 */
import type { CostModel } from '../cost/cost-model.js';
import type { CompactResult, CompactSkipReason } from '../compact/compact.js';
import type { LastUsage } from '../text/tokens.js';

/** What an offload step did: which results went to the store, and what now stands in their place. */
export interface ContextOffloadAction {
  /**
   * `'direct-offload'`: new tool results went to the store: as results age, one too large for
   * the window, its reference followed by its head and tail; on arrival, each of at least
   * `offload.directThreshold` characters, before the model saw it. `'batch-offload'`: older results went to
   * the store: as results age, when those still inline passed their budget; on arrival, when the
   * ratio gate passed; or, either way, because the history was over the compaction trigger
   * (offloading comes before summarizing). `'input-offload'`: large string fields of older
   * tool calls' inputs went to the store, with a batch of older results (or with what would
   * have been one), each field keeping its reference.
   */
  type: 'direct-offload' | 'batch-offload' | 'input-offload';
  /**
   * What a batch offload took: tool results (absent), or `'assistant-text'`: text blocks of older
   * assistant messages over `offload.maxInlineResultChars`, once the model had moved on from
   * them (`toolCallIds` empty, one reference per text).
   */
  kind?: 'assistant-text' | undefined;
  /**
   * Why a batch offload (or an input offload) ran: `'aged'` (the older results and inputs still
   * inline passed their budget), `'ratio-gate'` (on arrival: the gate passed), `'over-trigger'`.
   * Absent for a direct offload.
   */
  reason?: 'aged' | 'ratio-gate' | 'over-trigger' | undefined;
  /** The tool call ids whose results (or inputs) were offloaded, oldest first. */
  toolCallIds: string[];
  /** The reference text now in the history, one per id (`[Content offloaded to: ...]`); for inputs, one per field. */
  references: string[];
  /** Characters removed from the history: the results' (or fields') sizes minus their references'. */
  freedChars: number;
}

/** A compaction that ran: the history was replaced by a summary (and restored files). */
export interface ContextCompactAction {
  type: 'compact';
  /** Estimated prompt tokens (calibrated) right before and right after the compaction. */
  tokensBefore: number;
  tokensAfter: number;
  /** What the compacted context was fitted to: half of the trigger. */
  targetTokens: number;
  /** The archive's reference (readable with the read tool), when it was written. */
  archiveReference?: string | undefined;
  /** Which summarizer ran: `'custom'`, `'llm-client'`, `'anthropic'` or `'extractive'`. */
  summarizer: string;
  /**
   * The configured summarizer, when it failed on this history (every attempt threw or returned
   * blank text) and the extractive summarizer wrote the summary in its place (`summarizer` is
   * then `'extractive'`). A summarizer that keeps failing never leaves the history over the
   * trigger.
   */
  fallbackFrom?: string | undefined;
  /** Files read again and put back after the summary. */
  restoredFileCount: number;
  /** The budgets this compaction ran with, after they were shrunk to fit `targetTokens`. */
  budgets: CompactBudgets;
}

/** The summary and restore budgets one compaction ran with. */
export interface CompactBudgets {
  /** Word budget of the summary. */
  summaryMaxWords: number;
  /** Most recently read files considered for restoration. */
  maxRestoreFiles: number;
  /** A file of more tokens than this is not restored (local count). */
  maxRestoreTokensPerFile: number;
  /** Restoration stops before this many tokens in all (local count). */
  maxRestoreTokensTotal: number;
}

/**
 * Why a needed compaction did not happen:
 * - `'backing-off'`: earlier compactions failed in a row; the manager waits a few calls before
 *   trying again (`retryInCalls` says how many);
 * - `'failed'`: compaction threw (`error` holds why);
 * - `'nothing-to-compact'`: nothing comes before the exchange in flight (the latest user message,
 *   or the newest tool calls with their results), which is never summarized away;
 * - any reason compaction gives itself (`'summarizer-failed'`, `'archive-failed'`,
 *   `'nothing-to-compact'`, ...), with its `error` when it has one.
 */
export type ContextCompactSkipReason = 'backing-off' | 'failed' | CompactSkipReason;

/** A compaction that was needed but did not happen; the history is returned with the offloads done so far. */
export interface ContextCompactSkippedAction {
  type: 'compact-skipped';
  reason: ContextCompactSkipReason;
  /** The error, when one caused the skip. */
  error?: unknown;
  /** Calls to `prepare` that will not try to compact before the next attempt (0: the next call tries). */
  retryInCalls: number;
}

/** A `lastUsage` that does not fit the history: ignored, never trusted. */
export interface ContextUsageIgnoredAction {
  type: 'usage-ignored';
  /** What was wrong with it. */
  reason: string;
}

/**
 * The session's records could not be read (the store failed while listing or reading them):
 * this call worked as a manager that knows nothing of the session would, and said so here.
 * Decisions taken before stay in the store; the next call tries again.
 */
export interface ContextRecordsUnavailableAction {
  type: 'records-unavailable';
  /** The store's error. */
  error: unknown;
}

/**
 * The prompt's fixed part (`PrepareOptions.fixedTokens`: system prompt and tool definitions)
 * alone reaches the compaction trigger, so no history fits beside it: the history is sent as it
 * came, nothing new offloaded or compacted (summarizing the user's own message away would not
 * bring the request under the window; what was offloaded before stays so). Reported once per
 * manager, on the first call that finds it.
 */
export interface ContextOverheadOverTriggerAction {
  type: 'overhead-over-trigger';
  /** The fixed part's estimated prompt tokens (the local count, calibrated). */
  overheadTokens: number;
  /** The compaction trigger in tokens. */
  triggerTokens: number;
  /**
   * The smallest `contextTokenLimit` that works with this overhead: the one whose trigger is
   * twice the overhead (half of the trigger left for the history), rounded up to a thousand.
   */
  smallestWindow: number;
}

/**
 * The store refused new offloads in this call (a full disk, a store that is down): those
 * results stay inline for now, and a later call offloads them once the store takes writes
 * again. What was offloaded and compacted before keeps applying: only new writes wait.
 */
export interface ContextWritesDeferredAction {
  type: 'writes-deferred';
  /** The tool call ids whose results stayed inline. */
  toolCallIds: string[];
  /** The store's first error in this call. */
  error: unknown;
}

/** What one `prepare` call did, step by step, in order. */
export type ContextAction =
  | ContextOffloadAction
  | ContextCompactAction
  | ContextCompactSkippedAction
  | ContextUsageIgnoredAction
  | ContextRecordsUnavailableAction
  | ContextOverheadOverTriggerAction
  | ContextWritesDeferredAction;

/** Figures of one `prepare` call. */
export interface ContextStats {
  /** Messages in and out. */
  messagesIn: number;
  messagesOut: number;
  /**
   * Estimated prompt tokens of the history before and after this call (calibrated), with the
   * calibrated `fixedTokens` where no `lastUsage` counts them already. Both are
   * computed when first read (a call far below the trigger does not tokenize the references it
   * just wrote). A tool result offloaded in this call before it was ever counted is estimated
   * from its characters (4 per token), so offloading never pays for tokenizing what it removes.
   */
  tokensBefore: number;
  tokensAfter: number;
  /** The compaction trigger in tokens (`contextTokenLimit × compaction.triggerRatio`). */
  triggerTokens: number;
  /**
   * Provider tokens per local token: the provider family's default margin until usage arrives,
   * then learned from each `lastUsage` (smoothed, within [0.5, 3]).
   */
  calibrationRatio: number;
  /** How many usage figures the ratio has learned from (0: it is still the default margin). */
  calibrationSamples: number;
  /** Leading messages whose tokens came from the provider's figure (`lastUsage`) rather than a local estimate. */
  anchoredMessages: number;
  /** How the provider prices cached and uncached input, as the manager resolved it (`provider`, `model`, `cost`). */
  costModel: CostModel;
}

/** Options of one `prepare` call. */
export interface PrepareOptions {
  /**
   * The usage of the last model request, with how many leading messages of this history it
   * sent: `{ inputTokens, messageCount }`, or `{ ...response.usage, messageCount }` for
   * Anthropic. A figure that does not fit the history is ignored with a warning.
   */
  lastUsage?: LastUsage | undefined;
  /** Cancels a pending compaction: `prepare` rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * Tokens the request spends outside `messages` (the system prompt and tool definitions), as
   * the local tokenizer counts them (`countTokens`): the manager scales them by its calibration
   * and adds them to its estimate of the history when no `lastUsage` counts them already, so
   * the history is compacted when history and fixed part together reach the trigger, and fitted
   * to half of what the fixed part leaves of it. When the fixed part alone reaches the trigger,
   * the history is sent as it came, only the decisions taken before applied (an
   * `'overhead-over-trigger'` action says so once).
   * @default 0
   */
  fixedTokens?: number | undefined;
}

/** The result of `prepare`: send `messages`, and append the next turn to them. */
export interface PrepareResult<M> {
  messages: M[];
  /** The session the call worked in (with `sessionId: 'auto'`, the one derived from the history). */
  sessionId: string;
  actions: ContextAction[];
  stats: ContextStats;
}

/** The identity of one tool call, for offloading its output as it arrives. */
export interface ToolCallIdentity {
  toolName: string;
  toolCallId: string;
  /**
   * The call's input, when the hook has it: a call whose input names a reference of the
   * session (the agent's own tool reading offloaded content back) is never offloaded again.
   */
  input?: unknown;
}

/** Hooks the manager calls after each step that changed the history. */
export interface ContextManagerHooks {
  /**
   * Called after each offload (direct or batch, and for {@link ContextManager.offloadOutput}).
   * A promise it returns is awaited; a hook that throws (or rejects) is logged at `warn`, and
   * the offload stands.
   */
  onOffload?: ((action: ContextOffloadAction) => unknown) | undefined;
  /**
   * Called after each compaction, with the compaction's own result (summary, stats). A promise
   * it returns is awaited; a hook that throws (or rejects) is logged at `warn`.
   */
  onCompact?: ((action: ContextCompactAction, result: CompactResult) => unknown) | undefined;
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
   * Offloads one tool output as it arrives when it is at least `offload.directThreshold` characters (and its
   * tool is not excluded): resolves with the reference text that replaces it, else with the
   * output itself (also when the store refuses the write: a warning says so).
   */
  offloadOutput(output: string, call: ToolCallIdentity): Promise<string>;
}
