/**
 * Writing a request body with a new history: the client's own bytes for everything the history
 * change left alone (the other fields, and each stretch of items sent as they came, their
 * separators included), JSON for the items the context manager changed. A long history whose
 * results were offloaded is written in the time of its changed items, not of the whole body,
 * and as a few slices of the client's bytes the socket sends as they are, with no copy.
 */
import type { BodyLayout } from './body-parser.js';

const COMMA = Buffer.from(',');

// The JSON of items written before, by object: the manager hands back the same object for a
// message it changed (an offloaded result's reference) at every later request of the session.
const writtenItems = new WeakMap<object, Buffer>();

function writeItem(item: unknown): Buffer {
  if (typeof item !== 'object' || item === null) return Buffer.from(JSON.stringify(item), 'utf8');
  let bytes = writtenItems.get(item);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(item), 'utf8');
    writtenItems.set(item, bytes);
  }
  return bytes;
}

/**
 * The body `raw` (whose history array is at `layout` and holds `inputItems`, as parsed) with
 * `outputItems` as its history, as the parts to send one after the other: an item that is one of
 * `inputItems` is copied from its bytes (with the bytes up to the next item when that one follows
 * it in `raw` too), any other is written as JSON.
 */
export function writeBodyPartsWithHistory(
  raw: Buffer,
  layout: BodyLayout,
  inputItems: readonly unknown[],
  outputItems: readonly unknown[],
): Buffer[] {
  // most items stay where they were: looked up by position first, by object only when moved (a compaction)
  let indexOf: Map<unknown, number> | undefined;
  const findIndex = (item: unknown, position: number, next: number): number | undefined => {
    if (inputItems[next] === item) return next;
    if (inputItems[position] === item) return position;
    if (indexOf === undefined) {
      indexOf = new Map();
      inputItems.forEach((input, index) => {
        if (typeof input === 'object' && input !== null && !indexOf?.has(input)) indexOf?.set(input, index);
      });
    }
    return indexOf.get(item);
  };
  // the stretch of raw bytes being copied: from the start of the body, through its `[`
  let runStart = 0;
  let runEnd = layout.arrayStart + 1;
  let lastIndex: number | undefined;
  const parts: Buffer[] = [];
  outputItems.forEach((item, position) => {
    const index =
      typeof item === 'object' && item !== null
        ? findIndex(item, position, lastIndex === undefined ? position : lastIndex + 1)
        : undefined;
    const spanStart = index === undefined ? 0 : (layout.spans[index * 2] as number);
    if (index !== undefined && position > 0 && lastIndex !== undefined && index === lastIndex + 1) {
      runEnd = layout.spans[index * 2 + 1] as number;
    } else {
      if (runEnd > runStart) parts.push(raw.subarray(runStart, runEnd));
      if (position > 0) parts.push(COMMA);
      if (index === undefined) {
        parts.push(writeItem(item));
        runStart = runEnd = 0;
      } else {
        runStart = spanStart;
        runEnd = layout.spans[index * 2 + 1] as number;
      }
    }
    lastIndex = index;
  });
  if (runEnd > runStart) parts.push(raw.subarray(runStart, runEnd));
  // the `]` and everything after it
  parts.push(raw.subarray(layout.arrayEnd - 1));
  return coalesceSmallParts(parts);
}

/** Parts of at least this many bytes go to the socket as they are; smaller ones are copied together, so a write is never a few bytes. */
const SENT_AS_IS_BYTES = 64 * 1024;

function coalesceSmallParts(parts: readonly Buffer[]): Buffer[] {
  const coalesced: Buffer[] = [];
  let small: Buffer[] = [];
  const flush = (): void => {
    if (small.length > 0) coalesced.push(small.length === 1 ? (small[0] as Buffer) : Buffer.concat(small));
    small = [];
  };
  for (const part of parts) {
    if (part.length < SENT_AS_IS_BYTES) {
      small.push(part);
      continue;
    }
    flush();
    coalesced.push(part);
  }
  flush();
  return coalesced;
}

/** {@link writeBodyPartsWithHistory} as one buffer. */
export function writeBodyWithHistory(
  raw: Buffer,
  layout: BodyLayout,
  inputItems: readonly unknown[],
  outputItems: readonly unknown[],
): Buffer {
  return Buffer.concat(writeBodyPartsWithHistory(raw, layout, inputItems, outputItems));
}
