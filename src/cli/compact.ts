/**
 * `agent-context compact <file>`: summarize the history and, from `--work-dir`, restore the
 * files it read most recently.
 */
import { stat } from 'node:fs/promises';
import { compactMessages, countTokens } from '../index.js';
import type { CompactResult } from '../index.js';
import {
  parseCommandArguments,
  readBooleanFlag,
  readNumberFlag,
  readStringFlag,
  requireInputPath,
} from './arguments.js';
import type { CommandIo } from './command-io.js';
import { resolveCompactionTrigger } from './compaction-trigger.js';
import { keepDefinedFields } from './defined-fields.js';
import { CliError, UsageError } from './errors.js';
import { serializeHistory } from './formats/serialize-transcript.js';
import { describeOsError, writeOutput, writeStandardOutput } from './io.js';
import { listenForInterrupt } from './interrupt.js';
import { createLlmActivity } from './llm-activity.js';
import { countToolDefinitionTokens, createToolDefinitionUsage } from './measure-context.js';
import { readTranscript, resolveFormatFlag, selectFileReadOptions } from './read-transcript.js';
import { formatQuantity, groupDigits } from '../core/text/figures.js';
import { formatPercent } from './render/format-figures.js';
import { toTerminalText } from './render/terminal-text.js';
import { describeTranscript, describeWrittenShape } from './render/transcript-labels.js';
import { selectReportStream } from './report-stream.js';
import type { ReportStream } from './report-stream.js';
import { chooseSummarizer, createChosenSummarizer, describeSummarizer } from './summarizer-choice.js';

const COMPACT_FLAGS = {
  force: { type: 'boolean' },
  limit: { type: 'string' },
  ratio: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'work-dir': { type: 'string' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
} as const;

/**
 * Without `--work-dir` nothing is restored: a transcript from elsewhere must not pull the
 * current directory's files into its output.
 */
const NO_RESTORATION = { maxRestoreFiles: 0 } as const;

/**
 * Checks that `--work-dir` names an existing directory, before anything is read or written.
 *
 * @throws {UsageError} naming the directory: `--work-dir ./nope: no such directory (ENOENT)`.
 */
async function assertWorkDirectory(workDir: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(workDir)).isDirectory();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `--work-dir ${workDir}: ${code === 'ENOENT' ? 'no such directory (ENOENT)' : describeOsError(error)}`,
      'compact',
    );
  }
  if (!isDirectory) throw new UsageError(`--work-dir ${workDir}: not a directory`, 'compact');
}

function describeOutcome(
  result: CompactResult,
  figures: { tokensBefore: number; tokensAfter: number; thresholdTokens: number; limit: number; ratio: number },
  restoring: boolean,
  report: ReportStream,
): string[] {
  const { style } = report;
  if (!result.compacted) {
    if (result.skippedReason === 'below-threshold') {
      return [
        `  not compacted: ${groupDigits(figures.tokensBefore)} tokens, below the trigger (${groupDigits(figures.thresholdTokens)} = ${formatPercent(figures.ratio)} of ${groupDigits(figures.limit)}); --force compacts anyway`,
      ];
    }
    if (result.skippedReason === 'no-gain') {
      return [
        `  not compacted: the summary and restored files would not make the history (${groupDigits(figures.tokensBefore)} tokens) smaller`,
      ];
    }
    return ['  not compacted: nothing after the leading system messages'];
  }
  const { stats } = result;
  const share = figures.tokensBefore === 0 ? 0 : figures.tokensAfter / figures.tokensBefore;
  const restored = restoring
    ? `restored ${formatQuantity(stats.restoredFileCount, 'file')} (${formatQuantity(stats.restoredTokenCount, 'token')})`
    : `restored no files ${style.dim('(pass --work-dir <project dir> to restore the files the history read)')}`;
  return [
    `  tokens ${groupDigits(figures.tokensBefore)} → ${style.bold(groupDigits(figures.tokensAfter))} ${style.green(`(${formatPercent(share)} of the original)`)}`,
    `  summarized ${formatQuantity(stats.compactedMessageCount, 'message')}, kept ${formatQuantity(stats.retainedMessageCount, 'system message')}, ${restored}`,
    `  archive: ${result.originalMessagesPath === undefined ? style.yellow('not written (see the warning above)') : toTerminalText(result.originalMessagesPath)}`,
  ];
}

export async function runCompact(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('compact', args, COMPACT_FLAGS, 1);
  const path = requireInputPath(parsed, 'compact');
  const outputFile = readStringFlag(parsed, 'output');
  const workDir = readStringFlag(parsed, 'work-dir');
  const triggerFlags = {
    contextTokenLimit: readNumberFlag(parsed, 'limit', 'compact'),
    compactThresholdRatio: readNumberFlag(parsed, 'ratio', 'compact'),
  };
  const choice = chooseSummarizer({
    provider: readStringFlag(parsed, 'provider'),
    model: readStringFlag(parsed, 'model'),
    baseURL: readStringFlag(parsed, 'base-url'),
  });
  const trigger = resolveCompactionTrigger(triggerFlags);
  const format = resolveFormatFlag(readStringFlag(parsed, 'format'), 'compact');
  if (workDir !== undefined) await assertWorkDirectory(workDir);

  const transcript = await readTranscript(path, io, { format });
  const { messages } = transcript;
  const report = selectReportStream(outputFile !== undefined, io);
  const { style } = report;
  report.writeLines([
    `${style.bold('compact')}  ${toTerminalText(transcript.source)} ${style.dim(`(${describeTranscript(transcript)}, ${groupDigits(messages.length)} messages)`)}`,
  ]);

  const activity = createLlmActivity(io.stderr);
  const use = { calls: 0 };
  const summarizerOptions = await createChosenSummarizer(choice, use, {
    onRequestStart: (requestNumber) =>
      activity.start(
        `Summarizing ${groupDigits(messages.length)} messages with ${choice.provider}${requestNumber > 1 ? ` (request ${requestNumber})` : ''}...`,
      ),
    onRequestEnd: () => activity.stop(),
  });
  const usage = createToolDefinitionUsage(countToolDefinitionTokens(transcript));
  const interruption = listenForInterrupt();

  let result: CompactResult;
  try {
    result = await compactMessages(messages, {
      ...keepDefinedFields({ ...triggerFlags, workDir }),
      ...(readBooleanFlag(parsed, 'force') ? { force: true } : {}),
      ...(workDir === undefined ? NO_RESTORATION : {}),
      ...selectFileReadOptions(transcript),
      ...usage,
      ...summarizerOptions,
      // A warning may quote a path or a value from the transcript.
      logger: { warn: (message) => activity.writeLine(`${style.yellow('warning:')} ${toTerminalText(message)}`) },
      signal: interruption.signal,
    });
  } finally {
    activity.stop();
    interruption.stop();
  }

  const summarizerText = describeSummarizer(choice, { suggestLlm: true });
  if (result.skippedReason === 'archive-failed') {
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    // Nothing is written: the output would be the input unchanged, and the user asked for a compaction.
    throw new CliError(
      `compaction skipped: the archive of the compacted messages could not be written: ${reason.split('\n')[0]}`,
      undefined,
      {
        cause: result.error,
      },
    );
  }
  if (result.skippedReason === 'summarizer-failed') {
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new CliError(
      `compaction failed: the summarizer (${summarizerText}) failed after ${use.calls} attempts: ${reason.split('\n')[0]}`,
      undefined,
      {
        cause: result.error,
      },
    );
  }

  const tokensBefore = countTokens(messages, usage);
  const tokensAfter = countTokens(result.messages, usage);
  // Written in the input's own shape and format; the summary becomes a message of that format.
  if (outputFile === undefined)
    await writeStandardOutput(io.stdout, serializeHistory(transcript, result.messages, 'standard-output'));
  else await writeOutput(outputFile, serializeHistory(transcript, result.messages, 'file'));

  // Past the failures above, the summarizer ran exactly when the history was compacted.
  const ran = result.compacted ? summarizerText : `none ran (it would be: ${summarizerText})`;
  // `use.calls` counts LLM requests (a long history takes several); the CLI passes an LLM as `llmClient`
  const requests = result.summarizer === 'llm-client' && use.calls > 1 ? ` (${use.calls} requests)` : '';
  const lines = [
    `  summarizer: ${result.compacted ? style.cyan(ran) : style.dim(ran)}${requests}`,
    ...describeOutcome(
      result,
      {
        tokensBefore,
        tokensAfter,
        thresholdTokens: trigger.thresholdTokens,
        limit: trigger.contextTokenLimit,
        ratio: trigger.compactThresholdRatio,
      },
      workDir !== undefined,
      report,
    ),
  ];
  lines.push(
    `  history: ${outputFile === undefined ? 'standard output' : toTerminalText(outputFile)} ${style.dim(`(${describeWrittenShape(transcript)}${result.compacted ? '' : ', unchanged'})`)}`,
  );
  report.writeLines(lines);
}
