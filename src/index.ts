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
} from './core/types.js';
export { isToolResultBlock, isToolUseBlock } from './core/types.js';
export type { ContextErrorCode, ContextErrorOptions } from './core/errors.js';
export {
  ContextError,
  InvalidOptionError,
  InvalidMessageError,
  UnsafePathError,
  WriteFailedError,
  MissingDependencyError,
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
} from './core/ports.js';
export { assertMessages } from './core/validate-messages.js';
export { isSafePathSegment } from './core/safe-path.js';

// --- Batch offload (specs 01-03) ---

// --- Direct offload (spec 04) ---

// --- Tokens and compaction (spec 05) ---

// --- LLM clients and summarizers (spec 05) ---
