/**
 * Lines of a stored value read by byte ranges, one chunk at a time: the read tool's scanner.
 * Lines before the one asked for are counted, never built; positions reached are remembered
 * ({@link LineIndex}) so a later page of the same value starts near its target; a line too long
 * for an answer is handed over cut, without reading it to its end.
 */
import type { ContentStore, StoredEntry } from '../ports.js';
import { findHeadEnd } from '../text/text.js';
import { countUtf8Bytes } from '../text/utf8.js';

/**
 * While a read goes on past its first range (skipping to a later page, or searching), each
 * range is twice the last, up to this many times the first: fewer store calls for a scan
 * through megabytes, and line positions still remembered every megabyte at most.
 */
const MAX_CHUNK_GROWTH = 4;

/** A position in a value: byte `byte` lies in line `line`, at its start unless `lineStarted`. */
interface LineCheckpoint {
  byte: number;
  line: number;
  lineStarted: boolean;
}

/**
 * Line positions remembered per value, so that paging through a large value does not rescan it
 * from the start on every page. Keyed by the value's key and version (size and `createdAt`):
 * a value that changed starts afresh.
 */
export interface LineIndex {
  /** The checkpoints known for `key` at this version, in byte order; the scan appends to it. */
  checkpointsOf(key: string, entry: StoredEntry): LineCheckpoint[];
}

/** A {@link LineIndex} that remembers the `maxValues` values read last. */
export function createLineIndex(maxValues = 64): LineIndex {
  const values = new Map<string, { size: number; time: number; checkpoints: LineCheckpoint[] }>();
  return {
    checkpointsOf(key, entry) {
      const known = values.get(key);
      values.delete(key);
      if (known !== undefined && known.size === entry.size && known.time === entry.createdAt.getTime()) {
        values.set(key, known);
        return known.checkpoints;
      }
      const fresh = { size: entry.size, time: entry.createdAt.getTime(), checkpoints: [] as LineCheckpoint[] };
      values.set(key, fresh);
      if (values.size > maxValues) values.delete(values.keys().next().value as string);
      return fresh.checkpoints;
    },
  };
}

/** A failure of the store, told apart from a bug of this module: the first becomes a message. */
export class StoreFailure {
  constructor(readonly error: unknown) {}
}

/** The value disappeared while it was being read (pruned, or overwritten by a shorter one). */
export class ValueGone {}

export async function callStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw new StoreFailure(error);
  }
}

/** One line of the value, without its line break (nor a `\r` before it). */
export interface ScannedLine {
  /** 1-based line number. */
  number: number;
  /** The line, or its first `keepChars` characters when `cut`. */
  text: string;
  /** The line is longer than `keepChars`; the rest of it was not kept (nor, maybe, read). */
  cut: boolean;
}

/** Where a value is read from. */
export interface ValueSource {
  store: ContentStore;
  key: string;
  size: number;
  chunkBytes: number;
  checkpoints: LineCheckpoint[];
}

export interface ScanOutcome {
  /** No line follows the last line visited (or the value had no line from `fromLine` on). */
  ended: boolean;
  /** Lines in the value; exact only when the scan went to its end without the visitor stopping it. */
  lineCount: number;
}

const ORIGIN: LineCheckpoint = { byte: 0, line: 1, lineStarted: false };

/** The last checkpoint from which line `line` can be reached by reading forward. */
function findCheckpoint(checkpoints: readonly LineCheckpoint[], line: number): LineCheckpoint {
  for (let index = checkpoints.length - 1; index >= 0; index -= 1) {
    const checkpoint = checkpoints[index]!;
    if (checkpoint.line < line || (checkpoint.line === line && !checkpoint.lineStarted)) return checkpoint;
  }
  return ORIGIN;
}

/**
 * Reads the value forward by chunks from the nearest checkpoint, counting lines, and gives
 * each line from `fromLine` on to `visit` until it returns false. Lines before `fromLine`
 * are counted, never built. A line longer than `keepChars` is kept cut and handed over as
 * soon as that is known, so a page never reads a huge line to its end.
 */
export async function scanLines(
  source: ValueSource,
  fromLine: number,
  keepChars: number,
  visit: (line: ScannedLine) => boolean,
): Promise<ScanOutcome> {
  const start = findCheckpoint(source.checkpoints, fromLine);
  let byte = start.byte;
  let line = start.line;
  let lineStarted = start.lineStarted;
  let collecting = line >= fromLine;
  let kept = '';
  let cut = false;
  let cutVisited = false;

  let length = source.chunkBytes;
  while (byte < source.size) {
    const range = { offset: byte, length };
    const text = await callStore(() => source.store.get(source.key, range));
    if (text === undefined) throw new ValueGone();
    if (text === '') break;
    const last = source.checkpoints[source.checkpoints.length - 1];
    if (byte > (last?.byte ?? 0)) source.checkpoints.push({ byte, line, lineStarted });
    const textBytes = countUtf8Bytes(text);
    let position = 0;

    if (!collecting) {
      while (line < fromLine) {
        const newline = text.indexOf('\n', position);
        if (newline === -1) break;
        line += 1;
        position = newline + 1;
      }
      if (line < fromLine) {
        byte += textBytes;
        length = Math.min(length * 2, source.chunkBytes * MAX_CHUNK_GROWTH);
        // a chunk without a line break continues the line; else the text after its last one starts a line
        lineStarted = position === 0 || position < text.length;
        continue;
      }
      collecting = true;
      lineStarted = false;
      // the page itself needs little: start small again
      length = source.chunkBytes;
    }

    for (;;) {
      const newline = text.indexOf('\n', position);
      const end = newline === -1 ? text.length : newline;
      if (end > position) {
        lineStarted = true;
        if (!cut) {
          const room = keepChars - kept.length;
          if (end - position <= room) kept += text.slice(position, end);
          else {
            const piece = text.slice(position, position + room + 1);
            kept += piece.slice(0, findHeadEnd(piece, room));
            cut = true;
          }
        }
      }
      if (newline === -1) break;
      if (!cutVisited && !visit({ number: line, text: cut ? kept : stripCarriageReturn(kept), cut })) {
        return { ended: newline + 1 === text.length && byte + textBytes >= source.size, lineCount: line };
      }
      line += 1;
      kept = '';
      cut = false;
      cutVisited = false;
      lineStarted = false;
      position = newline + 1;
    }
    byte += textBytes;
    length = Math.min(length * 2, source.chunkBytes * MAX_CHUNK_GROWTH);
    // a line too long to keep is handed over now, not after reading the rest of it
    if (cut && !cutVisited) {
      cutVisited = true;
      if (!visit({ number: line, text: kept, cut: true })) return { ended: byte >= source.size, lineCount: line };
    }
  }
  if (lineStarted && collecting && !cutVisited)
    visit({ number: line, text: cut ? kept : stripCarriageReturn(kept), cut });
  return { ended: true, lineCount: lineStarted ? line : line - 1 };
}

function stripCarriageReturn(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
