/**
 * Horizontal bars drawn with block characters, eighths included, so that small differences
 * stay visible in a narrow column.
 */

const PARTIAL_BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * A bar of `value / max` of `width` characters, padded with spaces to `width`. A value above
 * 0 always shows at least a sliver.
 */
export function drawBar(value: number, max: number, width: number): string {
  if (width <= 0) return '';
  const share = max <= 0 ? 0 : Math.min(1, Math.max(0, value / max));
  let eighths = Math.round(share * width * 8);
  if (value > 0 && eighths === 0) eighths = 1;
  const full = Math.floor(eighths / 8);
  const partial = PARTIAL_BLOCKS[eighths % 8] ?? '';
  const bar = '█'.repeat(full) + partial;
  return bar + ' '.repeat(width - full - (partial === '' ? 0 : 1));
}

/**
 * A gauge of `share` (0–1, more is clipped) over `width` characters, with `│` where
 * `markerShare` falls: `██████░░░░░░│░░`. Returns the filled part and the rest separately, so
 * that each can be coloured.
 */
export function drawGauge(share: number, markerShare: number, width: number): { filled: string; empty: string } {
  const filledCells = Math.min(width, Math.round(Math.min(1, Math.max(0, share)) * width));
  const markerCell = Math.min(width - 1, Math.max(0, Math.round(markerShare * width) - 1));
  let filled = '';
  let empty = '';
  for (let cell = 0; cell < width; cell++) {
    if (cell < filledCells) filled += cell === markerCell ? '┃' : '█';
    else empty += cell === markerCell ? '│' : '░';
  }
  return { filled, empty };
}
