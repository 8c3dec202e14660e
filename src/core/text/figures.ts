/**
 * Numbers in the texts the package writes for models and people, the same on every runtime
 * (no locale data).
 */

/** `10485760` → `10,485,760`; a fraction is kept as it is (`1234.5678` → `1,234.5678`). */
export function groupDigits(value: number): string {
  const text = String(value);
  const point = text.indexOf('.');
  const whole = point === -1 ? text : text.slice(0, point);
  return whole.replace(/\B(?=(\d{3})+$)/g, ',') + (point === -1 ? '' : text.slice(point));
}

/** `1 line`, `3,000 lines`: a count with its noun (regular plurals only). */
export function formatQuantity(count: number, noun: string): string {
  return `${groupDigits(count)} ${count === 1 ? noun : `${noun}s`}`;
}
