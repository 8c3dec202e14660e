/**
 * The terminal report of `agent-context count`: totals, bar charts by role and by tool, the
 * largest tool results, the offload forecast and the compaction gauge.
 */
import { UNMATCHED_TOOL, type ContextMeasurement } from '../measure-context.js';
import { drawBar, drawGauge } from './bar-chart.js';
import { groupDigits } from '../../core/text/figures.js';
import { formatPercent, padEnd, padStart, truncateText } from './format-figures.js';
import { describeOffloadSkip } from './offload-skip.js';
import type { TerminalStyle } from './terminal-style.js';
import { toTerminalText } from './terminal-text.js';
import { labelFormat, SHAPE_LABELS } from './transcript-labels.js';

/** Options of {@link renderCountReport}. */
export interface RenderCountReportOptions {
  /** Where the transcript came from (file path or `stdin`), shown in the title. */
  source: string;
  style: TerminalStyle;
  width: number;
  /** Heading of the report. @default `agent-context count` */
  title?: string | undefined;
}

/** What the report calls the results whose call is not in the history (`(unmatched)` in `--json`). */
const UNMATCHED_LABEL = '(results with no call)';
/** The tool of such a result in the list of the largest. */
const NO_CALL_TOOL = '(no call)';

/**
 * A result's first line as a preview: a tab shows as a space (it only spaces the text out;
 * `\u0009` would say nothing more), every other control is escaped.
 */
function toPreview(firstLine: string): string {
  return toTerminalText(firstLine.replace(/\t/g, ' '));
}

/** A labelled bar row: `  label   12,345  ████▌      42.0%`. */
function renderBarRows(
  rows: ReadonlyArray<{ label: string; value: number; note?: string }>,
  total: number,
  style: TerminalStyle,
  width: number,
): string[] {
  const labelWidth = Math.min(24, Math.max(...rows.map((row) => Array.from(row.label).length), 4));
  const noteWidth = Math.max(0, ...rows.map((row) => (row.note ?? '').length));
  const valueWidth = Math.max(...rows.map((row) => groupDigits(row.value).length), 1);
  const max = Math.max(...rows.map((row) => row.value), 0);
  const barWidth = Math.max(10, Math.min(40, width - labelWidth - noteWidth - valueWidth - 18));
  return rows.map((row) => {
    const label = padEnd(truncateText(row.label, labelWidth), labelWidth);
    const note = noteWidth === 0 ? '' : `${padStart(row.note ?? '', noteWidth)}  `;
    const value = padStart(groupDigits(row.value), valueWidth);
    const share = padStart(formatPercent(total === 0 ? 0 : row.value / total), 6);
    return `  ${label}  ${style.dim(note)}${value}  ${style.cyan(drawBar(row.value, max, barWidth))} ${style.dim(share)}`;
  });
}

function renderLargestResults(measurement: ContextMeasurement, style: TerminalStyle, width: number): string[] {
  // Names, ids and previews come from the transcript: escaped before they are measured or shown.
  const results = measurement.largestToolResults.map((result) => ({
    tokens: groupDigits(result.tokens),
    tool: result.tool === null ? NO_CALL_TOOL : toTerminalText(result.tool),
    id: toTerminalText(result.toolUseId),
    firstLine: toPreview(result.firstLine),
  }));
  if (results.length === 0) return [style.dim('  (no tool results)')];
  const tokensWidth = Math.max(6, ...results.map((result) => result.tokens.length));
  const toolWidth = Math.min(16, Math.max(4, ...results.map((result) => Array.from(result.tool).length)));
  const idWidth = Math.min(32, Math.max(2, ...results.map((result) => Array.from(result.id).length)));
  const lineWidth = Math.max(12, width - tokensWidth - toolWidth - idWidth - 10);
  const header = `  ${padStart('tokens', tokensWidth)}  ${padEnd('tool', toolWidth)}  ${padEnd('id', idWidth)}  first line`;
  return [
    style.dim(header),
    ...results.map((result) => {
      const tokens = padStart(result.tokens, tokensWidth);
      const tool = padEnd(truncateText(result.tool, toolWidth), toolWidth);
      const id = padEnd(truncateText(result.id, idWidth), idWidth);
      return `  ${tokens}  ${tool}  ${style.dim(id)}  ${truncateText(result.firstLine, lineWidth)}`;
    }),
  ];
}

function renderOffload(measurement: ContextMeasurement, style: TerminalStyle): string[] {
  const offload = measurement.offload;
  const heading = `${style.bold('Batch offload')} ${style.dim(
    `(char threshold ${groupDigits(offload.charThreshold)}, ratio threshold ${offload.ratioThreshold})`,
  )}`;
  const share = `${groupDigits(offload.offloadableChars)} of ${groupDigits(offload.totalChars)} chars (${formatPercent(offload.ratio)})`;
  if (offload.wouldOffload) {
    const tokenShare = measurement.totalTokens === 0 ? 0 : offload.freedTokens / measurement.totalTokens;
    return [
      heading,
      `  would offload ${style.bold(groupDigits(offload.candidateCount))} of ${groupDigits(offload.toolResultCount)} tool results: ${share}`,
      `  frees ${style.green(groupDigits(offload.freedChars))} chars, ~${style.green(groupDigits(offload.freedTokens))} tokens (${formatPercent(tokenShare)} of the total)`,
    ];
  }
  return [
    heading,
    `  would skip: ${describeOffloadSkip(offload)}`,
    `  ${groupDigits(offload.candidateCount)} of ${groupDigits(offload.toolResultCount)} tool results qualify: ${share}`,
  ];
}

function renderCompaction(measurement: ContextMeasurement, style: TerminalStyle, width: number): string[] {
  const compaction = measurement.compaction;
  const heading = `${style.bold('Compaction')} ${style.dim(
    `(window ${groupDigits(compaction.contextTokenLimit)} tokens, triggers at ${formatPercent(compaction.compactThresholdRatio)} = ${groupDigits(compaction.thresholdTokens)})`,
  )}`;
  const gaugeWidth = Math.max(20, Math.min(50, width - 30));
  const gauge = drawGauge(compaction.share, compaction.compactThresholdRatio, gaugeWidth);
  const colour = compaction.wouldTrigger
    ? style.red
    : compaction.share >= compaction.compactThresholdRatio * 0.75
      ? style.yellow
      : style.green;
  const verdict = compaction.wouldTrigger
    ? style.red(style.bold('would trigger'))
    : `${style.green('would not trigger')}: ${groupDigits(Math.max(0, compaction.thresholdTokens - measurement.totalTokens))} tokens to go`;
  return [
    heading,
    `  ${colour(gauge.filled)}${style.dim(gauge.empty)}  ${formatPercent(compaction.share)} of the window`,
    `  ${verdict}`,
  ];
}

/** `JSON array of messages`, `request body (OpenAI Chat Completions)`. */
function describeMeasuredTranscript(measurement: ContextMeasurement): string {
  const shape = SHAPE_LABELS[measurement.format];
  return measurement.messageFormat === 'anthropic' ? shape : `${shape} (${labelFormat(measurement.messageFormat)})`;
}

/**
 * Renders the report as lines of text (no trailing newline). Every text taken from the
 * transcript (source, tool names, ids, previews) is escaped for the terminal.
 */
export function renderCountReport(measurement: ContextMeasurement, options: RenderCountReportOptions): string {
  const { style, width } = options;
  const { byRole } = measurement;
  const roleRows = [
    { label: 'system', value: byRole.system },
    { label: 'user', value: byRole.user },
    { label: 'assistant', value: byRole.assistant },
    ...(byRole.tools === undefined ? [] : [{ label: 'tool definitions', value: byRole.tools }]),
  ];
  const toolEntries = Object.entries(measurement.byTool);
  const shownTools = toolEntries.slice(0, 12);
  const toolRows = shownTools.map(([name, tool]) => ({
    label: name === UNMATCHED_TOOL ? UNMATCHED_LABEL : toTerminalText(name),
    value: tool.tokens,
    note: `${groupDigits(tool.calls)}×`,
  }));
  const hiddenTools = toolEntries.length - shownTools.length;

  const lines = [
    `${style.bold(options.title ?? 'agent-context count')}  ${toTerminalText(options.source)}`,
    style.dim(`${describeMeasuredTranscript(measurement)}, ${groupDigits(measurement.messageCount)} messages`),
    '',
    `${style.bold('Total')}  ${style.bold(groupDigits(measurement.totalTokens))} tokens`,
    '',
    style.bold('By role'),
    ...renderBarRows(roleRows, measurement.totalTokens, style, width),
    '',
    `${style.bold('By tool')} ${style.dim('(calls, tokens of inputs + results)')}`,
    ...(toolRows.length === 0
      ? [style.dim('  (no tool calls)')]
      : renderBarRows(toolRows, measurement.totalTokens, style, width)),
    ...(hiddenTools > 0 ? [style.dim(`  ... and ${hiddenTools} more`)] : []),
    '',
    `${style.bold('Largest tool results')}`,
    ...renderLargestResults(measurement, style, width),
    '',
    ...renderOffload(measurement, style),
    '',
    ...renderCompaction(measurement, style, width),
  ];
  return lines.join('\n');
}
