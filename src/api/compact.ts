/**
 * Public compaction: `compactMessages` with its defaults (Node file
 * reader and writer, the o200k counter, the summarizer chosen from the options and the
 * environment), and the pieces for users who compose their own loop.
 */
import { compactMessagesWith, type CompactResult, type SummarizerKind } from '../core/compact/compact.js';
import {
  assertSummaryInputMaxTokens,
  resolveCompactOptions,
  resolveRestoreOptions,
  resolveSummaryModel,
  type CompactOptions,
  type ResolvedCompactOptions,
  type RestoreRecentFilesOptions,
} from '../core/compact/compact-options.js';
import { createExtractiveSummarizer } from '../core/compact/summary/extractive-summarizer.js';
import { collectRestoredFiles } from '../core/compact/restore.js';
import { createLlmSummarizer, createUsageTotal } from '../core/compact/summary/summarize-with-llm.js';
import {
  assertReusePrefixSource,
  createPrefixReusingSummarizer,
} from '../core/compact/summary/summarize-reusing-prefix.js';
import type { Environment } from '../core/options/env.js';
import type { ContentStore, LlmClient, LlmUsage, Logger, Summarizer, TokenCounter } from '../core/ports.js';
import type { Message } from '../core/types.js';
import { assertMessages } from '../core/messages/validate-messages.js';
import { createAnthropicLlmClient } from '../infrastructure/anthropic-client.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { sleepWithTimeout, systemNow } from '../infrastructure/clock.js';
import { NodeFileReader } from '../infrastructure/node-file-reader.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';
import { createOffloadFolderStore } from './offload-folder-store.js';
import { resolveArchiveTarget } from './store-target.js';

export type {
  ArchivePolicy,
  ArchiveOptions,
  CompactOptions,
  PortOptions,
  RestoreOptions,
  RestoreRecentFilesOptions,
  SummaryOptions,
  TriggerOptions,
} from '../core/compact/compact-options.js';
export type { CompactResult, CompactSkipReason, SummarizerKind } from '../core/compact/compact.js';
export type { ReferenceReader } from '../core/compact/summary/reference-reader.js';
export type { CompactStats } from '../core/compact/stats.js';
export type { CompactLedger } from '../core/compact/summary/ledger.js';
export type { PartitionResult } from '../core/compact/partition.js';
export type { AssembleMessagesOptions } from '../core/compact/assemble.js';
export { partitionMessages } from '../core/compact/partition.js';
export { assembleMessages } from '../core/compact/assemble.js';

/** What the extractive fallback says when it is used. */
export const EXTRACTIVE_FALLBACK_WARNING =
  'compact: no summarizer, llmClient or ANTHROPIC_API_KEY is configured; using the offline extractive summarizer ' +
  '(deterministic, but far less faithful than an LLM summary)';

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function warnOnUse(summarizer: Summarizer, logger: Logger, warning: string): Summarizer {
  return {
    summarize(messages, options) {
      logger.warn(warning);
      return summarizer.summarize(messages, options);
    },
  };
}

/** Where the summary comes from: the `kind` that {@link CompactResult.summarizer} reports, with what it takes to build it. */
export type SummarizerSource =
  | { kind: 'custom'; summarizer: Summarizer }
  | { kind: 'llm-client'; llmClient: LlmClient }
  | { kind: 'anthropic'; apiKey: string; baseURL: string | undefined }
  | { kind: 'extractive' };

/**
 * Which summarizer `compactMessages` uses with these options and this environment, first that
 * applies: `summarizer`; `llmClient`; an Anthropic client when `ANTHROPIC_API_KEY`
 * is set (with `ANTHROPIC_BASE_URL`); else the extractive summarizer. Nothing is loaded or
 * created, so the CLI asks it too.
 */
export function chooseSummarizerSource(
  options: Pick<CompactOptions, 'summarizer' | 'llmClient'>,
  env: Environment,
): SummarizerSource {
  if (options.summarizer !== undefined) return { kind: 'custom', summarizer: options.summarizer };
  if (options.llmClient !== undefined) return { kind: 'llm-client', llmClient: options.llmClient };
  const apiKey = nonEmpty(env.ANTHROPIC_API_KEY);
  if (apiKey !== undefined) return { kind: 'anthropic', apiKey, baseURL: nonEmpty(env.ANTHROPIC_BASE_URL) };
  return { kind: 'extractive' };
}

/**
 * Builds the summarizer of a {@link SummarizerSource}: an LLM client is wrapped with the summary
 * prompt; the Anthropic SDK is loaded only now (missing, it rejects with `MISSING_DEPENDENCY`,
 * not a reason to fall back); the extractive summarizer warns when used.
 *
 * For an LLM, `summaryInputMaxTokens` is checked against the prompt first, and the model is
 * resolved with the client's default ({@link resolveSummaryModel}): both reject before
 * anything is written.
 */
async function createSummarizer(
  source: SummarizerSource,
  resolved: ResolvedCompactOptions,
  tokenCounter: TokenCounter,
  logger: Logger,
  onUsage: (usage: LlmUsage) => void,
): Promise<Summarizer> {
  const { conversationRequest } = resolved;
  assertReusePrefixSource(conversationRequest, source.kind); // summaryMode 'reuse-prefix' needs an LLM client
  const summarizeWith = (client: LlmClient): Summarizer =>
    conversationRequest !== undefined
      ? createPrefixReusingSummarizer(client, { conversationRequest, onUsage })
      : createLlmSummarizer(client, {
          model: resolveSummaryModel(resolved.summaryModel, client),
          inputMaxTokens: resolved.summaryInputMaxTokens,
          tokenCounter,
          onUsage,
          // long messages are counted between turns of the event loop: other requests keep running
          yieldToLoop: () => new Promise<void>((resolve) => setImmediate(resolve)),
        });
  switch (source.kind) {
    case 'custom':
      return source.summarizer;
    case 'llm-client':
      assertSummaryInputMaxTokens(resolved, tokenCounter);
      return summarizeWith(source.llmClient);
    case 'anthropic': {
      assertSummaryInputMaxTokens(resolved, tokenCounter); // before the SDK is loaded
      const { apiKey, baseURL } = source;
      return summarizeWith(await createAnthropicLlmClient(baseURL === undefined ? { apiKey } : { apiKey, baseURL }));
    }
    case 'extractive':
      return warnOnUse(createExtractiveSummarizer(), logger, EXTRACTIVE_FALLBACK_WARNING);
  }
}

/**
 * Compacts a history when it reaches the trigger: the leading system messages
 * (Head) are kept; everything after them (Rest) is archived as JSON, then replaced by a
 * structured summary, followed by the most recently read files, read again from disk.
 *
 * The summary message ends with a ledger that no summarizer can drop: the archive's
 * reference (which the read tool opens), the most recent offloaded results (tool, id, input
 * gist, reference) and the index of all of them and of every file read or edited (an object
 * written in the store, which the read tool pages and searches), the task and the latest request
 * (a slash command as typed), the most recent files read and edited, the commands run (an
 * offloaded one by the start of its text) and the last error a tool printed (marked as an
 * error or not; read back from the store when its result was offloaded), carried over from an
 * earlier summary's ledger. A summarizer's text over
 * `computeSummaryMaxTokens(summaryMaxWords)` tokens is cut to it, with a marker.
 *
 * Never mutates `messages`; when nothing is compacted, `result.messages` is the input array
 * itself and `skippedReason` says why (`'below-threshold'`, `'nothing-to-compact'`,
 * `'archive-failed'` or `'summarizer-failed'`, both with `error`, or `'no-gain'` when the
 * compacted history would not have been smaller, its archive written all the same): with the
 * default `archive: 'required'`, nothing is summarized away unless its archive was written.
 * `result.summarizer` names the summarizer chosen (`'custom'`, `'llm-client'`, `'anthropic'` or
 * `'extractive'`), whether or not compaction went as far as running it.
 * Environment variables are read at each call.
 *
 * @throws {InvalidMessageError} when `messages` is malformed.
 * @throws {InvalidOptionError} or {@link UnsafePathError} when an option or variable is out of range — before anything is written.
 *   With an LLM summarizer this includes a `summaryInputMaxTokens` too small for the prompt,
 *   and no model at all with a client that has no default (`llmClient.defaultModel === null`:
 *   the OpenAI client without `summaryModel`/`SUMMARY_MODEL`).
 * @throws {MissingDependencyError} when `ANTHROPIC_API_KEY` is set (and no `summarizer` or `llmClient` given) but `@anthropic-ai/sdk` is not installed.
 * @throws the signal's reason when `signal` aborts, at once, even while a summarizer or LLM
 *   client that ignores the signal is still working (its late result is discarded).
 *
 * @example
 * ```ts
 * const result = await compactMessages(messages, { llmClient, resumeMessage: 'Continue with the task.' });
 * if (result.compacted) messages = result.messages;
 * ```
 */
export async function compactMessages(
  messages: readonly Message[],
  options: CompactOptions = {},
): Promise<CompactResult> {
  assertMessages(messages);
  return createCompaction(options, process.env, process.cwd()).run(messages);
}

/** What one run of a {@link ResolvedCompaction} may set for itself: the budgets, the resume message, the session, the store, the signal. */
type CompactionRunOptions = Partial<
  Pick<
    ResolvedCompactOptions,
    | 'summaryMaxWords'
    | 'maxRestoreFiles'
    | 'maxRestoreTokensPerFile'
    | 'maxRestoreTokensTotal'
    | 'resumeMessage'
    | 'sessionId'
    | 'signal'
  >
> & { store?: ContentStore | undefined };

/** A compaction whose options, environment and summarizer were resolved once. */
export interface ResolvedCompaction {
  readonly summarizer: SummarizerKind;
  /** Compacts `messages` (checked by the caller) as {@link compactMessages} would, with the run's own settings on top. */
  run(messages: readonly Message[], overrides?: CompactionRunOptions): Promise<CompactResult>;
}

/**
 * Resolves compaction once: the options and the environment are read and checked now, the
 * summarizer chosen now and built at the first run (the Anthropic SDK is loaded then), the
 * ports picked now. `compactMessages` is one run of it; the context manager keeps one for its
 * life.
 *
 * @throws as {@link compactMessages} does for its options, before anything is written.
 */
function createCompaction(options: CompactOptions, env: Environment, currentDir: string): ResolvedCompaction {
  return createResolvedCompaction(resolveCompactOptions(options, env, currentDir), options, env);
}

/**
 * {@link createCompaction} over options already resolved (by the context manager, which names
 * them by their grouped paths): `options` gives the ports (summarizer, LLM client, file reader,
 * store or file writer, tokenizer, logger), checked by whoever resolved them.
 */
export function createResolvedCompaction(
  resolved: ResolvedCompactOptions,
  options: CompactOptions,
  env: Environment,
): ResolvedCompaction {
  const logger = options.logger ?? consoleLogger;
  const tokenCounter = options.tokenCounter ?? defaultTokenCounter;
  const source = chooseSummarizerSource(options, env);
  const fileReader = options.fileReader ?? new NodeFileReader();
  const archive = resolveArchiveTarget(options, resolved.workDir, resolved.outputDir);
  // the usage of the run in progress (runs of one compaction do not overlap: the manager runs one at a time)
  let usage = createUsageTotal();
  let summarizer: Promise<Summarizer> | undefined;
  return {
    summarizer: source.kind,
    async run(messages, overrides = {}) {
      const { store, ...values } = overrides;
      usage = createUsageTotal();
      summarizer ??= createSummarizer(source, resolved, tokenCounter, logger, (figures) => usage.add(figures));
      const outcome = await compactMessagesWith(
        messages,
        { ...resolved, ...values },
        {
          summarizer: await summarizer,
          fileReader,
          store: store ?? archive.store,
          readStore: store ?? archive.readStore,
          // a run given its store (the context manager's) reads back only from it: the manager offloaded everything there
          offloadFolderStore:
            store === undefined ? createOffloadFolderStore(resolved.workDir, resolved.offloadDir) : undefined,
          tokenCounter,
          logger,
          sleep: sleepWithTimeout,
          now: systemNow,
        },
      );
      const summaryUsage = usage.total();
      if (outcome.compacted && summaryUsage !== undefined)
        return { ...outcome, stats: { ...outcome.stats, summaryUsage }, summarizer: source.kind };
      return { ...outcome, summarizer: source.kind };
    },
  };
}

/**
 * File restoration on its own: the user messages
 * `[Restored after compact] {path}:\n{content}` for the files the history read most recently,
 * within the three budgets, never from outside `workDir` (symlinks followed). Settings as in
 * {@link compactMessages} (options, else `MAX_RESTORE_*` variables, else defaults). Files that
 * are missing, unreadable or outside `workDir` are skipped with a warning.
 *
 * @throws {InvalidOptionError} when an option or variable is out of range.
 */
export async function restoreRecentFiles(
  messages: readonly Message[],
  options: RestoreRecentFilesOptions = {},
): Promise<Message[]> {
  assertMessages(messages);
  const resolved = resolveRestoreOptions(options, process.env, process.cwd());
  const restored = await collectRestoredFiles(messages, {
    ...resolved,
    fileReader: options.fileReader ?? new NodeFileReader(),
    tokenCounter: options.tokenCounter ?? defaultTokenCounter,
    logger: options.logger ?? consoleLogger,
    signal: options.signal,
  });
  return restored.map((file) => file.message);
}
