/**
 * Every default of the package, in one place. Each is also the fallback when its
 * environment variable is unset or empty.
 */

/** Batch offload: a `tool_result` of at least this many chars is offloaded. Env `OFFLOAD_CHAR_THRESHOLD`. */
export const DEFAULT_OFFLOAD_CHAR_THRESHOLD = 100;
/** Batch offload: skip unless offloadable chars / total chars reaches this share. Env `OFFLOAD_RATIO_THRESHOLD`. */
export const DEFAULT_OFFLOAD_RATIO_THRESHOLD = 0.2;
/** Direct offload middleware: results of at least this many chars are offloaded. */
export const DEFAULT_DIRECT_OFFLOAD_THRESHOLD = 1000;
/** Batch offload: the newest this many tool results stay inline (like Anthropic's `keep`). */
export const DEFAULT_OFFLOAD_KEEP_RECENT = 0;
/** Offload preview (opt-in): characters shown from the start of the offloaded content. */
export const DEFAULT_PREVIEW_HEAD_CHARS = 200;
/** Offload preview (opt-in): characters shown from the end of the offloaded content. */
export const DEFAULT_PREVIEW_TAIL_CHARS = 100;

/** Longest accepted `tool_use_id` or `sessionId`. */
export const MAX_PATH_SEGMENT_LENGTH = 200;

/** Compaction trigger: the context window in tokens. Env `CONTEXT_TOKEN_LIMIT`. */
export const DEFAULT_CONTEXT_TOKEN_LIMIT = 200_000;
/** Compaction trigger: compact at this share of the window. Env `COMPACT_THRESHOLD_RATIO`. */
export const DEFAULT_COMPACT_THRESHOLD_RATIO = 0.92;
/**
 * Model that writes the summary when neither `summaryModel` nor env `SUMMARY_MODEL` names one
 * and the `LlmClient` has no `defaultModel` of its own. Never used with a client whose
 * `defaultModel` is `null` (the OpenAI client).
 */
export const DEFAULT_SUMMARY_MODEL = 'claude-haiku-4-5-20251001';
/** Word budget of the summary. Env `SUMMARY_MAX_WORDS`. */
export const DEFAULT_SUMMARY_MAX_WORDS = 1200;
/** Retries after the first failed summary attempt. Env `COMPACT_MAX_RETRIES`. */
export const DEFAULT_COMPACT_MAX_RETRIES = 2;
/** Where Rest is archived before summarizing, relative to `workDir`. Env `COMPACT_OUTPUT_DIR`. */
export const DEFAULT_COMPACT_OUTPUT_DIR = '.compact';
/** Session whose archive folder is used when none is given. */
export const DEFAULT_SESSION_ID = 'default';
/** Most recently read files restored after compaction. Env `MAX_RESTORE_FILES`. */
export const DEFAULT_MAX_RESTORE_FILES = 5;
/** A file above this many tokens is not restored. Env `MAX_RESTORE_TOKENS_PER_FILE`. */
export const DEFAULT_MAX_RESTORE_TOKENS_PER_FILE = 5000;
/** Restoration stops before this many tokens in all. Env `MAX_RESTORE_TOKENS_TOTAL`. */
export const DEFAULT_MAX_RESTORE_TOKENS_TOTAL = 50_000;
/** Tool names whose `tool_use` reads a file. */
export const DEFAULT_READ_TOOL_NAMES: readonly string[] = ['read_file'];
/** Field of the read tool's input that holds the path. */
export const DEFAULT_PATH_FIELD = 'path';
/** The text sent to an LLM summarizer never exceeds this many tokens. */
export const DEFAULT_SUMMARY_INPUT_MAX_TOKENS = 100_000;
/** Scale applied to local token estimates (1 = as counted). */
export const DEFAULT_TOKEN_SAFETY_FACTOR = 1;
/** First retry delay; doubles on each retry. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 1000;
/** Compaction: how the agent opens a reference the summary names: with the package's read tool. */
export const DEFAULT_REFERENCE_READER = 'read-tool';

/**
 * Name of the package's read tool (`createReadOffloadedTool`). Batch offload and the direct
 * offload middleware never offload its results: they are pages of content already offloaded.
 */
export const READ_OFFLOADED_TOOL_NAME = 'read_offloaded';
