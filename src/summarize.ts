/**
 * `agent-context-offload/summarize`: the summarizers compaction can use and the pieces they are
 * built from, for a custom strategy: the LLM summarizer over any `LlmClient`, the one that
 * reuses the conversation's prompt cache, the offline extractive one, the summary prompt, and
 * the partition and assembly steps of compaction.
 *
 * @packageDocumentation
 */
export {
  createLlmSummarizer,
  computeSummaryMaxTokens,
  computeMinSummaryInputTokens,
} from './core/compact/summary/summarize-with-llm.js';
export type { CreateLlmSummarizerOptions, TokenCounterEncoding } from './core/compact/summary/summarize-with-llm.js';
export { createExtractiveSummarizer } from './core/compact/summary/extractive-summarizer.js';
export { createPrefixReusingSummarizer } from './core/compact/summary/summarize-reusing-prefix.js';
export type {
  CreatePrefixReusingSummarizerOptions,
  SummaryMode,
} from './core/compact/summary/summarize-reusing-prefix.js';
export {
  buildSummaryInstruction,
  buildSummaryPrompt,
  renderMessagesForSummary,
  SUMMARY_SECTION_TITLES,
} from './core/compact/summary/summary-prompt.js';
export type {
  BuildSummaryInstructionOptions,
  BuildSummaryPromptOptions,
  RenderMessagesForSummaryOptions,
  SummarySectionTitle,
} from './core/compact/summary/summary-prompt.js';
export { partitionMessages, assembleMessages } from './api/compact.js';
export type { PartitionResult, AssembleMessagesOptions } from './api/compact.js';
export { compactThresholdTokens } from './core/text/tokens.js';
export type { ConversationRequest, ConversationSummaryRequest, LlmUsage } from './core/ports.js';
