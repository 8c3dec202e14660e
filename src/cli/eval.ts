/**
 * `agent-context eval <file>`: compacts a transcript as the context manager does when it must
 * (large tool results offloaded first, then the history summarized, archived, with the
 * compaction ledger) and scores what the compacted context still holds against facts read off
 * the raw transcript: the task, the latest request, every edited file, the last file read, the
 * last command, the last error a tool printed, the archive's reference, every offloaded result
 * one read away (in the context or in the offload index it names) with the gist of its call.
 */
import { compactMessages } from '../api/compact.js';
import { offloadToolResults } from '../api/offload.js';
import { countTokens } from '../api/tokens.js';
import type { CompactResult } from '../core/compact/compact.js';
import { DEFAULT_DIRECT_OFFLOAD_THRESHOLD } from '../core/options/defaults.js';
import { createFileStore } from '../stores/file-store.js';
import { parseCommandArguments, readBooleanFlag, readStringFlag, requireInputPath } from './arguments.js';
import type { CommandIo } from './command-io.js';
import { CliError } from './errors.js';
import { writeStandardOutput } from './io.js';
import { listenForInterrupt } from './interrupt.js';
import { createLlmActivity } from './llm-activity.js';
import { countToolDefinitionTokens, createToolDefinitionUsage } from './measure-context.js';
import { readTranscript, resolveFormatFlag, selectFileReadOptions } from './read-transcript.js';
import { renderEvalTable } from './render/eval-table.js';
import { formatQuantity, groupDigits } from '../core/text/figures.js';
import { formatPercent } from './render/format-figures.js';
import { createTerminalStyle, measureLineWidth } from './render/terminal-style.js';
import { toTerminalJson, toTerminalText } from './render/terminal-text.js';
import { describeTranscript } from './render/transcript-labels.js';
import { scoreCompactedContext } from './replay/eval-score.js';
import type { EvalScore } from './replay/eval-score.js';
import { collectEvalSubjects } from './replay/eval-subjects.js';
import {
  describeCompactionPrice,
  describeCostModel,
  priceCompaction,
  type EvalCost,
} from './replay/compaction-price.js';
import { COST_FLAGS, readCostFlags } from './replay/cost-flags.js';
import { chooseReplaySummarizer, readRuledNumberFlag } from './replay/replay-flags.js';
import { findRequestTurns } from './replay/request-turns.js';
import { openRunDirectory } from './replay/run-directory.js';
import { createWarningLines } from './replay/warning-lines.js';
import { createChosenSummarizer, describeSummarizer } from './summarizer-choice.js';

const EVAL_FLAGS = {
  threshold: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  ...COST_FLAGS,
  out: { type: 'string' },
  json: { type: 'boolean' },
  format: { type: 'string' },
} as const;

/** Everything `eval` found; `eval --json` prints it as it is. */
export interface EvalReport {
  /** The transcript as given (`stdin` for standard input), its shape and message format. */
  source: string;
  shape: string;
  messageFormat: string;
  messageCount: number;
  /** Who wrote the summary. */
  summarizer: string;
  /** Tool results of at least this many characters were offloaded before compaction. */
  threshold: number;
  /** Tool results offloaded, and the characters that freed. */
  offloadedResults: number;
  freedChars: number;
  /** Tokens of the transcript, after the offload, and after the compaction (local estimates). */
  tokensBefore: number;
  tokensAfterOffload: number;
  tokensAfter: number;
  /** The archive of the compacted messages (gone with the temporary store unless `--out` kept it). */
  archiveReference: string | null;
  /** The offload store kept with `--out`, or `null` (a temporary directory, removed). */
  store: string | null;
  /** The score, one row per kind of probe, and every probe. */
  score: EvalScore;
  /** What the compaction costs and saves with prompt caching. */
  cost: EvalCost;
}

/** Why there is nothing to score, on one line. */
function describeFailure(result: CompactResult, figures: { tokens: number; offloadedResults: number }): string {
  const reason =
    result.error instanceof Error ? result.error.message : result.error === undefined ? '' : String(result.error);
  const detail = reason === '' ? '' : `: ${reason.split('\n')[0] ?? ''}`;
  if (result.skippedReason === 'no-gain') {
    const offloaded =
      figures.offloadedResults > 0
        ? ` after offloading ${formatQuantity(figures.offloadedResults, 'tool result')}`
        : '';
    const hint =
      figures.offloadedResults > 0 ? ', or pass --threshold 1000000 to compact it without offloading first' : '';
    return `not compacted: a summary would not make the history (${groupDigits(figures.tokens)} tokens${offloaded}) smaller, so there is nothing to score; evaluate a longer transcript${hint}`;
  }
  if (result.skippedReason === 'summarizer-failed') return `compaction failed: the summarizer failed${detail}`;
  if (result.skippedReason === 'archive-failed') return `compaction skipped: the archive could not be written${detail}`;
  return `not compacted (${result.skippedReason ?? 'unknown reason'})${detail}`;
}

export async function runEval(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('eval', args, EVAL_FLAGS, 1);
  const path = requireInputPath(parsed, 'eval');
  const threshold = readRuledNumberFlag(parsed, 'threshold', { min: 1 }, 'eval') ?? DEFAULT_DIRECT_OFFLOAD_THRESHOLD;
  const choice = chooseReplaySummarizer(parsed, 'eval');
  const format = resolveFormatFlag(readStringFlag(parsed, 'format'), 'eval');
  const json = readBooleanFlag(parsed, 'json');

  const transcript = await readTranscript(path, io, { format });
  const costModel = readCostFlags(parsed, 'eval', transcript.model);
  const { messages } = transcript;
  if (findRequestTurns(messages).length === 0) {
    throw new CliError(
      `${transcript.source}: nothing to evaluate: no assistant message (${groupDigits(messages.length)} messages read)`,
    );
  }
  const activity = createLlmActivity(io.stderr);
  const warnings = createWarningLines(activity, createTerminalStyle(io.stderr));
  const summarizer = await createChosenSummarizer(
    choice,
    { calls: 0 },
    {
      onRequestStart: (number) =>
        activity.start(
          `Summarizing ${groupDigits(messages.length)} messages with ${choice.provider}${number > 1 ? ` (call ${number})` : ''}...`,
        ),
      onRequestEnd: () => activity.stop(),
    },
  );
  const usage = createToolDefinitionUsage(countToolDefinitionTokens(transcript));
  const directory = await openRunDirectory(readStringFlag(parsed, 'out'), 'eval');
  const store = createFileStore({ dir: directory.path });
  const interruption = listenForInterrupt();
  let report: EvalReport;
  try {
    // as the manager's direct offload does, whatever share of the history they are
    const offload = await offloadToolResults(messages, {
      store,
      charThreshold: threshold,
      ratioThreshold: 0,
      reference: 'absolute',
    });
    const result = await compactMessages(offload.messages, {
      // whatever its size, as the manager compacts: a trigger at 0 (not `force`, which would
      // also keep a compaction that does not make the history smaller)
      compactThresholdRatio: 0,
      store,
      // files are never read back from this machine: the transcript may come from elsewhere
      maxRestoreFiles: 0,
      ...selectFileReadOptions(transcript),
      ...usage,
      ...summarizer,
      logger: warnings.logger,
      signal: interruption.signal,
    });
    if (!result.compacted) {
      const figures = { tokens: countTokens(offload.messages, usage), offloadedResults: offload.offloadedCount };
      throw new CliError(describeFailure(result, figures), undefined, { cause: result.error });
    }
    const subjects = {
      ...collectEvalSubjects(messages),
      // the results the compacted messages held offloaded, the transcript's own and the offload's
      offloadedResults: collectEvalSubjects(offload.messages).offloadedResults,
    };
    const indexReference = result.ledger?.offloadIndex?.reference;
    const indexKey = indexReference === undefined ? undefined : store.keyFor(indexReference);
    const indexText = indexKey === undefined ? undefined : await store.get(indexKey);
    const tokensBefore = countTokens(messages, usage);
    const tokensAfter = countTokens(result.messages, usage);
    report = {
      source: transcript.source,
      shape: transcript.shape,
      messageFormat: transcript.format.name,
      messageCount: messages.length,
      summarizer: describeSummarizer(choice),
      threshold,
      offloadedResults: offload.offloadedCount,
      freedChars: offload.freedChars,
      tokensBefore,
      tokensAfterOffload: countTokens(offload.messages, usage),
      tokensAfter,
      archiveReference: result.archiveReference,
      store: directory.kept ? directory.path : null,
      score: scoreCompactedContext(subjects, result.messages, {
        archiveReference: result.archiveReference,
        offloadIndex:
          indexReference === undefined || indexText === undefined
            ? undefined
            : { reference: indexReference, text: indexText },
      }),
      cost: priceCompaction(costModel, tokensBefore, tokensAfter),
    };
  } finally {
    activity.stop();
    interruption.stop();
    warnings.finish();
    await directory.release();
  }

  if (json) {
    await writeStandardOutput(io.stdout, `${toTerminalJson(JSON.stringify(report, null, 2))}\n`);
    return;
  }
  const style = createTerminalStyle(io.stdout);
  const width = measureLineWidth(io.stdout);
  const share = report.tokensBefore === 0 ? 0 : report.tokensAfter / report.tokensBefore;
  const lines = [
    `${style.bold('eval')}  ${toTerminalText(report.source)} ${style.dim(`(${describeTranscript(transcript)}, ${groupDigits(messages.length)} messages)`)}`,
    `  offloaded ${formatQuantity(report.offloadedResults, 'tool result')} of ${groupDigits(threshold)}+ chars, then compacted: ${groupDigits(report.tokensBefore)} → ${style.bold(groupDigits(report.tokensAfter))} tokens ${style.dim(`(${formatPercent(share)})`)}`,
    `  summarizer: ${style.cyan(report.summarizer)}`,
    '',
    `  with prompt caching ${style.dim(`(${describeCostModel(report.cost.model)})`)}: ${describeCompactionPrice(report.cost)}`,
    '',
    ...renderEvalTable(report.score, { style, width }),
  ];
  if (report.store !== null) lines.push('', `  offloaded results and the archive: ${toTerminalText(report.store)}`);
  await writeStandardOutput(io.stdout, `${lines.join('\n')}\n`);
}
