/**
 * The options of `createContextManager`: at the top what every user sets (where content goes,
 * the session, the format, the model, the window, the ports, the hooks); below, the tuning
 * knobs in two groups, `offload` and `compaction`, the latter shaped like LangChain's
 * summarization middleware (when it triggers, then what the summary, the restored files and
 * the archive are). The groups are the package's one vocabulary of tuning knobs: the proxy,
 * the integrations and the CLI's config file take them as they are.
 */
import type { ArchivePolicy } from '../core/compact/compact-options.js';
import type { SummaryMode } from '../core/compact/summary/summarize-reusing-prefix.js';
import type { ReferenceReader } from '../core/compact/summary/reference-reader.js';
import type { FormatName, MessageFormat } from '../core/format.js';
import type { CostModelOptions } from '../core/cost/cost-model.js';
import type { ProviderFamily } from '../core/manage/counting/calibration.js';
import type { OffloadTiming } from '../core/manage/manager-options.js';
import type { ContextManagerHooks } from '../core/manage/types.js';
import type { OffloadPreviewOptions } from '../core/options/offload-options.js';
import type {
  ContentStore,
  ConversationRequest,
  FileReader,
  LlmClient,
  Logger,
  Summarizer,
  TokenCounter,
} from '../core/ports.js';
import type { Message } from '../core/types.js';
import { OPTION_GROUPS } from '../core/options/option-table.js';

/** `offload` of {@link ContextManagerOptions}: when and which tool results go to the store. */
export interface ManagerOffloadOptions {
  /**
   * When tool results go to the store.
   * - `'as-they-age'`: the model sees what it asked for. The newest results (those answering
   *   the latest assistant turn) are sent whole; one of more than `maxInlineResultChars` is cut
   *   to its reference, head and tail. Older results stay inline until those of at least
   *   `minAgedResultChars` add up to more than `agedBudgetChars` and the batch pays for the
   *   prefix it rewrites, then all of them go to the store at once, so the prompt prefix changes
   *   once per batch.
   * - `'on-arrival'`: every new result of at least `directThreshold` characters is replaced by
   *   its reference before the model sees it (the model reads it back when it needs it), and
   *   older results of at least `charThreshold` go when the ratio gate passes (`ratioThreshold`).
   * @default 'as-they-age'
   */
  timing?: OffloadTiming | undefined;
  /**
   * The size at which one tool result, or one field of a tool's input, is offloaded on its own:
   * on arrival, every new result of at least this many characters before the model sees it;
   * with either timing, the fields of older tool inputs a batch takes, and the newest results
   * when a compaction must keep them in view. An integer >= 1. (It was `offload.threshold`.)
   * @default 1000
   */
  directThreshold?: number | undefined;
  /**
   * As results age: the smallest older result a batch takes, and counts toward
   * `agedBudgetChars`; over the trigger too (a smaller result frees little once its reference
   * is in). An integer >= 1. Unused on arrival.
   * @default 300
   */
  minAgedResultChars?: number | undefined;
  /**
   * On arrival: the smallest result offloaded when the history is over the trigger, and by
   * the ratio gate; as results age, a result must reach it as well as `minAgedResultChars`. A
   * number >= 1.
   * @default 100
   */
  charThreshold?: number | undefined;
  /**
   * On arrival: the batch offload runs only when offloadable characters make up at least this
   * share of the history's; a number in [0, 1].
   * @default 0.2
   */
  ratioThreshold?: number | undefined;
  /**
   * The newest this many results stay inline in a batch; an integer >= 0.
   * @default 0
   */
  keepRecent?: number | undefined;
  /**
   * Tools whose results are never offloaded (the read tool, `read_offloaded`, never is).
   * @default []
   */
  excludeTools?: readonly string[] | undefined;
  /**
   * Follow each reference with the first and last characters of the offloaded content. As
   * results age, a new result cut for its size always keeps its head and tail: the sizes given
   * here, else 1,000 and 2,000 characters.
   * @default false
   */
  preview?: boolean | OffloadPreviewOptions | undefined;
  /**
   * As results age: a new result of more characters than this is cut to its reference, head
   * and tail. An integer >= 1.
   * @default half of the window, at 4 characters per token (`contextTokenLimit × 2`)
   */
  maxInlineResultChars?: number | undefined;
  /**
   * As results age: the older results of at least `minAgedResultChars` characters stay inline until they add up to more than this many characters. An integer >= 1.
   * @default a fifth of the window, at 4 characters per token (`contextTokenLimit × 0.8`), at most 20,000
   */
  agedBudgetChars?: number | undefined;
}

/** `compaction.summary`: how the summary is written, with what budget, and how failures are retried. */
export interface ManagerSummaryOptions {
  /**
   * The model that writes the summary with `llmClient` or the Anthropic client.
   * @default the client's default model, else "claude-haiku-4-5-20251001"
   */
  model?: string | undefined;
  /**
   * Word budget of the summary (an integer >= 1); the manager shrinks it in a small window.
   * @default 1200
   */
  maxWords?: number | undefined;
  /**
   * The text sent to an LLM summarizer never exceeds this many tokens (an integer >= 1, large
   * enough for the prompt's instructions plus 1,000 tokens of conversation).
   * @default 100000
   */
  inputMaxTokens?: number | undefined;
  /**
   * Retries after a failed summary attempt; an integer >= 0.
   * @default 2
   */
  maxRetries?: number | undefined;
  /**
   * Wait before the first retry, in ms, doubled for each later one; a number >= 0.
   * @default 1000
   */
  retryBaseDelayMs?: number | undefined;
  /**
   * `'prompt'`: the compacted messages are quoted in a new prompt; `'reuse-prefix'`: the
   * summary request repeats the conversation's own request (`conversationRequest`), so the
   * provider's prompt cache serves it (an LLM client with `summarizeConversation` only).
   * @default 'prompt'
   */
  mode?: SummaryMode | undefined;
  /**
   * The request the agent loop sends (`{ model, system?, tools?, ... }`), repeated by
   * `mode: 'reuse-prefix'` (required there, refused otherwise).
   * @default undefined
   */
  conversationRequest?: ConversationRequest | undefined;
}

/** `compaction.restore`: which recently read files are put back after the summary (only with `workDir`). */
export interface ManagerRestoreOptions {
  /**
   * How many of the most recently read files are candidates (an integer >= 0; 0 restores none).
   * @default 5
   */
  maxFiles?: number | undefined;
  /**
   * A file of more tokens than this is not restored (an integer >= 0).
   * @default 5000
   */
  maxTokensPerFile?: number | undefined;
  /**
   * Restoration stops before the file that would take the total above this (an integer >= 0).
   * @default 50000
   */
  maxTokensTotal?: number | undefined;
  /**
   * Tools whose `tool_use` reads a file (`['Read']` for Claude Code); a result of one that
   * returns content already stored is never cut or offloaded on arrival.
   * @default ["read_file"]
   */
  readToolNames?: readonly string[] | undefined;
  /**
   * Field of the read tool's input that holds the path (`'file_path'` for Claude Code).
   * @default "path"
   */
  pathField?: string | undefined;
  /**
   * Reads the files to restore.
   * @default the Node file reader
   */
  fileReader?: FileReader | undefined;
}

/**
 * `compaction` of {@link ContextManagerOptions}: when the history is compacted and what the
 * compaction writes. The manager archives into its own store, under its session.
 */
export interface ManagerCompactionOptions {
  /**
   * The manager compacts (it first offloads without the gate) when the estimate reaches
   * `contextTokenLimit × triggerRatio`; a number in [0, 1]. A compaction leaves at most half
   * of that. (It was `compaction.trigger.ratio`.)
   * @default 0.92
   */
  triggerRatio?: number | undefined;
  /** How the summary is written. */
  summary?: ManagerSummaryOptions | undefined;
  /** Which files are restored after the summary. */
  restore?: ManagerRestoreOptions | undefined;
  /**
   * When the archive of the compacted messages cannot be written: `'required'` skips the
   * compaction, `'best-effort'` compacts anyway. (It was `compaction.archive.policy`.)
   * @default 'required'
   */
  archivePolicy?: ArchivePolicy | undefined;
  /**
   * A user message appended after a compaction (e.g. `"Continue with the task."`), so the
   * history does not end with an assistant message; appended only when no exchange in flight
   * follows the summary.
   * @default undefined (none)
   */
  resumeMessage?: string | undefined;
}

/**
 * Options of `createContextManager`. At the top what every user sets: where offloaded content
 * goes (exactly one of `outputDir` and `store`), the session, the message format, the model
 * and window, the summarizer, the ports and the hooks. The tuning knobs are in two groups,
 * `offload` and `compaction`. The manager reads no environment variable: every setting comes
 * from these options (the CLI's `proxy`, `wrap` and `replay` read `CONTEXT_TOKEN_LIMIT`,
 * `OFFLOAD_CHAR_THRESHOLD`, ... and pass them here). An unknown key is an error naming it, at
 * any level; a removed one (`offload.threshold`, `compaction.trigger`) names its replacement.
 *
 * @example
 * ```ts
 * createContextManager({
 *   outputDir: '.context',
 *   model: 'claude-sonnet-4-6',
 *   contextTokenLimit: 200_000,
 *   offload: { timing: 'on-arrival', directThreshold: 4000 },
 *   compaction: { triggerRatio: 0.8, summary: { maxWords: 800 }, resumeMessage: 'Continue with the task.' },
 * });
 * ```
 */
export interface ContextManagerOptions<M = Message> extends ContextManagerHooks {
  /**
   * Directory of a file store holding the offloaded results and the compaction archives (under
   * `<sessionId>/`). Exactly one of `outputDir` and `store`.
   */
  outputDir?: string | undefined;
  /** Where offloaded results and archives go instead of `outputDir`: any `ContentStore`. */
  store?: ContentStore | undefined;
  /**
   * The conversation: every key goes under `<sessionId>/` (offloaded content, compaction
   * archives, and the records that let any process prepare the conversation alike), and the
   * read tool opens only those. 1-200 characters of `[A-Za-z0-9._-]`, or `'auto'`: the session
   * is derived from the history's system prompt and first user message (`deriveSessionId`), for
   * servers that have nothing else to name a conversation by; send the conversation's own
   * history then (its first user message must stay the same).
   * @default 'default'
   */
  sessionId?: string | undefined;
  /**
   * The shape of the messages `prepare` takes and returns: a built-in format's name or an
   * adapter of your own.
   * @default 'anthropic'
   */
  format?: FormatName | MessageFormat<M> | undefined;
  /**
   * The model the history is sent to (`claude-sonnet-4-6`, `gpt-5`): its name gives the
   * provider family when `provider` is not set.
   */
  model?: string | undefined;
  /**
   * The family of the model the history is sent to, which sets the margin on local token
   * estimates until the provider's first usage figure arrives: `'anthropic'` 1.5, `'openai'` 1,
   * `'other'` 1.5.
   * @default inferred from `model`, else from `format` (`anthropic` → `'anthropic'`, the OpenAI formats → `'openai'`, others → `'other'`)
   */
  provider?: ProviderFamily | undefined;
  /**
   * How the provider prices input with prompt caching, as shares of the uncached input price:
   * what a rewritten prompt prefix costs (`stats.costModel` shows the model in force). Chosen
   * from `provider` and `model`: `'anthropic'` reads at 0.1x and writes at 1.25x (2x with
   * `cacheTtl: '1h'`), `'openai'` writes at 1x and reads at the model's discount (0.5x `gpt-4o`,
   * 0.25x `gpt-4.1`, 0.1x `gpt-5`), `'other'` has no cache (`family: 'none'`, 1x). Each field
   * given wins: `{ family: 'openai', readRatio: 0.1 }`.
   * @default chosen from `provider` and `model`
   */
  cost?: CostModelOptions | undefined;
  /**
   * The context window, in tokens (an integer >= 1).
   * @default 200000
   */
  contextTokenLimit?: number | undefined;
  /**
   * The directory files read in the conversation are restored from after a compaction. Unlike
   * `compactMessages`, the manager restores nothing without it: a server must never put its
   * own files into a user's context.
   * @default undefined (no file is restored)
   */
  workDir?: string | undefined;
  /**
   * How the model opens a reference the summary names, which the summary tells it:
   * `'read-tool'` with `manager.readTool`, registered with the model; `'own-tools'` with the
   * agent's own tools (a file reader, a shell), for an agent that has no such tool and whose
   * references are file paths (the proxy passes it).
   * @default 'read-tool'
   */
  referenceReader?: ReferenceReader | undefined;
  /**
   * The whole summarizing strategy: takes the compacted messages, returns the summary. Wins
   * over `llmClient`.
   * @default `llmClient` when given, else the extractive summarizer (with a warning)
   */
  summarizer?: Summarizer | undefined;
  /**
   * An LLM to write the summary with the package's prompt (`compaction.summary` sets its model
   * and budgets). Ignored when `summarizer` is given. The manager reads no environment variable:
   * for Anthropic, pass `await createAnthropicLlmClient()` (which reads `ANTHROPIC_API_KEY`).
   * @default undefined (the extractive summarizer writes summaries)
   */
  llmClient?: LlmClient | undefined;
  /**
   * The local tokenizer. Counts are cached per message object, and recorded in the store under
   * its `encoding` when it has one.
   * @default o200k_base through `gpt-tokenizer`
   */
  tokenCounter?: TokenCounter | undefined;
  /**
   * Receives warnings: ignored usage figures, failed compactions, unusable records, hooks that threw.
   * @default console (warnings only)
   */
  logger?: Logger | undefined;
  /** When and which tool results go to the store. */
  offload?: ManagerOffloadOptions | undefined;
  /** When the history is compacted, and how. */
  compaction?: ManagerCompactionOptions | undefined;
}

/** The keys of `T`, required (the groups' interfaces have every field optional). */
type KeysOf<T> = { [K in keyof T]-?: true };
/** `true` when `A` and `B` have the same keys. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Groups = typeof OPTION_GROUPS;
// a field added to a group without a row of the mapping (or a row without a field) does not compile
const GROUPS_MATCH_INTERFACES: [
  SameKeys<Groups['offload'], KeysOf<ManagerOffloadOptions>>,
  SameKeys<
    Omit<Groups['compaction'], 'summary' | 'restore'>,
    KeysOf<Omit<ManagerCompactionOptions, 'summary' | 'restore'>>
  >,
  SameKeys<Groups['compaction']['summary'], KeysOf<ManagerSummaryOptions>>,
  SameKeys<Groups['compaction']['restore'], KeysOf<ManagerRestoreOptions>>,
] = [true, true, true, true];
void GROUPS_MATCH_INTERFACES;

/**
 * Every grouped option and the flat option it stands for: the name `offloadToolResults` and
 * `compactMessages` take, by which their resolvers check and name it (the mapping of
 * `core/options/option-table.ts`, checked against the interfaces above).
 */
export const MANAGER_OPTION_GROUPS = OPTION_GROUPS;

const TOP_LEVEL: Record<Exclude<keyof ContextManagerOptions, keyof typeof MANAGER_OPTION_GROUPS>, true> = {
  outputDir: true,
  store: true,
  sessionId: true,
  format: true,
  model: true,
  provider: true,
  cost: true,
  contextTokenLimit: true,
  workDir: true,
  referenceReader: true,
  summarizer: true,
  llmClient: true,
  tokenCounter: true,
  logger: true,
  onOffload: true,
  onCompact: true,
};

/** The keys of {@link ContextManagerOptions} that are values, not groups (every one: the record above does not compile otherwise). */
export const MANAGER_TOP_LEVEL_OPTIONS: readonly string[] = Object.keys(TOP_LEVEL);
