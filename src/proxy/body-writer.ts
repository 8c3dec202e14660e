/**
 * Writing a request body with a new history: the client's own bytes for everything the history
 * change left alone (the other fields, and each item sent as it came), JSON for the items the
 * context manager changed. A long history whose results were offloaded is written in the time
 * of its changed items, not of the whole body.
 */
import type { BodyLayout } from './body-parser.js';

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

/**
 * The body `raw` (whose history array is at `layout` and holds `inputItems`, as parsed) with
 * `outputItems` as its history: an item that is one of `inputItems` is copied from its bytes,
 * any other is written as JSON.
 */
export function writeBodyWithHistory(raw: Buffer, layout: BodyLayout, inputItems: readonly unknown[], outputItems: readonly unknown[]): Buffer {
  const indexOf = new Map<unknown, number>();
  inputItems.forEach((item, index) => {
    if (typeof item === 'object' && item !== null && !indexOf.has(item)) indexOf.set(item, index);
  });
  const parts: Buffer[] = [raw.subarray(0, layout.arrayStart), OPEN];
  outputItems.forEach((item, position) => {
    if (position > 0) parts.push(COMMA);
    const index = indexOf.get(item);
    parts.push(index === undefined ? Buffer.from(JSON.stringify(item), 'utf8') : raw.subarray(layout.spans[index * 2], layout.spans[index * 2 + 1]));
  });
  parts.push(CLOSE, raw.subarray(layout.arrayEnd));
  return Buffer.concat(parts);
}
