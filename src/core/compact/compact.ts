/**
 * Compaction: trigger → partition → archive Rest → summarize (with
 * retry) → restore recent files → assemble → stats. Pure orchestration over ports.
 *
 * The `compact` folder: `compactMessages` (this file), its options (`compact-options.ts`), the
 * partition of a history (`partition.ts`), the archive of what is summarized (`persist.ts`,
 * `archive-json.ts`), retries (`retry.ts`), the files restored after it (`restore.ts`), the
 * assembly of the result (`assemble.ts`), its stats (`stats.ts`) and reading offloaded text back
 * (`stored-text.ts`). The summary itself, whoever writes it, is in `summary/`.
 */
import { describeError } from '../errors.js';
import { throwIfAborted } from '../abort.js';
import type { ContentStore, FileReader, Logger, Sleep, Summarizer, TokenCounter } from '../ports.js';
import { countHistoryTokens, isAtCompactThreshold } from '../text/tokens.js';
import type { Message } from '../types.js';
import { assembleMessages } from './assemble.js';
import type { ResolvedCompactOptions } from './compact-options.js';
import { partitionMessages } from './partition.js';
import { archiveRest } from './persist.js';
import { gatherFacts, type ConversationFacts } from './summary/conversation-facts.js';
import { findLastErrorReadingStore } from './summary/last-error.js';
import { readOffloadedCommandHeads, type OffloadFolderStore } from './stored-text.js';
import {
  appendLedger,
  buildLedgerFromFacts,
  collectIndexedFiles,
  describeLastError,
  LEDGER_LIMITS,
  parseLedger,
  type CompactLedger,
} from './summary/ledger.js';
import {
  listOffloadedResults,
  mergeOffloadedResults,
  readOffloadIndex,
  writeOffloadIndex,
  type ConversationIndex,
} from './summary/offload-index.js';
import type { CommandHeads } from './summary/input-gist.js';
import { collectRestoredFiles } from './restore.js';
import { summarizeWithRetry } from './retry.js';
import { computeCompactStats, createEmptyCompactStats, type CompactStats } from './stats.js';
import { fitSummaryToBudget } from './summary/summary-budget.js';
import { computeSummaryMaxTokens } from './summary/summarize-with-llm.js';

/**
 * Why nothing was compacted:
 * - `'below-threshold'`: the history is below the trigger (or empty) and `force` is off;
 * - `'nothing-to-compact'`: Rest is empty (only system messages);
 * - `'archive-failed'`: the archive of Rest could not be written (`error` holds why), and
 *   `archive` is `'required'` (the default): nothing is dropped that is not saved;
 * - `'summarizer-failed'`: every summary attempt threw or returned blank text (`error` holds the last error);
 * - `'no-gain'`: the trigger compacted (not `force`), and the compacted history would not have
 *   been smaller than the input as the trigger counted it (with `lastUsage`, the provider's
 *   figure plus the messages after it; else the local count): a summary, its ledger and the
 *   restored files as large as what they replace. The archive is written all the same
 *   (`originalMessagesPath`). With `force`, such a history is compacted all the same.
 */
export type CompactSkipReason =
  'below-threshold' | 'nothing-to-compact' | 'archive-failed' | 'summarizer-failed' | 'no-gain';

/**
 * Which summarizer compaction used, or would have used had it gone that far. It is decided from
 * the options and the environment alone, first that applies:
 * - `'custom'`: the `summarizer` option;
 * - `'llm-client'`: the `llmClient` option, with the package's summary prompt (whatever the
 *   client talks to: an Anthropic or OpenAI client you created yourself is `'llm-client'` too);
 * - `'anthropic'`: an Anthropic client created because `ANTHROPIC_API_KEY` is set;
 * - `'extractive'`: the offline extractive summarizer, when none of the above is configured.
 */
export type SummarizerKind = 'custom' | 'llm-client' | 'anthropic' | 'extractive';

/** What `compactMessages` returns. */
export interface CompactResult {
  /**
   * The compacted history (Head, summary pair, restored file pairs, then the resume message
   * when one was asked for), or — when nothing was compacted — the input array itself.
   */
  messages: Message[];
  /** Whether the history was compacted. */
  compacted: boolean;
  /** Figures of the compaction; all 0 when nothing was compacted. */
  stats: CompactStats;
  /**
   * Absolute path of the JSON archive of the compacted messages (Rest); `null` when nothing
   * was archived (a skip, or with `archive: 'best-effort'` a write failure, which is logged).
   * Set when the summarizer failed after the archive was written.
   */
  originalMessagesPath: string | null;
  /**
   * The archive's reference as the read tool takes it, and as the summary names it: the same
   * value as `originalMessagesPath` (a path for files, `redis://...` and the like for stores).
   */
  archiveReference: string | null;
  /**
   * The summary as the summary message holds it: the summarizer's text (cut to its budget
   * when it was over, with a marker), then the ledger section. Set when compacted.
   */
  summary?: string;
  /**
   * The facts the summary's ledger section holds (archive, offloaded results, task, latest
   * request, files read and edited, commands, last error). Set when compacted, and with
   * `'no-gain'`.
   */
  ledger?: CompactLedger;
  /** Why nothing was compacted, when `compacted` is false. */
  skippedReason?: CompactSkipReason;
  /** Why the archive could not be written (`'archive-failed'`), or the last summarizer error (`'summarizer-failed'`). */
  error?: unknown;
  /**
   * Which summarizer wrote the summary, or would have written it: set on every result, also
   * when nothing was compacted (below the trigger, nothing to compact, the archive or every
   * summary attempt failed). Whether it actually ran: `compacted`, or `skippedReason` being
   * `'summarizer-failed'`.
   */
  summarizer: SummarizerKind;
}

/**
 * What {@link compactMessagesWith} returns: a {@link CompactResult} but for `summarizer`, which
 * it cannot know (it is handed a summarizer, not the choice that made it).
 */
export type CompactOutcome = Omit<CompactResult, 'summarizer'>;

/** The ports compaction works through. */
export interface CompactPorts {
  /** Writes the summary of Rest. */
  summarizer: Summarizer;
  /** Reads files to restore. */
  fileReader: FileReader;
  /** Where the archive goes (`<sessionId>/compact-*.json`), and the offload index. */
  store: ContentStore;
  /**
   * Where offloaded results and an earlier offload index are read back from: the store itself,
   * unless it is a `FileWriter`'s, which only writes.
   */
  readStore: ContentStore | undefined;
  /**
   * Where an offloaded result that `readStore` does not hold is read back from, when its reference
   * names a folder compaction may read (`offloadToolResults`' folder): only its first and last
   * bytes, for the last error.
   */
  offloadFolderStore?: OffloadFolderStore | undefined;
  tokenCounter: TokenCounter;
  logger: Logger;
  /** The wait between summary attempts, cancelled by the signal (`compactMessages` passes a real timer). */
  sleep: Sleep;
  /** The clock, for the archive's file name (`compactMessages` passes the system clock). */
  now: () => Date;
}

/**
 * What the offload index lists: every offloaded result the history references (those of an
 * earlier compaction's index, read from `store` when it can read, those its ledger lists, then
 * those of `facts`, each once) and every file read or edited (likewise).
 */
async function collectIndexEntries(
  facts: ConversationFacts,
  options: Pick<ResolvedCompactOptions, 'readToolNames' | 'pathField'>,
  commandHeads: CommandHeads,
  store: ContentStore | undefined,
  logger: Logger,
): Promise<ConversationIndex> {
  const previous = facts.earlierSummary === undefined ? undefined : parseLedger(facts.earlierSummary);
  const earlier =
    previous?.offloadIndex === undefined
      ? { results: [], filesRead: [], filesEdited: [] }
      : await readOffloadIndex(previous.offloadIndex.reference, store, logger);
  return {
    results: mergeOffloadedResults(
      earlier.results,
      previous?.offloadedResults.items ?? [],
      listOffloadedResults(facts, commandHeads),
    ),
    ...collectIndexedFiles(facts, options, earlier),
  };
}

function skip(messages: readonly Message[], skippedReason: CompactSkipReason): CompactOutcome {
  // The input array itself: a caller can tell "nothing changed" by identity.
  return {
    messages: messages as Message[],
    compacted: false,
    stats: createEmptyCompactStats(),
    originalMessagesPath: null,
    archiveReference: null,
    skippedReason,
  };
}

/**
 * Compacts `messages` with resolved options and explicit ports. Never mutates the input.
 *
 * 1. Trigger: unless `force`, skip (`'below-threshold'`) when the count is below
 *    `contextTokenLimit × compactThresholdRatio` or the history is empty.
 * 2. Partition; an empty Rest skips (`'nothing-to-compact'`).
 * 3. Archive Rest — before summarizing, so it exists even if summarizing fails. When
 *    it cannot be written, skip (`'archive-failed'`, the input array itself) unless `archive`
 *    is `'best-effort'` (then go on with `originalMessagesPath: null`).
 * 4. Summarize Rest with retry; when every attempt fails, resolve the input array
 *    itself with `'summarizer-failed'` and the last error. A summary over
 *    `computeSummaryMaxTokens(summaryMaxWords)` tokens is cut to it, with a marker.
 *    The last error a tool printed is found first (when its result, or a newer one that may
 *    hold it, was offloaded into `ports.readStore` or a folder `ports.offloadFolderStore` reads,
 *    its first and last 16 KB are read back) and given to the summarizer.
 * 5. Write the offload index (every offloaded result of Rest and of the earlier index, with
 *    tool, input gist and reference, and every file read or edited; only when there are more
 *    than the ledger lists) to the archive's store, then append the ledger of Rest
 *    (the archive's reference, the most recent offloaded results and the index, task, latest
 *    request, files, commands, the last error with its line) to the summary.
 * 6. Restore recent files from the whole history, then assemble and count. Unless `force`, a
 *    result not smaller than the input as the trigger counted it (with `lastUsage` when given)
 *    is not kept: the input array itself, `'no-gain'`.
 *
 * An abort rejects with the signal's reason at any step.
 */
export async function compactMessagesWith(
  messages: readonly Message[],
  options: ResolvedCompactOptions,
  ports: CompactPorts,
): Promise<CompactOutcome> {
  const { signal } = options;
  const { logger, tokenCounter } = ports;
  throwIfAborted(signal);
  const originalTokenCount = countHistoryTokens(messages, {
    tokenCounter,
    lastUsage: options.lastUsage,
    tokenSafetyFactor: options.tokenSafetyFactor,
  });
  const triggered =
    messages.length > 0 &&
    isAtCompactThreshold(originalTokenCount, options.contextTokenLimit, options.compactThresholdRatio);
  if (!options.force && !triggered) return skip(messages, 'below-threshold');

  const { head, rest } = partitionMessages(messages);
  if (rest.length === 0) return skip(messages, 'nothing-to-compact');

  const { store, readStore } = ports;
  const archive = await archiveRest(rest, { store, sessionId: options.sessionId, logger, now: ports.now });
  throwIfAborted(signal);
  // Without its archive, the summary would be the only trace of Rest: nothing is dropped
  // unless the caller chose to accept that.
  if (archive.path === null && options.archive === 'required') {
    logger.warn(
      `compact: skipped, the history is left as it was (pass archive: 'best-effort' to compact without an archive)`,
    );
    return { ...skip(messages, 'archive-failed'), error: archive.error };
  }
  const originalMessagesPath = archive.path;
  const facts = gatherFacts(rest);
  const found = await findLastErrorReadingStore(facts, {
    store: readStore,
    offloadFolderStore: ports.offloadFolderStore,
    logger,
    signal,
  });
  const commandHeads = await readOffloadedCommandHeads(facts, {
    store: readStore,
    offloadFolderStore: ports.offloadFolderStore,
    logger,
    signal,
  });
  const lastError = found === undefined ? undefined : describeLastError(found, commandHeads);

  let summarizerText: string;
  try {
    summarizerText = await summarizeWithRetry(ports.summarizer, rest, {
      maxWords: options.summaryMaxWords,
      lastError,
      maxRetries: options.maxRetries,
      baseDelayMs: options.retryBaseDelayMs,
      signal,
      sleep: ports.sleep,
      onRetry: (error, retryNumber, delayMs) =>
        logger.warn(
          `compact: summary attempt ${retryNumber} failed (${describeError(error)}); retrying in ${delayMs} ms`,
        ),
    });
  } catch (error) {
    throwIfAborted(signal);
    logger.warn(`compact: every summary attempt failed (${describeError(error)}); the history is left as it was`);
    return {
      messages: messages as Message[],
      compacted: false,
      stats: createEmptyCompactStats(),
      originalMessagesPath,
      archiveReference: originalMessagesPath,
      skippedReason: 'summarizer-failed',
      error,
    };
  }
  const summaryMaxTokens = computeSummaryMaxTokens(options.summaryMaxWords);
  const fitted = fitSummaryToBudget(summarizerText, summaryMaxTokens, tokenCounter);
  if (fitted.cut) {
    logger.warn(
      `compact: the summary (${summarizerText.length} characters) is over its budget of ${summaryMaxTokens} tokens; it was cut to fit`,
    );
  }
  const indexed = await collectIndexEntries(facts, options, commandHeads, readStore, logger);
  const offloadIndex = await writeOffloadIndex(indexed, {
    store,
    sessionId: options.sessionId,
    logger,
    ledgerLimit: LEDGER_LIMITS.offloadedResults,
    fileLimit: LEDGER_LIMITS.files,
    referenceReader: options.referenceReader,
  });
  throwIfAborted(signal);
  const ledger = buildLedgerFromFacts(
    facts,
    {
      archiveReference: originalMessagesPath,
      readToolNames: options.readToolNames,
      pathField: options.pathField,
      resumeMessage: options.resumeMessage,
      offloadIndex,
      commandHeads,
    },
    found,
  );
  const summary = appendLedger(fitted.text, ledger, { referenceReader: options.referenceReader });

  const restored = await collectRestoredFiles(messages, {
    workDir: options.workDir,
    readToolNames: options.readToolNames,
    pathField: options.pathField,
    maxRestoreFiles: options.maxRestoreFiles,
    maxRestoreTokensPerFile: options.maxRestoreTokensPerFile,
    maxRestoreTokensTotal: options.maxRestoreTokensTotal,
    fileReader: ports.fileReader,
    tokenCounter,
    logger,
    signal,
  });
  throwIfAborted(signal);
  const compactedMessages = assembleMessages(
    head,
    summary,
    restored.map((file) => file.message),
    { resumeMessage: options.resumeMessage, logger },
  );
  const compactedTokenCount = countHistoryTokens(compactedMessages, {
    tokenCounter,
    tokenSafetyFactor: options.tokenSafetyFactor,
  });
  // measured as the trigger measured it: a caller's `lastUsage` is the history's size the
  // trigger trusted, so a gain is judged against it too (a history of few messages anchored at
  // 190,000 tokens is not "31 tokens" because the local count says so)
  const inputTokenCount = originalTokenCount;
  // an explicit `force` is the caller's decision: the guard protects only the trigger's own
  // compactions (the summary's budget above still bounds a runaway summarizer)
  if (!options.force && compactedTokenCount >= inputTokenCount) {
    logger.warn(
      `compact: skipped, the compacted history (${compactedTokenCount} tokens) would not be smaller than the history (${inputTokenCount} tokens); the history is left as it was`,
    );
    return { ...skip(messages, 'no-gain'), originalMessagesPath, archiveReference: originalMessagesPath, ledger };
  }
  return {
    messages: compactedMessages,
    compacted: true,
    stats: computeCompactStats({
      originalTokenCount,
      compactedTokenCount,
      headLength: head.length,
      restLength: rest.length,
      restoredTokenCounts: restored.map((file) => file.tokenCount),
    }),
    originalMessagesPath,
    archiveReference: originalMessagesPath,
    summary,
    ledger,
  };
}
