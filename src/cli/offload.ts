/**
 * `agent-context offload <file> --out <dir>`: batch offload of large tool results to files, in
 * any message format the CLI reads; the new history is written back in that format.
 */
import { countTokens, offloadToolResults, planOffload } from '../index.js';
import { parseCommandArguments, readListFlag, readNumberFlag, readStringFlag, requireInputPath } from './arguments.js';
import type { CommandIo } from './command-io.js';
import { keepDefinedFields } from './defined-fields.js';
import { UsageError } from './errors.js';
import { serializeHistory } from './formats/serialize-transcript.js';
import { writeOutput, writeStandardOutput } from './io.js';
import { countToolDefinitionTokens, createToolDefinitionUsage } from './measure-context.js';
import { readTranscript, resolveFormatFlag } from './read-transcript.js';
import { formatQuantity, groupDigits } from '../core/text/figures.js';
import { formatPercent } from './render/format-figures.js';
import { describeOffloadSkip } from './render/offload-skip.js';
import { toTerminalText } from './render/terminal-text.js';
import { describeTranscript, describeWrittenShape } from './render/transcript-labels.js';
import { selectReportStream } from './report-stream.js';

const OFFLOAD_FLAGS = {
  out: { type: 'string' },
  'char-threshold': { type: 'string' },
  'ratio-threshold': { type: 'string' },
  'exclude-tools': { type: 'string' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
} as const;

export async function runOffload(args: readonly string[], io: CommandIo): Promise<void> {
  const parsed = parseCommandArguments('offload', args, OFFLOAD_FLAGS, 1);
  const path = requireInputPath(parsed, 'offload');
  const outputDir = readStringFlag(parsed, 'out');
  if (outputDir === undefined || outputDir === '')
    throw new UsageError('missing --out <dir> (where the offloaded results go)', 'offload');
  const outputFile = readStringFlag(parsed, 'output');
  const options = keepDefinedFields({
    charThreshold: readNumberFlag(parsed, 'char-threshold', 'offload'),
    ratioThreshold: readNumberFlag(parsed, 'ratio-threshold', 'offload'),
    excludeTools: readListFlag(parsed, 'exclude-tools'),
  });

  const format = resolveFormatFlag(readStringFlag(parsed, 'format'), 'offload');
  const transcript = await readTranscript(path, io, { format });
  const { messages } = transcript;
  // The plan says why nothing would be offloaded; the offload itself decides.
  const plan = planOffload(messages, options);
  const result = await offloadToolResults(messages, { ...options, outputDir });
  const usage = createToolDefinitionUsage(countToolDefinitionTokens(transcript));
  const tokensBefore = countTokens(messages, usage);
  const tokensAfter = countTokens(result.messages, usage);

  // Written in the input's own shape and format; the offloaded results come back as that format's tool outputs.
  if (outputFile === undefined)
    await writeStandardOutput(io.stdout, serializeHistory(transcript, result.messages, 'standard-output'));
  else await writeOutput(outputFile, serializeHistory(transcript, result.messages, 'file'));

  const report = selectReportStream(outputFile !== undefined, io);
  const { style } = report;
  const lines = [
    `${style.bold('offload')}  ${toTerminalText(transcript.source)} ${style.dim(`(${describeTranscript(transcript)}, ${groupDigits(messages.length)} messages)`)}`,
  ];
  if (result.offloadedCount === 0) {
    lines.push(`  nothing offloaded: ${describeOffloadSkip({ ...plan, candidateCount: plan.candidates.length })}`);
  } else {
    const saved = tokensBefore === 0 ? 0 : (tokensBefore - tokensAfter) / tokensBefore;
    lines.push(
      `  offloaded ${style.bold(formatQuantity(result.offloadedCount, 'tool result'))} to ${toTerminalText(outputDir)} (${formatQuantity(result.files.length, 'file')})`,
      `  freed ${style.green(groupDigits(result.freedChars))} chars; tokens ${groupDigits(tokensBefore)} → ${style.bold(groupDigits(tokensAfter))} (${style.green(`-${formatPercent(saved)}`)})`,
    );
  }
  lines.push(
    `  thresholds: ${groupDigits(plan.charThreshold)} chars, ratio ${plan.ratioThreshold} ${style.dim(`(offloadable ${formatPercent(plan.ratio)} of ${groupDigits(plan.totalChars)} chars)`)}`,
    `  history: ${outputFile === undefined ? 'standard output' : toTerminalText(outputFile)} ${style.dim(`(${describeWrittenShape(transcript)})`)}`,
  );
  report.writeLines(lines);
}
