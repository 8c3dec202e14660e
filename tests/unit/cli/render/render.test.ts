import { describe, expect, it } from 'vitest';
import { drawBar, drawGauge } from '../../../../src/cli/render/bar-chart.js';
import { formatQuantity, groupDigits } from '../../../../src/core/text/figures.js';
import { formatPercent, truncateText } from '../../../../src/cli/render/format-figures.js';
import { createTerminalStyle, isColorEnabled, measureLineWidth } from '../../../../src/cli/render/terminal-style.js';

describe('colour only on a terminal, never with NO_COLOR', () => {
  it.each([
    [{ isTTY: true }, {}, true],
    [{ isTTY: false }, {}, false],
    [{}, {}, false],
    [{ isTTY: true }, { NO_COLOR: '1' }, false],
    [{ isTTY: true }, { NO_COLOR: '' }, true],
    [{ isTTY: false }, { FORCE_COLOR: '1' }, true],
    [{ isTTY: true }, { FORCE_COLOR: '0' }, false],
    [{ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
  ])('stream %j, env %j → %s', (stream, env, expected) => {
    expect(isColorEnabled(stream, env)).toBe(expected);
  });

  it('a piped style returns text unchanged', () => {
    const style = createTerminalStyle({ isTTY: false });
    if (process.env.FORCE_COLOR === undefined && process.env.NO_COLOR === undefined) expect(style.red('x')).toBe('x');
  });

  it('lays out in the terminal width, capped, or 100 columns when piped', () => {
    expect(measureLineWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(measureLineWidth({ isTTY: true, columns: 300 })).toBe(120);
    expect(measureLineWidth({ isTTY: false, columns: 80 })).toBe(100);
  });
});

describe('bar charts', () => {
  it('draws eighths and pads to the width', () => {
    expect(drawBar(10, 10, 4)).toBe('████');
    expect(drawBar(5, 10, 4)).toBe('██  ');
    expect(drawBar(1, 16, 4)).toBe('▎   ');
    expect(drawBar(0, 10, 4)).toBe('    ');
  });

  it('always shows a sliver for a value above 0', () => {
    expect(drawBar(1, 1_000_000, 4)).toBe('▏   ');
  });

  it('draws a gauge with a marker at the trigger', () => {
    expect(drawGauge(0.5, 0.9, 10)).toEqual({ filled: '█████', empty: '░░░│░' });
    expect(drawGauge(1.2, 0.9, 10)).toEqual({ filled: '████████┃█', empty: '' });
  });
});

describe('figures', () => {
  it('formats counts, shares and quantities', () => {
    expect(groupDigits(1234567)).toBe('1,234,567');
    expect(formatPercent(0.4231)).toBe('42.3%');
    expect(formatPercent(0.0001)).toBe('<0.1%');
    expect(formatQuantity(1, 'file')).toBe('1 file');
    expect(formatQuantity(2, 'file')).toBe('2 files');
  });

  it('groups the digits of a whole part only, negatives and fractions included', () => {
    expect(groupDigits(-1234567)).toBe('-1,234,567');
    expect(groupDigits(1234.5678)).toBe('1,234.5678');
    expect(groupDigits(999)).toBe('999');
  });

  it('cuts text without splitting a surrogate pair', () => {
    expect(truncateText('ab😀cd', 4)).toBe('ab😀…');
    expect(truncateText('abc', 3)).toBe('abc');
  });
});
