/**
 * `agent-context demo`: the whole story, offline, on the sample session shipped with the
 * package — count, offload, count, compact (extractive), count — each step with its figures.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { compactMessages, countTokens, offloadToolResults } from '../index.js';
import { isOffloadReference } from '../messages.js';
import { createExtractiveSummarizer } from '../summarize.js';
import { anthropic } from '../formats/anthropic.js';
import type { Message } from '../index.js';
import { parseCommandArguments, readStringFlag } from './arguments.js';
import type { CommandIo } from './command-io.js';
import { CliError } from './errors.js';
import { writeStandardOutput } from './io.js';
import { measureContext } from './measure-context.js';
import type { ContextMeasurement } from './measure-context.js';
import { drawBar } from './render/bar-chart.js';
import { renderCountReport } from './render/count-report.js';
import { formatQuantity, groupDigits } from '../core/text/figures.js';
import { formatPercent, padEnd, padStart, truncateText } from './render/format-figures.js';
import { describeOffloadSkip } from './render/offload-skip.js';
import { createTerminalStyle, measureLineWidth } from './render/terminal-style.js';
import type { TerminalStyle } from './render/terminal-style.js';
import { toTerminalText } from './render/terminal-text.js';
import { loadSampleSession } from './sample/load-sample.js';

const DEMO_FLAGS = { dir: { type: 'string' } } as const;

/**
 * The sample is far below a real 200,000-token window, so the demo compacts with a window
 * sized for it: the sample then sits at ~95% of it, above the default 92% trigger.
 */
function sizeDemoWindow(tokens: number): number {
  return Math.ceil(tokens / 0.95 / 1000) * 1000;
}

function asTranscript(messages: Message[]): Parameters<typeof measureContext>[0] {
  return { shape: 'json', format: anthropic, messages, toolDefinitions: undefined };
}

function renderStepHeading(style: TerminalStyle, step: number, title: string, note?: string): string {
  return `\n${style.bold(style.cyan(`${step}. ${title}`))}${note === undefined ? '' : `  ${style.dim(note)}`}`;
}

function renderRoleBars(measurement: ContextMeasurement, style: TerminalStyle): string[] {
  const rows: Array<[string, number]> = [
    ['system', measurement.byRole.system],
    ['user', measurement.byRole.user],
    ['assistant', measurement.byRole.assistant],
  ];
  return rows.map(
    ([role, tokens]) =>
      `   ${padEnd(role, 9)}  ${padStart(groupDigits(tokens), 6)}  ${style.cyan(drawBar(tokens, measurement.totalTokens, 30))} ${style.dim(
        padStart(formatPercent(measurement.totalTokens === 0 ? 0 : tokens / measurement.totalTokens), 6),
      )}`,
  );
}

function renderTotal(style: TerminalStyle, after: ContextMeasurement, before: ContextMeasurement): string {
  const change = before.totalTokens === 0 ? 0 : 1 - after.totalTokens / before.totalTokens;
  return `   total ${style.bold(groupDigits(after.totalTokens))} tokens in ${groupDigits(after.messageCount)} messages ${style.green(
    `(-${formatPercent(change)} from ${groupDigits(before.totalTokens)})`,
  )}`;
}

function describeMessage(message: Message): string {
  if (typeof message.content === 'string') return toTerminalText(message.content.split('\n', 1)[0] ?? '');
  return toTerminalText(message.content.map((block) => block.type).join(', '));
}

export async function runDemo(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('demo', args, DEMO_FLAGS, 0);
  const style = createTerminalStyle(io.stdout);
  const width = measureLineWidth(io.stdout);
  const print = async (...text: string[]): Promise<void> => {
    await writeStandardOutput(io.stdout, `${text.join('\n')}\n`);
  };

  const requestedDir = readStringFlag(parsed, 'dir');
  let demoDir: string;
  try {
    demoDir = requestedDir === undefined ? await mkdtemp(join(tmpdir(), 'agent-context-demo-')) : resolve(requestedDir);
    await mkdir(demoDir, { recursive: true });
  } catch (error) {
    throw new CliError(
      `cannot create the demo directory: ${error instanceof Error ? error.message : String(error)}`,
      undefined,
      { cause: error },
    );
  }
  const session = await loadSampleSession();
  const projectDir = join(demoDir, session.projectName);
  const offloadDir = join(demoDir, 'offload');
  const archiveDir = join(demoDir, 'compact');
  // The transcript itself, for trying the other commands on it.
  const samplePath = join(demoDir, 'sample-session.json');
  await writeFile(samplePath, `${JSON.stringify(session.messages, null, 2)}\n`, 'utf8');
  // The project as it is at the end of the session: compaction restores files from it.
  for (const [path, text] of Object.entries(session.projectFiles)) {
    const filePath = join(projectDir, path);
    await mkdir(dirname(filePath), { recursive: true });
    await writeFile(filePath, text, 'utf8');
  }

  await print(
    style.bold('agent-context demo'),
    style.dim(
      `A coding agent fixes the failing test suite of "${session.projectName}" after a rounding change: it reads files,`,
    ),
    style.dim(
      'runs the suite (long logs), searches, edits three places and re-runs. The sample ships with the package.',
    ),
    style.dim(`Everything runs offline; files go to ${toTerminalText(demoDir)}`),
  );

  const original = session.messages;
  const before = measureContext(asTranscript(original));
  await print(renderStepHeading(style, 1, 'count', 'where the context goes'));
  await print(renderCountReport(before, { source: 'sample session', style, width, title: 'agent-context count' }));

  const offload = await offloadToolResults(original, { outputDir: offloadDir });
  await print(renderStepHeading(style, 2, 'offload', 'large tool results to files, default thresholds'));
  if (offload.offloadedCount === 0) {
    await print(
      `   nothing offloaded: ${describeOffloadSkip({ ...before.offload, skippedReason: before.offload.skippedReason })}`,
    );
  } else {
    await print(
      `   offloaded ${style.bold(formatQuantity(offload.offloadedCount, 'tool result'))}, ${formatQuantity(offload.freedChars, 'char')}, to ${toTerminalText(offloadDir)}`,
      `   each replaced by a reference such as ${style.dim(toTerminalText(JSON.stringify(findReference(offload.messages) ?? '')))}`,
    );
  }

  const afterOffload = measureContext(asTranscript(offload.messages));
  await print(
    renderStepHeading(style, 3, 'count', 'after offload'),
    renderTotal(style, afterOffload, before),
    ...renderRoleBars(afterOffload, style),
  );

  const window = sizeDemoWindow(countTokens(original));
  await print(
    renderStepHeading(style, 4, 'compact', 'extractive summary, offline'),
    style.dim(
      '   Offloading is lossless and often enough. Compaction is for a history that outgrows the window even so:',
    ),
    style.dim(
      `   here the original ${groupDigits(before.totalTokens)}-token history, in a window of ${groupDigits(window)} tokens sized for this`,
    ),
    style.dim('   short sample (real windows are 200,000) so that it crosses the 92% trigger.'),
  );
  const warnings: string[] = [];
  const compaction = await compactMessages(original, {
    contextTokenLimit: window,
    summarizer: createExtractiveSummarizer(),
    workDir: projectDir,
    outputDir: archiveDir,
    readToolNames: [session.readToolName],
    pathField: session.pathField,
    logger: { warn: (message) => warnings.push(message) },
  });
  if (!compaction.compacted) {
    throw new CliError(`the demo's compaction did not run (${compaction.skippedReason ?? 'unknown reason'})`);
  }
  const { stats } = compaction;
  await print(
    `   summarizer: ${style.cyan('extractive')} ${style.dim('(deterministic, no network; an LLM writes a better summary: agent-context compact --provider anthropic)')}`,
    `   summarized ${formatQuantity(stats.compactedMessageCount, 'message')}, kept ${formatQuantity(stats.retainedMessageCount, 'system message')}, restored ${formatQuantity(
      stats.restoredFileCount,
      'recently read file',
    )} (${formatQuantity(stats.restoredTokenCount, 'token')}) from ${toTerminalText(projectDir)}`,
    `   tokens ${groupDigits(stats.originalTokenCount)} → ${style.bold(groupDigits(stats.compactedTokenCount))} ${style.green(`(${formatPercent(stats.compactionRatio)} of the original)`)}`,
    `   archive of the compacted messages: ${toTerminalText(compaction.originalMessagesPath ?? 'not written')}`,
    ...warnings.map((warning) => style.dim(`   note: ${toTerminalText(warning)}`)),
    style.dim('   the summary, first lines of each section:'),
    ...excerptSummary(compaction.summary ?? '', 2).map((line) =>
      style.dim(`   │ ${truncateText(toTerminalText(line), width - 6)}`),
    ),
  );

  const afterCompaction = measureContext(asTranscript(compaction.messages));
  await print(
    renderStepHeading(style, 5, 'count', 'after compaction'),
    renderTotal(style, afterCompaction, before),
    ...renderRoleBars(afterCompaction, style),
    style.dim('   the new history:'),
    ...compaction.messages.map((message, index) =>
      style.dim(
        `   ${padStart(String(index), 2)} ${padEnd(message.role, 9)} ${truncateText(describeMessage(message), width - 18)}`,
      ),
    ),
  );
  await print(
    '',
    // `npx` finds the command in a clone of the repository as in a project that installed it
    style.bold('Try it on your own transcripts:'),
    `   npx agent-context count ${toTerminalText(samplePath)}`,
    '   npx agent-context count ~/.claude/projects/<project>/<session>.jsonl',
    '   npx agent-context offload history.json --out ./offload -o smaller.json',
    '   npx agent-context compact history.json --provider anthropic --work-dir <project dir> -o compacted.json',
  );
}

/** Each `## ` heading of a summary with the first `linesPerSection` lines under it. */
function excerptSummary(summary: string, linesPerSection: number): string[] {
  const excerpt: string[] = [];
  let shown = 0;
  for (const line of summary.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('## ')) {
      excerpt.push(line);
      shown = 0;
    } else if (shown < linesPerSection) {
      excerpt.push(line);
      shown += 1;
    }
  }
  return excerpt;
}

/** The first offload reference in a history, to show what one looks like. */
function findReference(messages: readonly Message[]): string | undefined {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      const content = (block as { type: string; content?: unknown }).content;
      if (block.type === 'tool_result' && typeof content === 'string' && isOffloadReference(content)) return content;
    }
  }
  return undefined;
}
