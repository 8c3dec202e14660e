/**
 * `agent-context replay <file>`: replays a transcript's model requests through one context
 * manager in a given window, and shows per request the tokens sent without and with it, what
 * it offloaded and compacted, and the estimated input cost (uncached and with prompt
 * caching): a terminal chart and a summary,
 * `--json`, and with `--html` a self-contained page with the curves.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createContextManager } from '../api/context-manager.js';
import { countTokens } from '../api/tokens.js';
import { DEFAULT_DIRECT_OFFLOAD_THRESHOLD } from '../core/options/defaults.js';
import { DEFAULT_MIN_AGED_CHARS } from '../core/manage/manager-options.js';
import type { Message } from '../core/types.js';
import {
  parseCommandArguments,
  readBooleanFlag,
  readNumberFlag,
  readStringFlag,
  requireInputPath,
} from './arguments.js';
import type { CommandIo } from './command-io.js';
import { resolveCompactionTrigger } from './compaction-trigger.js';
import { CliError, UsageError } from './errors.js';
import { writeOutput, writeStandardOutput } from './io.js';
import { listenForInterrupt } from './interrupt.js';
import { createLlmActivity } from './llm-activity.js';
import { countToolDefinitionTokens } from './measure-context.js';
import { readTranscript, resolveFormatFlag, selectFileReadOptions } from './read-transcript.js';
import { groupDigits } from '../core/text/figures.js';
import { renderReplayChart } from './render/replay-chart.js';
import { renderReplayHtml } from './render/replay-html.js';
import { createTerminalStyle, measureLineWidth } from './render/terminal-style.js';
import { toTerminalJson, toTerminalText } from './render/terminal-text.js';
import { describeTranscript } from './render/transcript-labels.js';
import { COST_FLAGS, readCostFlags } from './replay/cost-flags.js';
import { chooseReplaySummarizer, readRuledNumberFlag, readTokenCountFlag } from './replay/replay-flags.js';
import { summarizeReplay } from './replay/replay-report.js';
import type { ReplayReport, ReplayRequest } from './replay/replay-report.js';
import { replaySession } from './replay/replay-session.js';
import { renderReplaySummary } from './replay/replay-summary-table.js';
import { countLeadingSystemMessages, findRequestTurns } from './replay/request-turns.js';
import { openRunDirectory } from './replay/run-directory.js';
import { createWarningLines } from './replay/warning-lines.js';
import { createChosenSummarizer, describeSummarizer } from './summarizer-choice.js';
import { applyEnvironment } from './proxy-config.js';

const REPLAY_FLAGS = {
  window: { type: 'string' },
  ratio: { type: 'string' },
  threshold: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  ...COST_FLAGS,
  out: { type: 'string' },
  html: { type: 'string' },
  json: { type: 'boolean' },
  format: { type: 'string' },
} as const;

/** Appended after a compaction, as an agent does, so the history does not end with the assistant. */
const RESUME_MESSAGE = 'Continue with the task.';

/**
 * Checks that the window holds the system prompt (and a request body's tool definitions),
 * which every request sends whatever the manager does.
 *
 * @throws {UsageError} naming the window and the system prompt's size.
 */
function assertWindowHoldsSystemPrompt(
  messages: readonly Message[],
  toolDefinitionTokens: number,
  contextTokenLimit: number,
  windowFlag: number | undefined,
): void {
  const systemTokens = toolDefinitionTokens + countTokens(messages.slice(0, countLeadingSystemMessages(messages)));
  if (systemTokens < contextTokenLimit) return;
  const window =
    windowFlag === undefined
      ? `the window (${groupDigits(contextTokenLimit)} tokens)`
      : `--window ${groupDigits(contextTokenLimit)}`;
  const what = toolDefinitionTokens > 0 ? 'the system prompt and tool definitions' : 'the system prompt';
  throw new UsageError(
    `${window} is not larger than ${what} (${groupDigits(systemTokens)} tokens), which every request sends: pass a larger --window`,
    'replay',
  );
}

/**
 * Checks that `--html` does not name the transcript itself (by path, or as another name of the
 * same file): the page would silently replace the session it was made from.
 *
 * @throws {UsageError} naming the flag and the file.
 */
async function assertPageIsNotInput(htmlPath: string | undefined, inputPath: string): Promise<void> {
  if (htmlPath === undefined || inputPath === '-') return;
  let same = resolve(htmlPath) === resolve(inputPath);
  if (!same) {
    const [page, input] = await Promise.all([
      stat(htmlPath).catch(() => undefined),
      stat(inputPath).catch(() => undefined),
    ]);
    same = page !== undefined && input !== undefined && page.dev === input.dev && page.ino === input.ino;
  }
  if (same)
    throw new UsageError(
      `--html ${htmlPath} names the transcript being replayed; the page would replace it: pass another file`,
      'replay',
    );
}

export async function runReplay(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('replay', args, REPLAY_FLAGS, 1);
  const path = requireInputPath(parsed, 'replay');
  const windowFlag = readTokenCountFlag(parsed, 'window', 'replay');
  const trigger = resolveCompactionTrigger({
    contextTokenLimit: windowFlag,
    compactThresholdRatio: readNumberFlag(parsed, 'ratio', 'replay'),
  });
  const threshold = readRuledNumberFlag(parsed, 'threshold', { min: 1 }, 'replay') ?? DEFAULT_DIRECT_OFFLOAD_THRESHOLD;
  const choice = chooseReplaySummarizer(parsed, 'replay');
  const format = resolveFormatFlag(readStringFlag(parsed, 'format'), 'replay');
  const htmlPath = readStringFlag(parsed, 'html');
  const json = readBooleanFlag(parsed, 'json');
  await assertPageIsNotInput(htmlPath, path);

  const transcript = await readTranscript(path, io, { format });
  const costModel = readCostFlags(parsed, 'replay', transcript.model);
  const pricePerMTok = costModel.inputPricePerMTok;
  const cacheRatios = { readRatio: costModel.readRatio, writeRatio: costModel.writeRatio };
  const { messages } = transcript;
  const requestCount = findRequestTurns(messages).length;
  if (requestCount === 0) {
    throw new CliError(
      `${transcript.source}: nothing to replay: no assistant message (each one answers a model request, ${groupDigits(messages.length)} messages read)`,
    );
  }
  const toolDefinitionTokens = countToolDefinitionTokens(transcript);
  assertWindowHoldsSystemPrompt(messages, toolDefinitionTokens, trigger.contextTokenLimit, windowFlag);

  const style = createTerminalStyle(io.stdout);
  const activity = createLlmActivity(io.stderr);
  const warnings = createWarningLines(activity, createTerminalStyle(io.stderr));
  let current = 0;
  // built before anything is written: a missing SDK fails here
  const summarizer = await createChosenSummarizer(
    choice,
    { calls: 0 },
    {
      onRequestStart: (number) =>
        activity.start(
          `Summarizing before request ${current} of ${requestCount} with ${choice.provider}${number > 1 ? ` (call ${number})` : ''}...`,
        ),
      onRequestEnd: () => undefined,
    },
  );
  const directory = await openRunDirectory(readStringFlag(parsed, 'out'), 'replay');
  const interruption = listenForInterrupt();
  let requests: ReplayRequest[];
  try {
    // the manager reads no variable: those of its groups (OFFLOAD_CHAR_THRESHOLD, SUMMARY_MAX_WORDS, ...) are read here
    const environment = applyEnvironment({ offload: undefined, compaction: undefined }, process.env);
    const manager = createContextManager({
      outputDir: directory.path,
      contextTokenLimit: trigger.contextTokenLimit,
      // a margin of 1: the manager counts in the same local tokens as the report
      provider: 'openai',
      // --threshold is the size a result is offloaded at on its own; below the aging batches'
      // default smallest result, it lowers that too (as it always has)
      offload: {
        ...environment.offload,
        directThreshold: threshold,
        minAgedResultChars: Math.min(threshold, DEFAULT_MIN_AGED_CHARS),
      },
      compaction: {
        ...environment.compaction,
        triggerRatio: trigger.compactThresholdRatio,
        summary: {
          ...environment.compaction?.summary,
          model: 'summaryModel' in summarizer ? summarizer.summaryModel : undefined,
        },
        // files are never read back from this machine: the transcript may come from elsewhere
        restore: { maxFiles: 0, ...selectFileReadOptions(transcript) },
        resumeMessage: RESUME_MESSAGE,
      },
      ...('summarizer' in summarizer ? { summarizer: summarizer.summarizer } : { llmClient: summarizer.llmClient }),
      logger: warnings.logger,
    });
    requests = await replaySession({
      messages,
      manager,
      toolDefinitionTokens,
      pricePerMTok,
      cacheRatios,
      signal: interruption.signal,
      onRequest: (number, count) => {
        current = number;
        return activity.start(`Replaying request ${number} of ${count}...`);
      },
    });
  } finally {
    activity.stop();
    interruption.stop();
    warnings.finish();
    await directory.release();
  }

  const report: ReplayReport = {
    source: transcript.source,
    shape: transcript.shape,
    messageFormat: transcript.format.name,
    messageCount: messages.length,
    toolDefinitionTokens,
    contextTokenLimit: trigger.contextTokenLimit,
    compactThresholdRatio: trigger.compactThresholdRatio,
    triggerTokens: trigger.thresholdTokens,
    threshold,
    summarizer: describeSummarizer(choice),
    pricePerMTok,
    costFamily: costModel.family,
    cacheReadRatio: cacheRatios.readRatio,
    cacheWriteRatio: cacheRatios.writeRatio,
    store: directory.kept ? directory.path : null,
    requests,
    totals: summarizeReplay(requests, trigger.contextTokenLimit),
  };
  if (htmlPath !== undefined) await writeOutput(htmlPath, renderReplayHtml(report));
  if (json) {
    await writeStandardOutput(io.stdout, `${toTerminalJson(JSON.stringify(report, null, 2))}\n`);
    return;
  }
  const lines = [
    `${style.bold('replay')}  ${toTerminalText(transcript.source)} ${style.dim(`(${describeTranscript(transcript)}, ${groupDigits(messages.length)} messages, ${groupDigits(requestCount)} model requests)`)}`,
    style.dim(
      `  window ${groupDigits(report.contextTokenLimit)} tokens, compaction at ${groupDigits(report.triggerTokens)}; offload from ${groupDigits(threshold)} chars; summaries: ${report.summarizer}`,
    ),
    '',
    `  context tokens per model request`,
    ...renderReplayChart(
      requests.map((request) => ({ without: request.tokensWithout, with: request.tokensWith })),
      { width: Math.min(80, measureLineWidth(io.stdout)), triggerTokens: report.triggerTokens, style },
    ),
    '',
    ...renderReplaySummary(report, style),
  ];
  if (report.store !== null) lines.push(`  offloaded results and archives: ${toTerminalText(report.store)}`);
  if (htmlPath !== undefined) lines.push(`  chart: ${toTerminalText(htmlPath)}`);
  lines.push(
    style.dim(
      `  Tokens are local estimates (o200k_base); costs at one input price, and with prompt caching (${report.costFamily} prices: the previous request's prefix read at ${report.cacheReadRatio}x, the rest written at ${report.cacheWriteRatio}x).`,
    ),
  );
  await writeStandardOutput(io.stdout, `${lines.join('\n')}\n`);
}
