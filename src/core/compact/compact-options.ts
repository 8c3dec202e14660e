/**
 * Options of `compactMessages` and their resolution: each setting is the option
 * when given, else its environment variable, else its default. Everything is checked here,
 * before any side effect, with messages naming the option or variable.
 */
import { DEFAULT_REFERENCE_READER, DEFAULT_SUMMARY_MODEL } from '../options/defaults.js';
import type { Environment } from '../options/env.js';
import { describeValue, InvalidOptionError } from '../errors.js';
import { OPTIONS, resolveTableOption } from '../options/option-table.js';
import type {
  ContentStore,
  ConversationRequest,
  FileReader,
  FileWriter,
  LlmClient,
  Logger,
  Summarizer,
  TokenCounter,
} from '../ports.js';
import { assertDirectorySetting } from '../store/safe-path.js';
import { assertTokenCounter, resolveCompactTrigger, type LastUsage } from '../text/tokens.js';
import { isAbsolutePath, resolvePathFrom } from '../store/path-resolution.js';
import { computeMinSummaryInputTokens, MIN_SUMMARY_CONVERSATION_TOKENS } from './summary/summarize-with-llm.js';
import { resolveSummaryMode, type SummaryMode } from './summary/summarize-reusing-prefix.js';
import type { ReferenceReader } from './summary/reference-reader.js';

/** When compaction runs: the window, the trigger and how the history is counted. Part of {@link CompactOptions}. */
export interface TriggerOptions {
  /**
   * The context window, in tokens (an integer >= 1).
   * @default 200000, env `CONTEXT_TOKEN_LIMIT`
   */
  contextTokenLimit?: number | undefined;
  /**
   * Compaction triggers when the history's tokens are >= `contextTokenLimit ×
   * compactThresholdRatio`. A number in [0, 1].
   * @default 0.92, env `COMPACT_THRESHOLD_RATIO`
   */
  compactThresholdRatio?: number | undefined;
  /**
   * Compact whatever the token count: the trigger is not checked, and the history is compacted
   * even when the result is not smaller (an automatic compaction skips that as `'no-gain'`).
   * The summary's budget still bounds what a summarizer returns.
   * @default false
   */
  force?: boolean | undefined;
  /**
   * The provider's figure for the last request, which makes the trigger's count exact for
   * the messages it sent (see `countTokens`): `{ inputTokens, messageCount }` or
   * `{ ...response.usage, messageCount }`.
   * @default undefined (everything is estimated locally)
   */
  lastUsage?: LastUsage | undefined;
  /**
   * Scales local token estimates (never the provider's figure). Must be > 0.
   * @default 1
   */
  tokenSafetyFactor?: number | undefined;
}

/** Who writes the summary, with what budget, and how failures are retried. Part of {@link CompactOptions}. */
export interface SummaryOptions {
  /**
   * Model that writes the summary, for `llmClient` or the Anthropic client. Resolved as: this
   * option, else env `SUMMARY_MODEL`, else the client's own `defaultModel`
   * ({@link LlmClient.defaultModel}), else `"claude-haiku-4-5-20251001"`. An OpenAI client has
   * no default model (its `defaultModel` is `null` unless it was created with a `model`): with
   * it, a model must come from here or `SUMMARY_MODEL`, else `compactMessages` rejects with
   * {@link InvalidOptionError} before anything is written.
   * @default env `SUMMARY_MODEL`, else the client's default model, else "claude-haiku-4-5-20251001"
   */
  summaryModel?: string | undefined;
  /**
   * Word budget of the summary (an integer >= 1; a CJK character counts as a word). A
   * summarizer's text over `computeSummaryMaxTokens(summaryMaxWords)` tokens (3,856 at 1,200
   * words) is cut to that, with a marker.
   * @default 1200, env `SUMMARY_MAX_WORDS`
   */
  summaryMaxWords?: number | undefined;
  /**
   * The text sent to an LLM summarizer never exceeds this many tokens: long tool results are
   * cut in the middle, and a Rest still too large is summarized in chunks. It must leave room
   * for the prompt's instructions plus 1,000 tokens of conversation:
   * at least `computeMinSummaryInputTokens(summaryMaxWords, tokenCounter)` (1,430 with the
   * defaults). When an LLM writes the summary (`llmClient`, or `ANTHROPIC_API_KEY`), a smaller
   * value rejects with {@link InvalidOptionError} before anything is written.
   * @default 100000
   */
  summaryInputMaxTokens?: number | undefined;
  /**
   * Retries after a failed summary attempt (a throw or blank text); an integer >= 0.
   * @default 2, env `COMPACT_MAX_RETRIES`
   */
  maxRetries?: number | undefined;
  /**
   * Wait before the first retry, in ms; each later retry waits twice the one before (an
   * error's `retryAfterMs` takes precedence). A number >= 0.
   * @default 1000
   */
  retryBaseDelayMs?: number | undefined;
  /**
   * An LLM to write the summary: the package builds its summary prompt (cut and chunked to
   * `summaryInputMaxTokens`) and sends it with `summaryModel`. Ignored when `summarizer` is
   * given.
   * @default an Anthropic client when `ANTHROPIC_API_KEY` is set (honouring `ANTHROPIC_BASE_URL`)
   */
  llmClient?: LlmClient | undefined;
  /**
   * The whole summarizing strategy: takes Rest, returns the summary. Wins over `llmClient`.
   * @default the first that applies: `llmClient`, the Anthropic client, the extractive summarizer (with a warning)
   */
  summarizer?: Summarizer | undefined;
  /**
   * How an LLM is asked for the summary:
   * - `'prompt'`: Rest is quoted in a new prompt (cut and chunked to `summaryInputMaxTokens`)
   *   and sent to `summaryModel`;
   * - `'reuse-prefix'`: the summary request repeats the conversation's own request
   *   (`conversationRequest`: model, system, tools; then Rest as its messages, with a
   *   prompt-cache breakpoint after the last one) and adds one user message asking for the
   *   summary, so the provider's prompt cache serves what the loop's last request sent: the
   *   history is billed at the cache-read rate. Needs an LLM client with
   *   `summarizeConversation` (the Anthropic client, given as `llmClient` or built from
   *   `ANTHROPIC_API_KEY`); with a custom `summarizer`, another client or no LLM at all,
   *   `compactMessages` rejects with `InvalidOptionError` before anything is written.
   *   `summaryModel` and `summaryInputMaxTokens` do not apply. `stats.summaryUsage` reports
   *   the cached and uncached input tokens. No environment variable.
   * @default 'prompt'
   */
  summaryMode?: SummaryMode | undefined;
  /**
   * The request parameters the agent loop sends, repeated exactly by `summaryMode:
   * 'reuse-prefix'` (required there, rejected otherwise): `{ model, system?, tools?,
   * tool_choice?, thinking? }`. Pass the very values the loop sends: the cached prefix
   * matches byte for byte or not at all.
   * @default undefined
   */
  conversationRequest?: ConversationRequest | undefined;
}

/** Where the compacted messages are archived before they are summarized. Part of {@link CompactOptions}. */
export interface ArchiveOptions {
  /**
   * Where the compacted messages are archived before summarizing, absolute or relative to
   * `workDir`; each session has a folder in it.
   * @default ".compact", env `COMPACT_OUTPUT_DIR`
   */
  outputDir?: string | undefined;
  /**
   * What to do when the archive of the compacted messages cannot be written (a full disk, a
   * read-only directory): `'required'` skips the compaction (`skippedReason: 'archive-failed'`,
   * the history untouched), so nothing is summarized away that is not saved; `'best-effort'`
   * compacts anyway with `originalMessagesPath: null`. Both log a
   * warning. No environment variable.
   * @default 'required'
   */
  archive?: ArchivePolicy | undefined;
  /**
   * The session's archive folder under `outputDir`: 1–200 characters of `[A-Za-z0-9._-]`.
   * @default "default"
   */
  sessionId?: string | undefined;
  /**
   * Writes the archive under `<workDir>/<outputDir>/<sessionId>/` (`ensureDir` optional).
   * Without it (and without `store`) the archive goes to a file store (`createFileStore`) over
   * `<workDir>/<outputDir>`, which compaction can also read offloaded content back from.
   * @default undefined
   */
  fileWriter?: FileWriter | undefined;
  /**
   * Where the archive goes instead of the file system: any `ContentStore` (Redis, S3, ...),
   * under the key `<sessionId>/compact-<time>-<n>.json`; `originalMessagesPath` is then the
   * store's reference (`redis://...`). Not with `fileWriter` or `outputDir`.
   */
  store?: ContentStore | undefined;
  /**
   * The folder `offloadToolResults` wrote to (its `outputDir`), absolute or relative to
   * `workDir`, when it is not inside `workDir` or its references are relative
   * (`./tool-result-x.md`): the last error a tool printed is read back from the results offloaded
   * there (their first and last 16 KB). A result offloaded to a folder inside `workDir`, or into
   * `store`, is read back without it.
   * @default undefined (folders inside `workDir`, and `store`)
   */
  offloadDir?: string | undefined;
}

/** Which recently read files are read again and put back after the summary. Part of {@link CompactOptions}. */
export interface RestoreOptions {
  /**
   * How many of the most recently read files are candidates for restoration (an integer >= 0;
   * 0 restores nothing). A skipped candidate is not replaced by an older one.
   * @default 5, env `MAX_RESTORE_FILES`
   */
  maxRestoreFiles?: number | undefined;
  /**
   * A file of more tokens than this is not restored (an integer >= 0).
   * @default 5000, env `MAX_RESTORE_TOKENS_PER_FILE`
   */
  maxRestoreTokensPerFile?: number | undefined;
  /**
   * Restoration stops before the file that would take the restored total above this (an
   * integer >= 0).
   * @default 50000, env `MAX_RESTORE_TOKENS_TOTAL`
   */
  maxRestoreTokensTotal?: number | undefined;
  /**
   * Directory that read paths are resolved against and that restoration never leaves
   * (symlinks are followed for the check). A relative value is resolved against the current
   * directory.
   * @default process.cwd()
   */
  workDir?: string | undefined;
  /**
   * Tools whose `tool_use` reads a file, e.g. `['Read']` for Claude Code or
   * `['str_replace_based_edit_tool']`.
   * @default ["read_file"]
   */
  readToolNames?: readonly string[] | undefined;
  /**
   * Field of the read tool's `input` that holds the path, e.g. `'file_path'` for Claude Code.
   * @default "path"
   */
  pathField?: string | undefined;
  /**
   * Reads the files to restore.
   * @default the Node file reader
   */
  fileReader?: FileReader | undefined;
}

/** What compaction and restoration share: the tokenizer, the logger and the abort signal. Part of {@link CompactOptions}. */
export interface PortOptions {
  /**
   * The tokenizer for the trigger, the stats and the restore budgets.
   * @default o200k_base through `gpt-tokenizer`
   */
  tokenCounter?: TokenCounter | undefined;
  /**
   * Receives warnings (skipped files, archive failures, the extractive fallback) and, with
   * `info`, notes on budget skips.
   * @default console (warnings only)
   */
  logger?: Logger | undefined;
  /**
   * Aborts compaction: `compactMessages` rejects with the signal's reason; nothing is retried.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Options of `compactMessages`. All optional: with none, compaction triggers at 92% of a
 * 200,000-token window, archives to `./.compact/default/`, restores up to 5 recently read
 * files, and summarizes with the first available of `summarizer`, `llmClient`, an Anthropic
 * client (when `ANTHROPIC_API_KEY` is set) or the offline extractive summarizer.
 * Environment variables are read at each call.
 */
export interface CompactOptions extends TriggerOptions, SummaryOptions, ArchiveOptions, RestoreOptions, PortOptions {
  /**
   * A user message appended after the compacted history (e.g. `"Continue with the task."`),
   * so the list does not end with an assistant message, which a request would send as a
   * prefill. Must not be blank.
   * @default undefined (none)
   */
  resumeMessage?: string | undefined;
  /**
   * How the agent that reads the summary opens a reference it names, which the summary tells it:
   * `'read-tool'` with the package's read tool (`createReadOffloadedTool`, registered with the
   * model: "The read tool opens any reference below (pass it as ref)"); `'own-tools'` with its
   * own tools, for an agent that has no such tool and whose references are file paths ("Each
   * reference below is a file: open it with your own tools"), as behind the proxy.
   * @default 'read-tool'
   */
  referenceReader?: ReferenceReader | undefined;
}

/** Whether compaction needs its archive (`'required'`) or may go on without it (`'best-effort'`). */
export type ArchivePolicy = 'required' | 'best-effort';

/** Options of `restoreRecentFiles`: the restoration settings of {@link CompactOptions}. */
export interface RestoreRecentFilesOptions extends RestoreOptions, PortOptions {}

/** The restoration settings, resolved and checked. */
export interface ResolvedRestoreOptions {
  maxRestoreFiles: number;
  maxRestoreTokensPerFile: number;
  maxRestoreTokensTotal: number;
  /** Absolute. */
  workDir: string;
  readToolNames: readonly string[];
  pathField: string;
}

/** Every setting of {@link CompactOptions} that is a value, resolved and checked. */
export interface ResolvedCompactOptions extends ResolvedRestoreOptions {
  contextTokenLimit: number;
  compactThresholdRatio: number;
  force: boolean;
  lastUsage: LastUsage | undefined;
  tokenSafetyFactor: number;
  /** The option, else `SUMMARY_MODEL`; `undefined` when neither is set (the client's default applies: {@link resolveSummaryModel}). */
  summaryModel: string | undefined;
  summaryMaxWords: number;
  summaryInputMaxTokens: number;
  /** The conversation's request to repeat: present with `summaryMode: 'reuse-prefix'` only. */
  conversationRequest?: ConversationRequest;
  maxRetries: number;
  retryBaseDelayMs: number;
  /** As given (absolute or relative to `workDir`). */
  outputDir: string;
  /** Absolute; `undefined` when not given. */
  offloadDir?: string | undefined;
  archive: ArchivePolicy;
  sessionId: string;
  resumeMessage: string | undefined;
  referenceReader: ReferenceReader;
  signal: AbortSignal | undefined;
}

function assertPort(name: string, value: unknown, methods: readonly string[]): void {
  if (value === undefined) return;
  const ok =
    typeof value === 'object' &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
  if (!ok) {
    const list = methods.map((method) => `${method}()`).join(' and ');
    throw new InvalidOptionError(`${name} must be an object with ${list}, got ${describeValue(value)}`);
  }
}

function assertDefaultModel(defaultModel: unknown): void {
  if (defaultModel === undefined || defaultModel === null) return;
  if (typeof defaultModel !== 'string' || defaultModel.trim() === '') {
    throw new InvalidOptionError(
      `llmClient.defaultModel must be a non-empty string or null, got ${describeValue(defaultModel)}`,
    );
  }
}

function assertSignal(signal: unknown): asserts signal is AbortSignal | undefined {
  if (signal === undefined) return;
  const ok =
    typeof signal === 'object' &&
    signal !== null &&
    typeof (signal as AbortSignal).aborted === 'boolean' &&
    typeof (signal as AbortSignal).addEventListener === 'function';
  if (!ok) throw new InvalidOptionError(`signal must be an AbortSignal, got ${describeValue(signal)}`);
}

/**
 * Checks the ports given in `options` (each must have its methods), so a wrong object fails
 * before anything is written.
 *
 * @throws {InvalidOptionError}
 */
function assertCompactPorts(options: CompactOptions): void {
  assertPort('summarizer', options.summarizer, ['summarize']);
  assertPort('llmClient', options.llmClient, ['summarize']);
  if (options.llmClient !== undefined) assertDefaultModel(options.llmClient.defaultModel);
  assertPort('fileReader', options.fileReader, ['read', 'exists']);
  assertPort('fileWriter', options.fileWriter, ['writeFile']);
  if (options.store !== undefined && (options.fileWriter !== undefined || options.outputDir !== undefined)) {
    throw new InvalidOptionError(
      'pass store, or fileWriter/outputDir, not both: a store decides where its archive goes',
    );
  }
  assertPort('store', options.store, ['putIfAbsent', 'put', 'get', 'stat', 'list', 'delete', 'referenceFor', 'keyFor']);
  assertPort('logger', options.logger, ['warn']);
  if (options.tokenCounter !== undefined) assertTokenCounter(options.tokenCounter);
  assertSignal(options.signal);
}

function resolveArchivePolicy(archive: unknown): ArchivePolicy {
  if (archive === undefined) return 'required';
  if (archive !== 'required' && archive !== 'best-effort') {
    throw new InvalidOptionError(`archive must be "required" or "best-effort", got ${describeValue(archive)}`);
  }
  return archive;
}

function resolveReferenceReader(referenceReader: unknown): ReferenceReader {
  if (referenceReader === undefined) return DEFAULT_REFERENCE_READER;
  if (referenceReader !== 'read-tool' && referenceReader !== 'own-tools') {
    throw new InvalidOptionError(
      `referenceReader must be "read-tool" or "own-tools", got ${describeValue(referenceReader)}`,
    );
  }
  return referenceReader;
}

function assertOptionsObject(options: unknown): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(`options must be an object, got ${describeValue(options)}`);
  }
}

/**
 * Resolves the restoration settings (option, else environment, else default) and checks the
 * ports among them.
 *
 * @throws {InvalidOptionError} naming the option or variable.
 */
export function resolveRestoreOptions(
  options: RestoreRecentFilesOptions,
  env: Environment,
  currentDir: string,
): ResolvedRestoreOptions {
  assertOptionsObject(options);
  assertPort('fileReader', options.fileReader, ['read', 'exists']);
  assertPort('logger', options.logger, ['warn']);
  if (options.tokenCounter !== undefined) assertTokenCounter(options.tokenCounter);
  assertSignal(options.signal);
  const workDir = options.workDir === undefined ? currentDir : assertDirectorySetting('workDir', options.workDir);
  return {
    maxRestoreFiles: resolveTableOption(OPTIONS.maxRestoreFiles, options.maxRestoreFiles, env),
    maxRestoreTokensPerFile: resolveTableOption(OPTIONS.maxRestoreTokensPerFile, options.maxRestoreTokensPerFile, env),
    maxRestoreTokensTotal: resolveTableOption(OPTIONS.maxRestoreTokensTotal, options.maxRestoreTokensTotal, env),
    // A relative workDir is taken from the current directory, as the OS would.
    workDir: isAbsolutePath(workDir) ? resolvePathFrom(workDir) : resolvePathFrom(currentDir, workDir),
    readToolNames: resolveTableOption(OPTIONS.readToolNames, options.readToolNames),
    pathField: resolveTableOption(OPTIONS.pathField, options.pathField),
  };
}

/**
 * Resolves every value setting of {@link CompactOptions} against the environment `env` and
 * the current directory `currentDir` (for `workDir`), and checks the ports.
 *
 * @throws {InvalidOptionError} naming the option or variable, e.g.
 *   `MAX_RESTORE_FILES must be an integer >= 0, got "five"`.
 * @throws {UnsafePathError} when `sessionId` is not a safe folder name.
 */
export function resolveCompactOptions(
  options: CompactOptions,
  env: Environment,
  currentDir: string,
): ResolvedCompactOptions {
  assertOptionsObject(options);
  assertCompactPorts(options);
  const trigger = resolveCompactTrigger(options, env);
  if (options.force !== undefined && typeof options.force !== 'boolean') {
    throw new InvalidOptionError(`force must be a boolean, got ${describeValue(options.force)}`);
  }
  // `null` has always meant the default here, as in countTokens.
  const tokenSafetyFactor = resolveTableOption(OPTIONS.tokenSafetyFactor, options.tokenSafetyFactor ?? undefined);
  if (options.lastUsage !== undefined && (typeof options.lastUsage !== 'object' || options.lastUsage === null)) {
    throw new InvalidOptionError(
      `lastUsage must be an object { inputTokens, messageCount }, got ${describeValue(options.lastUsage)}`,
    );
  }
  const resumeMessage = options.resumeMessage;
  if (resumeMessage !== undefined && (typeof resumeMessage !== 'string' || resumeMessage.trim() === '')) {
    throw new InvalidOptionError(`resumeMessage must be a non-blank string, got ${describeValue(resumeMessage)}`);
  }
  const restore = resolveRestoreOptions(options, env, currentDir);
  const offloadDir =
    options.offloadDir === undefined
      ? undefined
      : resolvePathFrom(restore.workDir, assertDirectorySetting('offloadDir', options.offloadDir));
  return {
    ...trigger,
    force: options.force ?? false,
    lastUsage: options.lastUsage,
    tokenSafetyFactor,
    summaryModel: resolveTableOption(OPTIONS.summaryModel, options.summaryModel, env),
    summaryMaxWords: resolveTableOption(OPTIONS.summaryMaxWords, options.summaryMaxWords, env),
    summaryInputMaxTokens: resolveTableOption(OPTIONS.summaryInputMaxTokens, options.summaryInputMaxTokens, env),
    ...resolveSummaryMode(options),
    maxRetries: resolveTableOption(OPTIONS.maxRetries, options.maxRetries, env),
    retryBaseDelayMs: resolveTableOption(OPTIONS.retryBaseDelayMs, options.retryBaseDelayMs, env),
    outputDir: resolveTableOption(OPTIONS.compactOutputDir, options.outputDir, env),
    archive: resolveArchivePolicy(options.archive),
    sessionId: resolveTableOption(OPTIONS.sessionId, options.sessionId),
    offloadDir,
    ...restore,
    resumeMessage,
    referenceReader: resolveReferenceReader(options.referenceReader),
    signal: options.signal,
  };
}

/**
 * The model that writes the summary with `client`: `summaryModel` (the option, else
 * `SUMMARY_MODEL`, as resolved) when set, else the client's {@link LlmClient.defaultModel},
 * else {@link DEFAULT_SUMMARY_MODEL} — except for a client whose `defaultModel` is `null` (the
 * OpenAI client), which has no default: a model must then be given.
 *
 * @throws {InvalidOptionError} when no model is set and `client.defaultModel` is `null`.
 */
export function resolveSummaryModel(summaryModel: string | undefined, client: LlmClient): string {
  if (summaryModel !== undefined) return summaryModel;
  const defaultModel = client.defaultModel;
  if (defaultModel === null) {
    throw new InvalidOptionError(
      'summaryModel (or SUMMARY_MODEL) is required with an OpenAI client: its defaultModel is null (OpenAI-compatible servers have no common model); ' +
        'pass summaryModel, set SUMMARY_MODEL, or create the client with { model }',
    );
  }
  return defaultModel ?? DEFAULT_SUMMARY_MODEL;
}

/**
 * Checks that `summaryInputMaxTokens` leaves room for one summary prompt of `summaryMaxWords`
 * words: its instructions as `tokenCounter` counts them plus
 * {@link MIN_SUMMARY_CONVERSATION_TOKENS} of conversation. Called when an LLM writes the
 * summary, before anything is written (a smaller value would archive Rest, then fail every
 * attempt).
 *
 * @throws {InvalidOptionError} naming the option, the minimum and the value, e.g.
 *   `summaryInputMaxTokens must be at least 1430 for a 1200-word summary (...), got 500`.
 */
export function assertSummaryInputMaxTokens(
  options: Pick<ResolvedCompactOptions, 'summaryInputMaxTokens' | 'summaryMaxWords'>,
  tokenCounter: TokenCounter,
): void {
  const { summaryInputMaxTokens, summaryMaxWords } = options;
  const minimum = computeMinSummaryInputTokens(summaryMaxWords, tokenCounter);
  if (summaryInputMaxTokens < minimum) {
    throw new InvalidOptionError(
      `summaryInputMaxTokens must be at least ${minimum} for a ${summaryMaxWords}-word summary ` +
        `(the prompt's instructions take ${minimum - MIN_SUMMARY_CONVERSATION_TOKENS} tokens, plus ${MIN_SUMMARY_CONVERSATION_TOKENS} for the conversation), got ${summaryInputMaxTokens}`,
    );
  }
}
