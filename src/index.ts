/**
 * agent-context-offload: keep an LLM agent's context window small without losing anything.
 *
 * @packageDocumentation
 */

// --- Foundation: messages, errors, defaults, ports ---
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
export { isTextBlock, isThinkingBlock, isToolResultBlock, isToolUseBlock } from './core/types.js';
export type { ContextErrorCode, ContextErrorOptions } from './core/errors.js';
export {
  ContextError,
  InvalidOptionError,
  InvalidMessageError,
  UnsafePathError,
  WriteFailedError,
  MissingDependencyError,
  SummarizerFailedError,
  ReadFailedError,
} from './core/errors.js';
export * from './core/defaults.js';
export type {
  FileWriter,
  FileReader,
  LlmClient,
  LlmSummarizeOptions,
  Summarizer,
  SummarizerOptions,
  TokenCounter,
  Logger,
  ContentStore,
  PutOutcome,
  StoredEntry,
  ByteRange,
} from './core/ports.js';
export { assertMessages } from './core/validate-messages.js';
export { isSafePathSegment } from './core/safe-path.js';

// --- Stores, the read tool, retention (issue 7) ---
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

// --- Batch offload (specs 01-03) ---
export { offloadToolResults, offloadToolResultsWithWriter, planOffload } from './api/offload.js';
export type { OffloadResult } from './core/offload.js';
export type { OffloadPlan, OffloadCandidate, OffloadSkipReason } from './core/plan-offload.js';
export type {
  OffloadOptions,
  BatchOffloadOptions,
  OffloadPlanOptions,
  OffloadPreviewOptions,
  OffloadReferenceStyle,
} from './core/offload-options.js';
export { isOffloadReference, BATCH_REFERENCE_PREFIX, DIRECT_REFERENCE_PREFIX } from './core/offload-reference.js';
export { NodeFileWriter, createNodeFileWriter } from './infrastructure/node-file-writer.js';

// --- Direct offload (spec 04) ---
export { offloadToolResult, offloadToolResultWithWriter, createToolResultOffloader } from './api/direct-offload.js';
export type { DirectOffloadWithWriterOptions } from './api/direct-offload.js';
export type { DirectOffloadResult, ToolResultOffloader } from './core/direct-offload.js';
export type { DirectOffloadOptions, ToolResultOffloaderOptions } from './core/offload-options.js';
export { NoToolResultError } from './core/errors.js';

// --- Tokens and compaction (spec 05) ---
export { countTokens, estimateTokens, shouldCompact } from './api/tokens.js';
export type { CountTokensOptions, ShouldCompactOptions, EstimateTokensOptions } from './api/tokens.js';
export type { LastUsage, GenericUsage, AnthropicUsage } from './core/tokens.js';
export { MESSAGE_TOKEN_OVERHEAD, BLOCK_TOKEN_OVERHEAD, compactThresholdTokens } from './core/tokens.js';
export { defaultTokenCounter } from './infrastructure/tokenizer.js';
export { compactMessages, restoreRecentFiles, partitionMessages, assembleMessages } from './api/compact.js';
export type {
  ArchivePolicy,
  CompactOptions,
  CompactResult,
  CompactStats,
  CompactSkipReason,
  SummarizerKind,
  RestoreRecentFilesOptions,
  PartitionResult,
  AssembleMessagesOptions,
} from './api/compact.js';
export { NodeFileReader, createNodeFileReader } from './infrastructure/node-file-reader.js';

// --- LLM clients and summarizers (spec 05) ---
export {
  buildSummaryPrompt,
  renderMessagesForSummary,
  SUMMARY_SECTION_TITLES,
  SUMMARY_MOST_RECENT_RULE,
} from './core/compact/summary-prompt.js';
export type {
  BuildSummaryPromptOptions,
  RenderMessagesForSummaryOptions,
  SummarySectionTitle,
} from './core/compact/summary-prompt.js';
export {
  createLlmSummarizer,
  computeSummaryMaxTokens,
  computeMinSummaryInputTokens,
  MIN_KEPT_BLOCK_CHARS,
  MIN_SUMMARY_CONVERSATION_TOKENS,
} from './core/compact/summarize-with-llm.js';
export type { CreateLlmSummarizerOptions, TokenCounterEncoding } from './core/compact/summarize-with-llm.js';
export { createExtractiveSummarizer } from './core/compact/extractive-summarizer.js';
export { countWords, truncateToWords } from './core/words.js';
export { createAnthropicLlmClient } from './infrastructure/anthropic-client.js';
export type {
  AnthropicLike,
  AnthropicLlmClient,
  AnthropicCountTokensOptions,
  CreateAnthropicLlmClientOptions,
  AnthropicCreateBodyLike,
  AnthropicCountTokensBodyLike,
  AnthropicMessageLike,
  AnthropicMessageParamLike,
  AnthropicRequestOptionsLike,
} from './infrastructure/anthropic-client.js';
export { createOpenAILlmClient } from './infrastructure/openai-client.js';
export type {
  OpenAILike,
  OpenAILlmClient,
  CreateOpenAILlmClientOptions,
  OpenAIMaxTokensParameter,
  OpenAIChatCreateBodyLike,
  OpenAIChatCompletionLike,
  OpenAIRequestOptionsLike,
} from './infrastructure/openai-client.js';
export type { SdkImporter, RetryAfterError } from './infrastructure/llm-client-support.js';
