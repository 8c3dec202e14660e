/**
 * The public context manager: `createContextManager(options)` checks every option once,
 * resolves the defaults and the environment, picks the format adapter and the store, and hands
 * the pure core its ports (the store, the tokenizer, the logger, and `compactMessages` as the
 * compaction step).
 */
import {
  assertSummaryInputMaxTokens,
  resolveCompactOptions,
  resolveSummaryModel,
  type ArchivePolicy,
  type CompactOptions,
  type RestoreOptions,
  type SummaryOptions,
} from '../core/compact/compact-options.js';
import { AUTO_SESSION_ID } from '../core/manage/session-id.js';
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { FormatName, MessageFormat } from '../core/format.js';
import type { ProviderFamily } from '../core/manage/calibration.js';
import { createContextManagerWith } from '../core/manage/context-manager.js';
import { resolveAgingOptions, resolveHooks, resolveInitialCalibrationRatio, resolveProviderFamily, type OffloadTiming } from '../core/manage/manager-options.js';
import type { ContextManager, ContextManagerHooks } from '../core/manage/types.js';
import { resolveBatchOffloadOptions, type OffloadPlanOptions, type OffloadPreviewOptions } from '../core/offload-options.js';
import { OPTIONS, resolveTableOption } from '../core/option-table.js';
import type { ContentStore, Logger, TokenCounter } from '../core/ports.js';
import type { Message } from '../core/types.js';
import { resolveFormat } from '../formats/index.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';
import { createFileStore } from '../stores/file-store.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';
import { createCompaction } from './compact.js';
import { createReadOffloadedTool, type ReadOffloadedTool } from './read-offloaded-tool.js';
import { assertContentStore } from './store-target.js';

export type {
  CompactBudgets,
  ContextAction,
  ContextCompactAction,
  ContextCompactSkippedAction,
  ContextCompactSkipReason,
  ContextManager,
  ContextManagerHooks,
  ContextOffloadAction,
  ContextRecordsUnavailableAction,
  ContextStats,
  ContextUsageIgnoredAction,
  PrepareOptions,
  PrepareResult,
  ToolCallIdentity,
} from '../core/manage/types.js';
export type { ProviderFamily } from '../core/manage/calibration.js';
export type { OffloadTiming } from '../core/manage/manager-options.js';

/**
 * Options of {@link createContextManager}: where offloaded content goes (exactly one of
 * `outputDir` and `store`), the options of the three steps under their usual names, the
 * message format, and the provider family the token estimate is calibrated for. Environment
 * variables (`OFFLOAD_CHAR_THRESHOLD`, `CONTEXT_TOKEN_LIMIT`, ...) are read once, when the
 * manager is created.
 */
export interface ContextManagerOptions<M = Message> extends OffloadPlanOptions, SummaryOptions, RestoreOptions, ContextManagerHooks {
  /**
   * The shape of the messages `prepare` takes and returns: a built-in format's name or an
   * adapter of your own.
   * @default 'anthropic'
   */
  format?: FormatName | MessageFormat<M> | undefined;
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
   * Direct offload: a tool result the manager has not seen before with at least this many
   * characters goes to the store before the model sees it. Must be >= 1.
   * @default 1000
   */
  threshold?: number | undefined;
  /**
   * Follow each reference with the first and last characters of the offloaded content. As
   * results age, a new result cut for its size always keeps its head and tail: the sizes given
   * here, else 1,000 and 2,000 characters.
   * @default false
   */
  preview?: boolean | OffloadPreviewOptions | undefined;
  /**
   * When tool results go to the store.
   * - `'as-they-age'`: the model sees what it asked for. The newest results (those answering
   *   the latest assistant turn) are sent whole; one of more than `maxInlineResultChars` is cut
   *   to its reference, head and tail. Older results stay inline until those of at least
   *   `threshold` characters add up to more than `agedBudgetChars`, then all of them go to the
   *   store at once, so the prompt prefix changes once per batch.
   * - `'on-arrival'`: every new result of at least `threshold` characters is replaced by its
   *   reference before the model sees it (the model reads it back when it needs it), and older
   *   results of at least `charThreshold` go when the ratio gate passes (`ratioThreshold`).
   * @default 'as-they-age'
   */
  offloadTiming?: OffloadTiming | undefined;
  /**
   * As results age: a new result of more characters than this is cut to its reference, head
   * and tail. An integer >= 1.
   * @default half of the window, at 4 characters per token (`contextTokenLimit × 2`)
   */
  maxInlineResultChars?: number | undefined;
  /**
   * As results age: the older results of at least `threshold` characters stay inline until they
   * add up to more than this many characters. An integer >= 1.
   * @default a tenth of the window, at 4 characters per token (`contextTokenLimit × 0.4`)
   */
  agedBudgetChars?: number | undefined;
  /**
   * The context window, in tokens (an integer >= 1).
   * @default 200000, env `CONTEXT_TOKEN_LIMIT`
   */
  contextTokenLimit?: number | undefined;
  /**
   * Compaction triggers when the estimate reaches `contextTokenLimit × compactThresholdRatio`;
   * a number in [0, 1]. A compaction leaves at most half of that.
   * @default 0.92, env `COMPACT_THRESHOLD_RATIO`
   */
  compactThresholdRatio?: number | undefined;
  /**
   * When the archive of the compacted messages cannot be written: `'required'` skips the
   * compaction, `'best-effort'` compacts anyway.
   * @default 'required'
   */
  archive?: ArchivePolicy | undefined;
  /**
   * A user message appended after a compaction (e.g. `"Continue with the task."`), so the
   * history does not end with an assistant message.
   * @default undefined (none)
   */
  resumeMessage?: string | undefined;
  /**
   * The family of the model the history is sent to, which sets the margin on local token
   * estimates until the provider's first usage figure arrives: `'anthropic'` 1.5, `'openai'` 1,
   * `'other'` 1.5.
   * @default inferred from `model`, else from `format` (`anthropic` → `'anthropic'`, the OpenAI formats → `'openai'`, others → `'other'`)
   */
  provider?: ProviderFamily | undefined;
  /**
   * The model the history is sent to (`claude-sonnet-4-6`, `gpt-5`): its name gives the
   * provider family when `provider` is not set.
   */
  model?: string | undefined;
  /**
   * The local tokenizer. Counts are cached per message object.
   * @default o200k_base through `gpt-tokenizer`
   */
  tokenCounter?: TokenCounter | undefined;
  /**
   * Receives warnings: ignored usage figures, failed compactions, unusable records, hooks that threw.
   * @default console (warnings only)
   */
  logger?: Logger | undefined;
  /**
   * The directory files read in the conversation are restored from after a compaction. Unlike
   * `compactMessages`, the manager restores nothing without it: a server must never put its
   * own files into a user's context.
   * @default undefined (no file is restored)
   */
  workDir?: string | undefined;
}


/** Names the default tokenizer in the session's records. */
const DEFAULT_TOKENIZER_ID = 'o200k_base';

/**
 * The read tool of a manager whose session is named by its first history: it opens that
 * session's references once the session is known, and refuses every reference before.
 */
function createSessionReadTool(store: ContentStore, currentSession: () => string | undefined): ReadOffloadedTool {
  const tools = new Map<string, ReadOffloadedTool>();
  const template = createReadOffloadedTool({ store, sessionId: AUTO_SESSION_ID });
  const execute: ReadOffloadedTool['execute'] = (input, options) => {
    const sessionId = currentSession();
    if (sessionId === undefined) return Promise.resolve('Refused: no conversation has been prepared yet, so no reference can be read.');
    let tool = tools.get(sessionId);
    if (tool === undefined) tools.set(sessionId, (tool = createReadOffloadedTool({ store, sessionId })));
    return tool.execute(input, options);
  };
  return { ...template, execute, aiSdk: { ...template.aiSdk, execute: (input, aiSdkOptions) => execute(input, { signal: aiSdkOptions?.abortSignal }) } };
}

/** The store: `store` as given, or a file store over `outputDir`; exactly one. */
function resolveManagerStore(fields: { store?: unknown; outputDir?: unknown }): ContentStore {
  if (fields.store !== undefined) {
    if (fields.outputDir !== undefined) {
      throw new InvalidOptionError('pass either store or outputDir, not both: offloaded results and archives go to one place');
    }
    assertContentStore(fields.store);
    return fields.store;
  }
  if (fields.outputDir === undefined) {
    throw new InvalidOptionError('pass store or outputDir: where the context manager puts offloaded results and compaction archives');
  }
  return createFileStore({ dir: fields.outputDir as string });
}

/**
 * Creates the context manager of one conversation: call `prepare(messages, { lastUsage })`
 * before every model request and send the messages it returns. In order, each step only when
 * needed:
 * 1. direct offload: tool results it has not seen before, of at least `threshold` characters,
 *    go to the store and a reference takes their place;
 * 2. batch offload: when the ratio gate passes (`charThreshold`, `ratioThreshold`), older
 *    results go too;
 * 3. when the estimate is still at the trigger, older results go without the gate, and if that
 *    is not enough the history is compacted (summary, archive, restored files), fitted to half
 *    of the trigger.
 *
 * Decisions already taken never change: a message comes back as it went out the first time, and
 * an offloaded result keeps its reference, so the prompt prefix stays byte-stable between calls
 * (prompt caching keeps working). A compaction that fails returns the history with the offloads
 * done so far (`actions` says why), and repeated failures back off. `lastUsage` makes the
 * estimate exact for what the provider counted and calibrates the rest.
 *
 * `readTool` is the read tool over the same store and session: register it with the model so it
 * can open any reference. `offloadOutput` serves per-tool hooks of agent frameworks.
 *
 * @throws {InvalidOptionError} (or {@link UnsafePathError} for `sessionId`) naming the option,
 * at creation: both or neither of `outputDir` and `store`, an unknown `format` or `provider`,
 * a value out of range, a port without its methods. `prepare` rejects with
 * `InvalidMessageError` for a malformed message (its index and field), with `WRITE_FAILED` when
 * the store refuses an offload, and with the signal's reason when aborted.
 *
 * @example
 * ```ts
 * const manager = createContextManager({ outputDir: '.context', model: 'claude-sonnet-4-6' });
 * let lastUsage;
 * for (;;) {
 *   const { messages: prepared } = await manager.prepare(history, { lastUsage });
 *   const response = await anthropic.messages.create({ model, max_tokens, messages: prepared, tools: [...tools, manager.readTool.anthropic] });
 *   lastUsage = { ...response.usage, messageCount: prepared.length };
 *   history = [...prepared, { role: 'assistant', content: response.content }, toolResultsMessage];
 * }
 * ```
 */
export function createContextManager<M = Message>(options: ContextManagerOptions<M>): ContextManager<M> & {
  /** The read tool (`read_offloaded`) over the manager's store, bound to its session. */
  readonly readTool: ReadOffloadedTool;
  /** The session the manager works in; with `sessionId: 'auto'`, `undefined` until a history with a user message names it. */
  readonly sessionId: string | undefined;
} {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(`options must be an object { outputDir or store, ... }, got ${describeValue(options)}`);
  }
  const env = process.env;
  const format = resolveFormat(options.format as FormatName | MessageFormat | undefined) as MessageFormat<M>;
  const store = resolveManagerStore(options);
  const sessionId = resolveTableOption(OPTIONS.sessionId, options.sessionId);
  const threshold = resolveTableOption(OPTIONS.threshold, options.threshold);
  const { charThreshold, ratioThreshold, excludeTools, keepRecent, preview } = options;
  const batch = {
    ...resolveBatchOffloadOptions({ charThreshold, ratioThreshold, excludeTools, keepRecent, preview }, env),
    // references name the store's own key under the session, which the read tool opens
    reference: 'absolute' as const,
  };
  const logger = options.logger ?? consoleLogger;
  const tokenCounter = options.tokenCounter ?? defaultTokenCounter;
  // Every other option is compaction's (summarizer, budgets, restore, archive policy, ...): passed on as given.
  const {
    format: _format,
    outputDir: _outputDir,
    store: _store,
    sessionId: _sessionId,
    threshold: _threshold,
    preview: _preview,
    charThreshold: _charThreshold,
    ratioThreshold: _ratioThreshold,
    excludeTools: _excludeTools,
    keepRecent: _keepRecent,
    provider: _provider,
    model: _model,
    onOffload: _onOffload,
    onCompact: _onCompact,
    offloadTiming: _offloadTiming,
    maxInlineResultChars: _maxInlineResultChars,
    agedBudgetChars: _agedBudgetChars,
    ...compactFields
  } = options;
  // the archive's session is the call's (with 'auto', derived from the history)
  const compactOptions: CompactOptions = { ...compactFields, sessionId: sessionId === AUTO_SESSION_ID ? 'default' : sessionId, store, tokenCounter, logger };
  const compaction = resolveCompactOptions(compactOptions, env, process.cwd());
  if (options.summarizer === undefined && options.llmClient !== undefined) {
    // the checks a compaction would make at its first run, made now
    resolveSummaryModel(compaction.summaryModel, options.llmClient);
    assertSummaryInputMaxTokens(compaction, tokenCounter);
  }
  const family = resolveProviderFamily(options.provider, options.model, format.name);
  // resolved once: options, environment and summarizer; the manager decides when to compact:
  // a trigger at 0 compacts any history and, unlike `force`, keeps the no-gain guard (a
  // summary as large as what it replaces is skipped as 'no-gain')
  const runner = createCompaction(
    { ...compactOptions, contextTokenLimit: undefined, compactThresholdRatio: 0, lastUsage: undefined, force: false },
    env,
    process.cwd(),
  );
  const { offloadTiming, aging } = resolveAgingOptions(options, {
    contextTokenLimit: compaction.contextTokenLimit,
    threshold,
    cut: typeof preview === 'object' && preview !== null ? (batch.preview ?? undefined) : undefined,
  });
  const restoresFiles = options.workDir !== undefined;
  let skippedRestoreSaid = false;

  const manager = createContextManagerWith(
    {
      format,
      sessionId,
      threshold,
      excludeTools: batch.excludeTools,
      readToolNames: new Set(compaction.readToolNames),
      preview: batch.preview,
      offloadTiming,
      aging,
      batch,
      contextTokenLimit: compaction.contextTokenLimit,
      compactThresholdRatio: compaction.compactThresholdRatio,
      budgets: {
        summaryMaxWords: compaction.summaryMaxWords,
        maxRestoreFiles: restoresFiles ? compaction.maxRestoreFiles : 0,
        maxRestoreTokensPerFile: compaction.maxRestoreTokensPerFile,
        maxRestoreTokensTotal: compaction.maxRestoreTokensTotal,
      },
      resumeMessage: compaction.resumeMessage,
      initialCalibrationRatio: resolveInitialCalibrationRatio(family),
      hooks: resolveHooks(options),
    },
    {
      store,
      tokenCounter,
      tokenizerId: tokenCounter === defaultTokenCounter ? DEFAULT_TOKENIZER_ID : undefined,
      countsAtMostUtf8Bytes: tokenCounter === defaultTokenCounter,
      hashing: sha256Hashing,
      logger,
      compact: (messages, call) => {
        if (!restoresFiles && !skippedRestoreSaid) {
          skippedRestoreSaid = true;
          logger.warn('context manager: files read in the conversation are not restored after a compaction, since no workDir was given');
        }
        return runner.run(messages, call);
      },
    },
  );
  const readTool = sessionId === AUTO_SESSION_ID ? createSessionReadTool(store, () => manager.sessionId) : createReadOffloadedTool({ store, sessionId });
  return Object.freeze({
    prepare: manager.prepare,
    offloadOutput: manager.offloadOutput,
    readTool,
    get sessionId() {
      return manager.sessionId;
    },
  });
}
