/**
 * Parsing request bodies that repeat an earlier one. An agent sends its whole history with every
 * request, so a body is mostly the bytes of the body before it with a message or two added:
 * decoding and parsing megabytes at each request, on the one event loop every session shares,
 * is what made a long session slow down all the others. The parser keeps the last bodies of
 * each credential with the byte span of each history item; a body that starts with the same
 * bytes as one of them takes the items wholly inside the shared bytes as they were parsed (the
 * same objects, which also lets the context manager find what it knows of them), and decodes
 * and parses only the rest. The result is always what `JSON.parse` of the whole body gives.
 */

/** The fields of a request body that hold the history: Messages and Chat `messages`, Responses `input`, Gemini `contents`. */
const HISTORY_FIELDS = new Set(['messages', 'input', 'contents']);

/** Bodies kept per credential: the agent's own session and its sub-agents'. */
const BODIES_PER_CREDENTIAL = 8;

/** A body parsed, with the layout of its history, as the next one may reuse it. */
interface ParsedBody {
  raw: Buffer;
  value: unknown;
  layout: BodyLayout;
  /** The history items, as parsed. */
  items: readonly unknown[];
}

/** A request body parsed. */
export interface ParsedRequestBody {
  /** Its JSON value, as `JSON.parse` gives it. */
  value: unknown;
  /** Where its history is in its bytes, when it is an object with exactly one history array. */
  layout: BodyLayout | undefined;
}

/** Parses request bodies, reusing what earlier bodies of the same credential repeat. */
export interface BodyParser {
  /**
   * Parses `raw` (UTF-8); `credential` groups the bodies that may repeat each other (a hash of
   * the request's credential).
   *
   * @throws {SyntaxError} exactly as `JSON.parse` of the whole body does.
   */
  parse(raw: Buffer, credential: string): ParsedRequestBody;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipWhitespace(raw: Buffer, position: number): number {
  while (isWhitespace(raw[position])) position += 1;
  return position;
}

/** The end of the string whose opening quote is at `position`; -1 when it has none. */
function skipString(raw: Buffer, position: number): number {
  let from = position + 1;
  for (;;) {
    const quote = raw.indexOf(QUOTE, from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (raw[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * The end of the JSON value at `position` (no leading whitespace); -1 when the bytes end first.
 * Not a validator: `JSON.parse` checks the text afterwards, this only finds where values end.
 */
function skipValue(raw: Buffer, position: number): number {
  const first = raw[position];
  if (first === QUOTE) return skipString(raw, position);
  if (first !== 0x7b && first !== 0x5b) {
    let end = position;
    while (end < raw.length) {
      const byte = raw[end];
      if (byte === 0x2c || byte === 0x7d || byte === 0x5d || isWhitespace(byte)) break;
      end += 1;
    }
    return end;
  }
  let depth = 0;
  for (let at = position; at < raw.length; at += 1) {
    const byte = raw[at];
    if (byte === QUOTE) {
      at = skipString(raw, at) - 1;
      if (at < 0) return -1;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  return -1;
}

/** Where a body's history is: its array's bytes, and the byte span of each item. */
export interface BodyLayout {
  /** Offset of the array's `[`. */
  arrayStart: number;
  /** Offset just after its `]`. */
  arrayEnd: number;
  /** Start and end (exclusive) offsets of each item, in pairs. */
  spans: number[];
}

/** Whether the bytes from `start` to `end` hold a backslash. */
function holdsBackslash(raw: Buffer, start: number, end: number): boolean {
  for (let at = start; at < end; at += 1) if (raw[at] === BACKSLASH) return true;
  return false;
}

/**
 * Scans the top-level object of `raw` for its one history array, recording the items' spans.
 * With `known` (a layout of a body with the same bytes up to the end of its last span), the
 * scan resumes after the last known item. `undefined` when the body is not an object with
 * exactly one history field holding an array (then it is parsed whole). Exact for any text
 * `JSON.parse` accepts, which is all it is used on: a span it got wrong would make a later
 * body reuse an item its bytes do not hold.
 */
function scanLayout(raw: Buffer, known?: BodyLayout): BodyLayout | undefined {
  let position: number;
  let layout: BodyLayout | undefined;
  if (known === undefined) {
    position = skipWhitespace(raw, 0);
    if (raw[position] !== 0x7b) return undefined;
    position += 1;
  } else {
    layout = { arrayStart: known.arrayStart, arrayEnd: -1, spans: known.spans.slice() };
    position = scanItems(raw, layout, known.spans[known.spans.length - 1] as number);
    if (!(position > 0)) return undefined;
    position = skipWhitespace(raw, position);
    if (raw[position] === 0x2c) position += 1;
  }
  for (;;) {
    position = skipWhitespace(raw, position);
    if (raw[position] === 0x7d) return layout;
    if (raw[position] !== QUOTE) return undefined;
    const keyEnd = skipString(raw, position);
    if (keyEnd === -1) return undefined;
    // an escaped key may spell a history field: leave such a body to JSON.parse
    if (holdsBackslash(raw, position + 1, keyEnd - 1)) return undefined;
    const key = raw.toString('utf8', position + 1, keyEnd - 1);
    position = skipWhitespace(raw, keyEnd);
    if (raw[position] !== 0x3a) return undefined;
    position = skipWhitespace(raw, position + 1);
    if (HISTORY_FIELDS.has(key)) {
      // a second history field, or one that is not an array: JSON.parse alone decides
      if (layout !== undefined || raw[position] !== 0x5b) return undefined;
      layout = { arrayStart: position, arrayEnd: -1, spans: [] };
      position = scanItems(raw, layout, position + 1);
    } else {
      position = skipValue(raw, position);
    }
    if (position === -1) return undefined;
    position = skipWhitespace(raw, position);
    if (raw[position] === 0x2c) position += 1;
    else if (raw[position] !== 0x7d) return undefined;
  }
}

/**
 * Records the spans of the array's items from `position` (just after `[`, or after an item) to
 * its `]`, and where the array ends; the position after it, or -1.
 */
function scanItems(raw: Buffer, layout: BodyLayout, position: number): number {
  for (;;) {
    position = skipWhitespace(raw, position);
    const byte = raw[position];
    if (byte === 0x5d) {
      layout.arrayEnd = position + 1;
      return position + 1;
    }
    if (byte === 0x2c) position = skipWhitespace(raw, position + 1);
    else if (layout.spans.length > 0) return -1;
    const end = skipValue(raw, position);
    if (end === -1) return -1;
    layout.spans.push(position, end);
    position = end;
  }
}

/** The length of the bytes `left` and `right` start with alike. */
function countSharedBytes(left: Buffer, right: Buffer): number {
  const length = Math.min(left.length, right.length);
  let low = 0;
  // whole blocks first (native comparisons), then the block that differs byte by byte
  let block = 64 * 1024;
  while (low + block <= length && left.compare(right, low, low + block, low, low + block) === 0) low += block;
  // the difference is in the next block (or the bytes end there): halve it down to a few bytes
  for (let size = Math.min(block, length - low); size > 16; size = block) {
    block = size >> 1;
    if (left.compare(right, low, low + block, low, low + block) === 0) low += block;
  }
  while (low < length && left[low] === right[low]) low += 1;
  return low;
}

/** The number of items of `previous` wholly inside its first `shared` bytes. */
function countItemsWithin(previous: ParsedBody, shared: number): number {
  const { spans } = previous.layout;
  let count = 0;
  while (count * 2 + 1 < spans.length && (spans[count * 2 + 1] as number) <= shared) count += 1;
  return count;
}

/** The history items of a parsed body, when it is an object with a history array. */
function historyItems(value: unknown): unknown[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const field of HISTORY_FIELDS) {
    const items = (value as Record<string, unknown>)[field];
    if (Array.isArray(items)) return items;
  }
  return undefined;
}

/**
 * Parses `raw` reusing the first `reused` items of `previous` (byte for byte the same): the text
 * parsed has a `0` in place of each. `undefined` when the result is not what it should be.
 */
function parseSpliced(raw: Buffer, previous: ParsedBody, reused: number): ParsedBody | undefined {
  const { spans } = previous.layout;
  const start = spans[0] as number;
  const end = spans[reused * 2 - 1] as number;
  const layout = scanLayout(raw, { ...previous.layout, spans: spans.slice(0, reused * 2) });
  if (layout === undefined) return undefined;
  const value = JSON.parse(
    `${raw.toString('utf8', 0, start)}${'0,'.repeat(reused - 1)}0${raw.toString('utf8', end)}`,
  ) as unknown;
  const items = historyItems(value);
  if (items === undefined || items.length * 2 !== layout.spans.length) return undefined;
  for (let index = 0; index < reused; index += 1) {
    if (items[index] !== 0) return undefined;
    items[index] = previous.items[index];
  }
  return { raw, value, layout, items };
}

/** Parses `raw` whole; its layout when it has one history array. */
function parseWhole(raw: Buffer): ParsedBody | { value: unknown; layout?: undefined } {
  const value = JSON.parse(raw.toString('utf8')) as unknown;
  const items = historyItems(value);
  const layout = items === undefined ? undefined : scanLayout(raw);
  return layout !== undefined && items !== undefined && items.length * 2 === layout.spans.length
    ? { raw, value, layout, items }
    : { value };
}

/**
 * Creates a {@link BodyParser} remembering at most `maxBodies` bodies of at most `maxBytes` in
 * all (the least recently used forgotten; the latest is kept whatever its size), at most 8 of
 * one credential.
 */
export function createBodyParser(maxBodies: number, maxBytes = Number.POSITIVE_INFINITY): BodyParser {
  const byCredential = new Map<string, ParsedBody[]>();
  // every body kept, least recently used first, with its credential
  const kept = new Map<ParsedBody, string>();
  let keptBytes = 0;

  function forget(body: ParsedBody): void {
    const credential = kept.get(body);
    if (credential === undefined) return;
    kept.delete(body);
    keptBytes -= body.raw.length;
    const others = (byCredential.get(credential) ?? []).filter((entry) => entry !== body);
    if (others.length === 0) byCredential.delete(credential);
    else byCredential.set(credential, others);
  }

  /** Keeps `body` in place of `replaced` (the body it continues), most recent first. */
  function remember(credential: string, replaced: ParsedBody | undefined, body: ParsedBody): void {
    if (replaced !== undefined) forget(replaced);
    const bodies = [body, ...(byCredential.get(credential) ?? [])];
    byCredential.set(credential, bodies);
    kept.set(body, credential);
    keptBytes += body.raw.length;
    for (const dropped of bodies.slice(BODIES_PER_CREDENTIAL)) forget(dropped);
    while (kept.size > 1 && (kept.size > maxBodies || keptBytes > maxBytes))
      forget(kept.keys().next().value as ParsedBody);
  }

  return {
    parse(raw, credential) {
      let best: ParsedBody | undefined;
      let bestShared = 0;
      for (const entry of byCredential.get(credential) ?? []) {
        const shared = countSharedBytes(entry.raw, raw);
        if (shared > bestShared) {
          best = entry;
          bestShared = shared;
        }
      }
      const reused = best === undefined ? 0 : countItemsWithin(best, bestShared);
      let parsed: ParsedBody | { value: unknown; layout?: undefined } | undefined;
      if (best !== undefined && reused > 0) {
        try {
          parsed = parseSpliced(raw, best, reused);
        } catch {
          // the error a client gets is JSON.parse's own, of the whole body: parsed whole below
          parsed = undefined;
        }
      }
      parsed ??= parseWhole(raw);
      // a body that continues another takes its place; one that only starts alike (another session) joins it
      if (parsed.layout !== undefined) remember(credential, reused > 0 ? best : undefined, parsed);
      return { value: parsed.value, layout: parsed.layout };
    },
  };
}
