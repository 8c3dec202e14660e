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
  type CompactOptions,
  type ResolvedCompactOptions,
} from '../core/compact/compact-options.js';
import { AUTO_SESSION_ID } from '../core/manage/session-id.js';
import { selectCostModel } from '../core/cost/cost-model.js';
import type { Environment } from '../core/options/env.js';
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { FormatName, MessageFormat } from '../core/format.js';
import type { CompactResult } from '../core/compact/compact.js';
import { createExtractiveSummarizer } from '../core/compact/summary/extractive-summarizer.js';
import { createContextManagerWith, type CompactCall } from '../core/manage/context-manager.js';
import {
  resolveAgingOptions,
  resolveHooks,
  resolveInitialCalibrationRatio,
  resolveProviderFamily,
  type AgingOptionFields,
  type ResolvedContextManagerOptions,
} from '../core/manage/manager-options.js';
import type { ContextManager } from '../core/manage/types.js';
import { resolveBatchOffloadOptions, type BatchOffloadOptions } from '../core/options/offload-options.js';
import { flattenOptionGroups, resolveWithOptionPaths } from '../core/options/option-groups.js';
import { OPTIONS, REMOVED_GROUPED_OPTIONS, resolveTableOption } from '../core/options/option-table.js';
import type { ContentStore, Logger, TokenCounter } from '../core/ports.js';
import type { Message } from '../core/types.js';
import { resolveFormat } from '../formats/index.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';
import { createResolvedCompaction, type ResolvedCompaction } from './compact.js';
import {
  MANAGER_OPTION_GROUPS,
  MANAGER_TOP_LEVEL_OPTIONS,
  type ContextManagerOptions,
} from './context-manager-options.js';
import { createReadOffloadedTool, type ReadOffloadedTool } from './read-offloaded-tool.js';
import { resolveStoreTarget } from './store-target.js';

export type {
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
} from '../core/manage/types.js';
export type { ProviderFamily } from '../core/manage/counting/calibration.js';
export type { OffloadTiming } from '../core/manage/manager-options.js';
export type {
  ContextManagerOptions,
  ManagerCompactionOptions,
  ManagerOffloadOptions,
  ManagerRestoreOptions,
  ManagerSummaryOptions,
} from './context-manager-options.js';

/**
 * The read tool of a manager whose session is named by its first history: it opens that
 * session's references once the session is known, and refuses every reference before.
 */
function createSessionReadTool(store: ContentStore, currentSession: () => string | undefined): ReadOffloadedTool {
  const tools = new Map<string, ReadOffloadedTool>();
  const template = createReadOffloadedTool({ store, sessionId: AUTO_SESSION_ID });
  const execute: ReadOffloadedTool['execute'] = (input, options) => {
    const sessionId = currentSession();
    if (sessionId === undefined)
      return Promise.resolve('Refused: no conversation has been prepared yet, so no reference can be read.');
    let tool = tools.get(sessionId);
    if (tool === undefined) tools.set(sessionId, (tool = createReadOffloadedTool({ store, sessionId })));
    return tool.execute(input, options);
  };
  return {
    ...template,
    execute,
    aiSdk: {
      ...template.aiSdk,
      execute: (input, aiSdkOptions) => execute(input, { signal: aiSdkOptions?.abortSignal }),
    },
  };
}

/** The flat options the groups stand for: the names `offloadToolResults` and `compactMessages` take. */
type FlatManagerOptions = BatchOffloadOptions & AgingOptionFields & CompactOptions & { threshold?: unknown };

/** Everything {@link createContextManager} needs, resolved and checked once. */
interface ResolvedManager<M> {
  settings: ResolvedContextManagerOptions<M>;
  compaction: ResolvedCompactOptions;
  /** The flat options of compaction, its ports among them (checked when resolved). */
  compactOptions: CompactOptions;
  store: ContentStore;
  tokenCounter: TokenCounter;
  logger: Logger;
  restoresFiles: boolean;
}

/**
 * Reads and checks every option of {@link ContextManagerOptions} once: the groups against
 * their schema (an unknown key, or a flat option given at the top that now lives in a group, is
 * an error naming it), then each value with the resolver of the function it comes from, its
 * errors naming its grouped path (`offload.directThreshold must be a number >= 1, got -3`).
 */
function resolveManagerOptions<M>(
  options: ContextManagerOptions<M>,
  env: Environment,
  currentDir: string,
): ResolvedManager<M> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `options must be an object { outputDir or store, ... }, got ${describeValue(options)}`,
    );
  }
  const { values, paths } = flattenOptionGroups(
    options as Record<string, unknown>,
    MANAGER_OPTION_GROUPS,
    new Set(MANAGER_TOP_LEVEL_OPTIONS),
    REMOVED_GROUPED_OPTIONS,
  );
  // unchecked yet: each resolver below checks the values it takes
  const flat = values as FlatManagerOptions;
  const format = resolveFormat(options.format as FormatName | MessageFormat | undefined) as MessageFormat<M>;
  const store = resolveStoreTarget(
    { store: options.store, outputDir: options.outputDir },
    {
      both: 'offloaded results and archives go to one place',
      neither: 'where the context manager puts offloaded results and compaction archives',
    },
  );
  const sessionId = resolveTableOption(OPTIONS.sessionId, options.sessionId);
  const logger = options.logger ?? consoleLogger;
  const tokenCounter = options.tokenCounter ?? defaultTokenCounter;
  // the store is the manager's (checked above), the archive's session each call's
  const compactOptions: CompactOptions = {
    ...flat,
    contextTokenLimit: options.contextTokenLimit,
    workDir: options.workDir,
    referenceReader: options.referenceReader,
    summarizer: options.summarizer,
    llmClient: options.llmClient,
    tokenCounter,
    logger,
  };
  return resolveWithOptionPaths(paths, () => {
    const directThreshold = resolveTableOption(OPTIONS.threshold, flat.threshold);
    // references name the store's own key under the session, which the read tool opens
    const batch = { ...resolveBatchOffloadOptions(flat, env), reference: 'absolute' as const };
    const compaction = resolveCompactOptions(compactOptions, env, currentDir);
    if (options.summarizer === undefined && options.llmClient !== undefined) {
      // the checks a compaction would make at its first run, made now
      resolveSummaryModel(compaction.summaryModel, options.llmClient);
      assertSummaryInputMaxTokens(compaction, tokenCounter);
    }
    const { timing, aging } = resolveAgingOptions(flat, {
      contextTokenLimit: compaction.contextTokenLimit,
      cut: typeof flat.preview === 'object' && flat.preview !== null ? (batch.preview ?? undefined) : undefined,
    });
    const restoresFiles = options.workDir !== undefined;
    const family = resolveProviderFamily(options.provider, options.model, format.name);
    const settings: ResolvedContextManagerOptions<M> = {
      format,
      sessionId,
      contextTokenLimit: compaction.contextTokenLimit,
      offload: {
        timing,
        directThreshold,
        excludeTools: batch.excludeTools,
        readToolNames: new Set(compaction.readToolNames),
        preview: batch.preview,
        aging,
        batch,
      },
      compaction: {
        triggerRatio: compaction.compactThresholdRatio,
        budgets: {
          summaryMaxWords: compaction.summaryMaxWords,
          maxRestoreFiles: restoresFiles ? compaction.maxRestoreFiles : 0,
          maxRestoreTokensPerFile: compaction.maxRestoreTokensPerFile,
          maxRestoreTokensTotal: compaction.maxRestoreTokensTotal,
        },
        resumeMessage: compaction.resumeMessage,
      },
      initialCalibrationRatio: resolveInitialCalibrationRatio(family),
      costModel: selectCostModel({ provider: family, model: options.model, override: options.cost }),
      hooks: resolveHooks(options),
    };
    return { settings, compaction, compactOptions, store, tokenCounter, logger, restoresFiles };
  });
}

/**
 * The environment the manager resolves with: none. Its settings come from its options only, so
 * a server's manager does not change with the variables of the process it runs in; the CLI
 * reads the variables (`CONTEXT_TOKEN_LIMIT`, `OFFLOAD_CHAR_THRESHOLD`, ...) and passes them.
 */
const NO_ENVIRONMENT: Environment = Object.freeze({});

/**
 * Checks `options` as {@link createContextManager} does, once, without creating a manager (no
 * summarizer is built, nothing is read from the store), and returns the settings a caller that
 * creates managers later needs now: the window in force. The proxy checks its options with it
 * when its handler is created, so a bad one fails there and not at the first request.
 *
 * @throws {InvalidOptionError} (or {@link UnsafePathError}) as {@link createContextManager}.
 */
export function resolveContextManagerOptions<M = Message>(
  options: ContextManagerOptions<M>,
): { readonly contextTokenLimit: number } {
  const { settings } = resolveManagerOptions(options, NO_ENVIRONMENT, process.cwd());
  return { contextTokenLimit: settings.contextTokenLimit };
}

/**
 * Creates the context manager of one conversation: call `prepare(messages, { lastUsage })`
 * before every model request and send the messages it returns. In order, each step only when
 * needed (`offload.timing` sets the first two):
 * 1. as results age (the default), the newest results are sent whole, one too large for the
 *    window cut to its reference, head and tail; on arrival, every new result of at least
 *    `offload.directThreshold` characters goes to the store and a reference takes its place;
 * 2. older results go in batches: as they age, when they add up to more than
 *    `offload.agedBudgetChars`; on arrival, when the ratio gate passes;
 * 3. when the estimate is still at the trigger (`contextTokenLimit × compaction.triggerRatio`),
 *    older results go without the gate, and if that is not enough the history is compacted
 *    (summary, archive, restored files), fitted to half of the trigger.
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
 * Every setting comes from `options`: the manager reads no environment variable (not
 * `CONTEXT_TOKEN_LIMIT`, not `ANTHROPIC_API_KEY`), so a server's manager does not change with the
 * process it runs in. To summarize with Claude, pass `llmClient: await createAnthropicLlmClient()`;
 * without `summarizer` or `llmClient`, the extractive summarizer writes summaries (with a warning).
 *
 * @throws {InvalidOptionError} (or {@link UnsafePathError} for `sessionId`) naming the option by
 * its path, at creation: both or neither of `outputDir` and `store`, an unknown `format` or
 * `provider`, a value out of range (`offload.directThreshold must be a number >= 1, got -3`), a port
 * without its methods, an unknown key, an option of the flat shape given at the top
 * (`keepRecent moved to offload.keepRecent`), a removed one naming its replacement
 * (`offload.threshold`: `offload.directThreshold` or `offload.minAgedResultChars`). `prepare` rejects with
 * `InvalidMessageError` for a malformed message (its index and field), and with the signal's
 * reason when aborted. A store that refuses writes does not fail `prepare`: a new offload it
 * refuses leaves its result inline (a `writes-deferred` action), and what was offloaded or
 * compacted before keeps applying.
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
export function createContextManager<M = Message>(
  options: ContextManagerOptions<M>,
): ContextManager<M> & {
  /** The read tool (`read_offloaded`) over the manager's store, bound to its session. */
  readonly readTool: ReadOffloadedTool;
  /** The session the manager works in; with `sessionId: 'auto'`, `undefined` until a history with a user message names it. */
  readonly sessionId: string | undefined;
} {
  const { settings, compaction, compactOptions, store, tokenCounter, logger, restoresFiles } = resolveManagerOptions(
    options,
    NO_ENVIRONMENT,
    process.cwd(),
  );
  const { sessionId } = settings;
  // the manager decides when to compact: a trigger at 0 compacts any history and, unlike
  // `force`, keeps the no-gain guard (a summary as large as what it replaces is skipped as 'no-gain')
  const runOptions = { ...compaction, compactThresholdRatio: 0, lastUsage: undefined, force: false };
  const runner = createResolvedCompaction(runOptions, { ...compactOptions, store }, NO_ENVIRONMENT);
  // what summarizes when the configured summarizer fails on a history: built at its first use
  let fallback: ResolvedCompaction | undefined;
  const extractiveRun = async (messages: readonly Message[], call: CompactCall): Promise<CompactResult> => {
    const { conversationRequest: _repeated, ...extractiveOptions } = runOptions;
    fallback ??= createResolvedCompaction(
      extractiveOptions,
      { ...compactOptions, store, summarizer: createExtractiveSummarizer(), llmClient: undefined },
      NO_ENVIRONMENT,
    );
    return { ...(await fallback.run(messages, call)), summarizer: 'extractive' };
  };
  let skippedRestoreSaid = false;

  const manager = createContextManagerWith(settings, {
    store,
    tokenCounter,
    // what the counter can do is its encoding's: records are reused only by a counter of the same one
    tokenizerId: tokenCounter.encoding,
    countsAtMostUtf8Bytes: tokenCounter.encoding === 'o200k_base',
    hashing: sha256Hashing,
    logger,
    // a macrotask: other requests' I/O runs between the parts of a long text being counted
    yieldToLoop: () => new Promise<void>((resolve) => setImmediate(resolve)),
    compact: (messages, call) => {
      if (!restoresFiles && !skippedRestoreSaid) {
        skippedRestoreSaid = true;
        logger.warn(
          'context manager: files read in the conversation are not restored after a compaction, since no workDir was given',
        );
      }
      const { summarizer, ...run } = call;
      return summarizer === 'extractive' ? extractiveRun(messages, run) : runner.run(messages, run);
    },
  });
  const readTool =
    sessionId === AUTO_SESSION_ID
      ? createSessionReadTool(store, () => manager.sessionId)
      : createReadOffloadedTool({ store, sessionId });
  return Object.freeze({
    prepare: manager.prepare,
    offloadOutput: manager.offloadOutput,
    readTool,
    get sessionId() {
      return manager.sessionId;
    },
  });
}
