import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import {
  CHART_GLYPHS,
  computeNiceScale,
  formatTokensShort,
  renderReplayChart,
  roundUpToNiceNumber,
} from '../../../../src/cli/render/replay-chart.js';
import type { ReplayChartPoint } from '../../../../src/cli/render/replay-chart.js';

const plain = picocolors.createColors(false);

/** Without the manager the context grows; with it, it grows until a compaction halves it. */
function sawtooth(count: number): ReplayChartPoint[] {
  return Array.from({ length: count }, (_, index) => ({
    without: (index + 1) * 4000,
    with: 2000 + ((index % 10) + 1) * 2500,
  }));
}

/** The plot rows (between the top label and the x axis), without the y labels. */
function plotRows(lines: readonly string[]): string[] {
  const axis = lines.findIndex((line) => line.includes('└'));
  return lines.slice(0, axis).map((line) => line.slice(8));
}

describe('replay chart in the terminal', () => {
  it.each([1, 7, 15, 72, 500])('fits 80 columns with %d requests', (count) => {
    const lines = renderReplayChart(sawtooth(count), { width: 200, triggerTokens: 27_600, style: plain });
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    expect(lines.length).toBe(12 + 3);
  });

  it('fits a narrower terminal', () => {
    const lines = renderReplayChart(sawtooth(100), { width: 60, triggerTokens: 27_600, style: plain });
    for (const line of lines.slice(0, -1)) expect(Array.from(line).length).toBeLessThanOrEqual(60);
  });

  it('draws both lines: the one without the manager above the one with it', () => {
    const rows = plotRows(renderReplayChart(sawtooth(20), { width: 80, triggerTokens: 27_600, style: plain }));
    const lastColumn = Math.max(...rows.map((row) => Array.from(row).length)) - 1;
    const rowOf = (glyph: string): number => rows.findIndex((row) => Array.from(row)[lastColumn] === glyph);
    expect(rowOf(CHART_GLYPHS.without)).toBeGreaterThanOrEqual(0);
    expect(rowOf(CHART_GLYPHS.with)).toBeGreaterThan(rowOf(CHART_GLYPHS.without));
  });

  it('shows a compaction as a vertical drop of the managed line', () => {
    const points = [
      { without: 10_000, with: 10_000 },
      { without: 20_000, with: 20_000 },
      { without: 30_000, with: 4_000 },
    ];
    const rows = plotRows(renderReplayChart(points, { width: 80, triggerTokens: 27_600, style: plain }));
    // where the third request starts, one column holds the managed glyph from the peak down to the new value
    const width = Math.max(...rows.map((row) => Array.from(row).length));
    const managedCellsPerColumn = Array.from(
      { length: width },
      (_, column) => rows.filter((row) => Array.from(row)[column] === CHART_GLYPHS.with).length,
    );
    expect(Math.max(...managedCellsPerColumn)).toBeGreaterThan(3);
    expect(managedCellsPerColumn.filter((count) => count > 1)).toHaveLength(2);
  });

  it('draws the trigger as a dashed line and names it in the legend', () => {
    const lines = renderReplayChart(sawtooth(10), { width: 80, triggerTokens: 20_000, style: plain });
    expect(lines.some((line) => line.includes(CHART_GLYPHS.trigger.repeat(3)))).toBe(true);
    expect(lines.at(-1)).toContain('• with the manager   · without   ┄ compaction trigger (20,000)');
  });

  it('labels the axes: tokens on the left, requests 1 to N below', () => {
    const lines = renderReplayChart(sawtooth(15), { width: 80, triggerTokens: 27_600, style: plain });
    expect(lines[0]).toMatch(/^ +60k ┤/);
    expect(lines[11]).toMatch(/^ +0 ┤/);
    expect(lines[13]).toMatch(/request 1 +15$/);
  });

  it('draws nothing for no request', () => {
    expect(renderReplayChart([], { width: 80, triggerTokens: 1000, style: plain })).toEqual([]);
  });
});

describe('chart scales and labels', () => {
  it.each([
    [950, '950'],
    [2594, '2.6k'],
    [2000, '2k'],
    [76_140, '76k'],
    [1_500_000, '1.5m'],
    [2_000_000, '2m'],
  ])('writes %d tokens as %s', (tokens, text) => {
    expect(formatTokensShort(tokens)).toBe(text);
  });

  it('rounds up to 1, 2, 2.5 or 5 × 10^n', () => {
    expect([0, 1, 3, 19, 21, 26, 51, 99, 101].map(roundUpToNiceNumber)).toEqual([1, 1, 5, 20, 25, 50, 100, 100, 200]);
  });

  it('picks a round step of at most four ticks and the first multiple of it above the peak', () => {
    expect(computeNiceScale(76_140)).toEqual({ top: 80_000, step: 20_000 });
    expect(computeNiceScale(2323)).toEqual({ top: 3000, step: 1000 });
    expect(computeNiceScale(0)).toEqual({ top: 1, step: 1 });
  });
});
