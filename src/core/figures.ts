/**
 * Numbers in the texts the package writes for models and people, the same on every runtime
 * (no locale data).
 */

/** `10485760` → `10,485,760`. */
export function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
