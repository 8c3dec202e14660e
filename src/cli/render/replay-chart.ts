/**
 * The terminal chart of `agent-context replay`: context tokens per model request, without
 * the context manager (`·`) and with it (`•`), and the compaction trigger (`┄`), drawn with
 * plain characters in at most 80 columns. More requests than columns share a column (its
 * largest value is drawn); fewer are stretched. Consecutive points are joined vertically, so
 * a compaction shows as a drop.
 */
import { groupDigits } from '../../core/text/figures.js';
import type { TerminalStyle } from './terminal-style.js';

/** One request's context size, without and with the manager. */
export interface ReplayChartPoint {
  without: number;
  with: number;
}

/** Options of {@link renderReplayChart}. */
export interface ReplayChartOptions {
  /** Columns the whole chart may take, labels included (at most 80 are used). */
  width: number;
  /** Rows of the plot area. @default 12 */
  height?: number;
  /** The compaction trigger, in tokens: drawn as a dashed line. */
  triggerTokens: number;
  style: TerminalStyle;
}

/** The glyphs of the chart, also used by the legend. */
export const CHART_GLYPHS = { without: '·', with: '•', trigger: '┄' } as const;

const MAX_WIDTH = 80;
const DEFAULT_HEIGHT = 12;
const LABEL_WIDTH = 6;

type Cell = 'empty' | 'without' | 'with' | 'trigger';

/** `76140` → `76k`, `2594` → `2.6k`, `1500000` → `1.5m`, `950` → `950`. */
export function formatTokensShort(tokens: number): string {
  const trim = (text: string): string => text.replace(/\.0$/, '');
  if (tokens >= 1_000_000) return `${trim((tokens / 1_000_000).toFixed(1))}m`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1000)}k`;
  if (tokens >= 1000) return `${trim((tokens / 1000).toFixed(1))}k`;
  return String(Math.round(tokens));
}

/** The smallest of 1, 2, 2.5, 5 × 10^n that is at least `value` (at least 1). */
export function roundUpToNiceNumber(value: number): number {
  if (!(value > 1)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * magnitude >= value) return step * magnitude;
  }
  return 10 * magnitude;
}

/** A y axis: its top and the step between its ticks. */
export interface NiceScale {
  top: number;
  step: number;
}

/**
 * A y axis for values up to `peak`: a round step (1, 2, 2.5 or 5 × 10^n) giving at most four
 * ticks above 0, and the first multiple of it at or above `peak`: 76,140 → 80,000 by 20,000.
 */
export function computeNiceScale(peak: number): NiceScale {
  const step = roundUpToNiceNumber(Math.max(1, peak) / 4);
  return { top: Math.max(step, Math.ceil(Math.max(1, peak) / step) * step), step };
}

function mapColumns(pointCount: number, maxColumns: number): Array<{ from: number; to: number }> {
  const columns = pointCount >= maxColumns ? maxColumns : pointCount * Math.floor(maxColumns / pointCount);
  const ranges: Array<{ from: number; to: number }> = [];
  for (let column = 0; column < columns; column += 1) {
    const from = Math.floor((column * pointCount) / columns);
    const to = Math.max(from + 1, Math.floor(((column + 1) * pointCount) / columns));
    ranges.push({ from, to });
  }
  return ranges;
}

function drawSeries(grid: Cell[][], rows: readonly number[], cell: Cell): void {
  rows.forEach((row, column) => {
    const previous = column === 0 ? row : (rows[column - 1] as number);
    // the point, and the vertical stroke from the previous column's point (that row excluded)
    const low = row > previous ? previous + 1 : row;
    const high = row < previous ? previous - 1 : row;
    for (let between = low; between <= high; between += 1) (grid[between] as Cell[])[column] = cell;
  });
}

function paint(cell: Cell, text: string, style: TerminalStyle): string {
  if (cell === 'with') return style.cyan(text);
  if (cell === 'without') return style.yellow(text);
  if (cell === 'trigger') return style.red(text);
  return text;
}

/** A row of cells as text, each run of one kind coloured once. */
function renderRow(cells: readonly Cell[], style: TerminalStyle): string {
  let line = '';
  let run = '';
  let runCell: Cell = 'empty';
  const glyph = (cell: Cell): string => (cell === 'empty' ? ' ' : CHART_GLYPHS[cell]);
  for (const cell of cells) {
    if (cell !== runCell && run !== '') {
      line += paint(runCell, run, style);
      run = '';
    }
    runCell = cell;
    run += glyph(cell);
  }
  return line + paint(runCell, run, style).trimEnd();
}

/**
 * Draws the chart: a y axis in tokens, one column per request (or group of requests), the
 * legend under it. Every line fits in `min(width, 80)` columns.
 */
export function renderReplayChart(points: readonly ReplayChartPoint[], options: ReplayChartOptions): string[] {
  const { style, triggerTokens } = options;
  const height = Math.max(4, options.height ?? DEFAULT_HEIGHT);
  const plotColumns = Math.max(10, Math.min(options.width, MAX_WIDTH) - LABEL_WIDTH - 2);
  if (points.length === 0) return [];
  const peak = Math.max(triggerTokens, ...points.map((point) => Math.max(point.without, point.with)));
  const { top } = computeNiceScale(peak);
  const rowOf = (tokens: number): number =>
    Math.min(height - 1, Math.max(0, Math.round((tokens / top) * (height - 1))));

  const ranges = mapColumns(points.length, plotColumns);
  const largest = (from: number, to: number, series: keyof ReplayChartPoint): number =>
    Math.max(...points.slice(from, to).map((point) => point[series]));
  const grid: Cell[][] = Array.from({ length: height }, () =>
    Array.from({ length: ranges.length }, (): Cell => 'empty'),
  );
  const triggerRow = rowOf(triggerTokens);
  (grid[triggerRow] as Cell[]).fill('trigger');
  drawSeries(
    grid,
    ranges.map((range) => rowOf(largest(range.from, range.to, 'without'))),
    'without',
  );
  // drawn last: where the lines meet, the managed one shows
  drawSeries(
    grid,
    ranges.map((range) => rowOf(largest(range.from, range.to, 'with'))),
    'with',
  );

  const lines: string[] = [];
  for (let row = height - 1; row >= 0; row -= 1) {
    let label = '';
    if (row === height - 1) label = formatTokensShort(top);
    else if (row === 0) label = '0';
    else if (row === Math.round((height - 1) / 2)) label = formatTokensShort(top / 2);
    const axis = label === '' ? '│' : '┤';
    lines.push(`${style.dim(`${label.padStart(LABEL_WIDTH)} ${axis}`)}${renderRow(grid[row] as Cell[], style)}`);
  }
  lines.push(style.dim(`${' '.repeat(LABEL_WIDTH)} └${'─'.repeat(ranges.length)}`));
  const first = 'request 1';
  const last = String(points.length);
  const gap = Math.max(1, ranges.length - first.length - last.length);
  lines.push(style.dim(`${' '.repeat(LABEL_WIDTH + 2)}${first}${' '.repeat(gap)}${points.length === 1 ? '' : last}`));
  lines.push(
    `${' '.repeat(LABEL_WIDTH + 2)}${style.cyan(`${CHART_GLYPHS.with} with the manager`)}   ${style.yellow(`${CHART_GLYPHS.without} without`)}   ${style.red(
      `${CHART_GLYPHS.trigger} compaction trigger (${groupDigits(triggerTokens)})`,
    )}`,
  );
  return lines;
}
