/**
 * agent-context-offload: keep an LLM agent's context window small without losing anything.
 * The package root holds what an agent loop calls (the context manager first); the rest lives
 * behind subpaths: the framework integrations `agent-context-offload/ai-sdk`, `/openai-agents`
 * and `/langchain`; `/anthropic` and `/openai` (summary clients), `/summarize` (summarizers and
 * prompt building), `/node` (the file reader, the default token counter), `/messages`
 * (shape checks, block guards, format lookups), `/defaults` (every default value) and `/testing`
 * (the store and format contract suites).
 *
 * @packageDocumentation
 */

// --- Messages, errors, ports (types) ---
export type {
  Role,
  Message,
  ContentBlock,
  TextBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  OtherBlock,
  ForeignBlock,
  CacheControl,
} from './core/types.js';
export type { ContextErrorCode, ContextErrorOptions } from './core/errors.js';
export {
  ContextError,
  InvalidOptionError,
  InvalidMessageError,
  UnsafePathError,
  WriteFailedError,
  ReadFailedError,
  NoToolResultError,
  SummarizerFailedError,
  MissingDependencyError,
} from './core/errors.js';
export { DEFAULT_CONTEXT_TOKEN_LIMIT, DEFAULT_COMPACT_THRESHOLD_RATIO } from './core/options/defaults.js';
export type {
  FileWriter,
  FileReader,
  LlmClient,
  LlmSummarizeOptions,
  Summarizer,
  SummarizerOptions,
  TokenCounter,
  Logger,
  Sleep,
  ContentStore,
  PutOutcome,
  StoredEntry,
  ByteRange,
} from './core/ports.js';

// --- The context manager: one call per model request ---
export { createContextManager } from './api/context-manager.js';
export type {
  ContextManagerOptions,
  ManagerOffloadOptions,
  ManagerCompactionOptions,
  ManagerSummaryOptions,
  ManagerRestoreOptions,
  CompactBudgets,
  ContextAction,
  ContextCompactAction,
  ContextCompactSkippedAction,
  ContextCompactSkipReason,
  ContextManager,
  ContextManagerHooks,
  ContextOffloadAction,
  ContextOverheadOverTriggerAction,
  ContextRecordsUnavailableAction,
  ContextWritesDeferredAction,
  ContextStats,
  ContextUsageIgnoredAction,
  PrepareOptions,
  PrepareResult,
  ToolCallIdentity,
  ProviderFamily,
  OffloadTiming,
} from './api/context-manager.js';

// --- Cost with prompt caching ---
export { priceTokens, selectCostModel } from './core/cost/cost-model.js';
export type { CacheFamily, CostModel, CostModelOptions, SelectCostModelInput } from './core/cost/cost-model.js';

// --- Message formats ---
export { formats } from './formats/index.js';
export type { FormatName, MessageFormat } from './core/format.js';
export type {
  TypedMessageFormat,
  AiSdkMessage,
  AiSdkPart,
  GeminiContent,
  GeminiPart,
  LangChainMessage,
  LangChainMessageClass,
  LangChainMessageClasses,
  LangchainFormatOptions,
  OpenAIAgentsContentPart,
  OpenAIAgentsItem,
  OpenAIChatContentPart,
  OpenAIChatMessage,
  OpenAIChatToolCall,
  OpenAIResponsesContentPart,
  OpenAIResponsesItem,
} from './formats/index.js';

// --- Batch offload ---
export { offloadToolResults, offloadToolResultsWithWriter, planOffload } from './api/offload.js';
export type { OffloadResult } from './core/offload/offload.js';
export type { OffloadPlan, OffloadCandidate, OffloadSkipReason } from './core/offload/plan-offload.js';
export type {
  OffloadOptions,
  BatchOffloadOptions,
  OffloadPlanOptions,
  OffloadPreviewOptions,
  OffloadReferenceStyle,
  DirectOffloadOptions,
  ToolResultOffloaderOptions,
} from './core/options/offload-options.js';

// --- Direct offload ---
export { offloadToolResult, offloadToolResultWithWriter, createToolResultOffloader } from './api/direct-offload.js';
export type { DirectOffloadWithWriterOptions } from './api/direct-offload.js';
export type { DirectOffloadResult, ToolResultOffloader } from './core/offload/direct-offload.js';

// --- Tokens and compaction ---
export { countTokens, estimateTokens, shouldCompact } from './api/tokens.js';
export type { CountTokensOptions, ShouldCompactOptions, EstimateTokensOptions } from './api/tokens.js';
export type { LastUsage, GenericUsage, AnthropicUsage } from './core/text/tokens.js';
export { compactMessages, restoreRecentFiles } from './api/compact.js';
export type {
  ArchivePolicy,
  ArchiveOptions,
  TriggerOptions,
  SummaryOptions,
  RestoreOptions,
  PortOptions,
  CompactOptions,
  CompactResult,
  CompactStats,
  CompactSkipReason,
  SummarizerKind,
  RestoreRecentFilesOptions,
  CompactLedger,
  ReferenceReader,
} from './api/compact.js';

// --- Stores, the read tool, retention ---
export { createFileStore } from './stores/file-store.js';
export type { FileStoreOptions } from './stores/file-store.js';
export { createMemoryStore } from './stores/memory-store.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { createRedisStore } from './stores/redis-store.js';
export type { RedisStore, RedisStoreOptions, RedisLike } from './stores/redis-store.js';
export { createS3Store } from './stores/s3-store.js';
export type { S3Store, S3StoreOptions, S3ClientLike, S3StoreClientConfig } from './stores/s3-store.js';
export { createReadOffloadedTool } from './api/read-offloaded-tool.js';
export type {
  ReadOffloadedTool,
  ReadOffloadedToolOptions,
  ReadOffloadedCallOptions,
  ReadOffloadedInput,
  ReadOffloadedInputSchema,
  ReadOffloadedSchemaProperty,
  AnthropicReadOffloadedTool,
  OpenAIChatReadOffloadedTool,
  OpenAIResponsesReadOffloadedTool,
  AiSdkReadOffloadedTool,
} from './api/read-offloaded-tool.js';
export { pruneOffloaded } from './api/prune.js';
export type { PruneOffloadedOptions, PruneResult, PrunedEntry } from './api/prune.js';
