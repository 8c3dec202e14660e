/**
 * Figures for people: percentages, sizes, cut text, padded columns (grouped numbers and
 * quantities are in core/text/figures.ts, shared with the texts the library writes).
 */
import { formatQuantity } from '../../core/text/figures.js';

/** `0.4231` → `42.3%`; shares under 0.1% but above 0 show as `<0.1%`. */
export function formatPercent(share: number): string {
  if (share > 0 && share < 0.001) return '<0.1%';
  return `${(share * 100).toFixed(1)}%`;
}

/** Cuts `text` to `width` characters with an ellipsis; never splits a surrogate pair. */
export function truncateText(text: string, width: number): string {
  const characters = Array.from(text);
  if (characters.length <= width) return text;
  return `${characters.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Pads to `width` on the right (text columns). */
export function padEnd(text: string, width: number): string {
  const length = Array.from(text).length;
  return length >= width ? text : text + ' '.repeat(width - length);
}

/** Pads to `width` on the left (number columns). */
export function padStart(text: string, width: number): string {
  const length = Array.from(text).length;
  return length >= width ? text : ' '.repeat(width - length) + text;
}

/** `1536` → `1.5 KB`; under 1 KB, bytes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return formatQuantity(bytes, 'byte');
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
