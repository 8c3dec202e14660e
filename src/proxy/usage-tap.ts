/**
 * Reads the usage off an upstream response on the side, while its bytes go to the client as
 * they arrive: a JSON body is parsed when it ends, a stream of server-sent events is read event
 * by event (only events that mention the route's usage field, `"usage"` or Gemini's
 * `"usageMetadata"`, are parsed). A compressed body is inflated on a
 * side stream; an encoding Node cannot inflate or text that does not parse just means no usage
 * is read. Nothing read here is kept but the figures, and what is held while reading is
 * bounded: a body or an event of any length (one line of hundreds of megabytes) is read through
 * a bounded tail, never gathered whole.
 */
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ProxyRoute, UsageFigures } from './routes.js';

/** The largest JSON response body parsed whole for its usage; a larger one is read through its tail. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

/**
 * The longest server-sent event (its `data` lines together) parsed whole for its usage. A longer
 * one (a `response.completed` holding a huge output) keeps only its last {@link TAIL_CHARS}
 * characters, where the usage follows the output.
 */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** The end of an over-long event kept to find its `"usage"` object in. */
const TAIL_CHARS = 64 * 1024;

/** Receives the response's bytes as the client does. */
export interface UsageTap {
  /** One chunk of the body, as it came from the upstream. */
  write(chunk: Buffer): void;
  /** The body ended; resolves with what it reported, or `undefined`. */
  end(): Promise<UsageFigures | undefined>;
}

function createDecoder(encoding: string): Transform | undefined {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Collects figures: later ones override earlier ones field by field. */
function createFigures(): {
  merge(figures: Partial<UsageFigures> | undefined): void;
  result(): UsageFigures | undefined;
} {
  let merged: Partial<UsageFigures> = {};
  return {
    merge(figures) {
      if (figures !== undefined) merged = { ...merged, ...figures };
    },
    result: () => (merged.inputTokens === undefined ? undefined : (merged as UsageFigures)),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A reader of decoded text: a whole JSON body, or server-sent events. */
function createTextReader(
  route: ProxyRoute,
  streamed: boolean,
): { push(text: string): void; finish(): UsageFigures | undefined } {
  const figures = createFigures();
  const usageKey = `"${route.usageField ?? 'usage'}"`;
  if (!streamed) {
    // past MAX_JSON_BYTES only the body's last TAIL_CHARS are kept: the usage comes after the content
    let body = '';
    let overLimit = false;
    return {
      push(text) {
        body += text;
        if (body.length > MAX_JSON_BYTES) {
          overLimit = true;
          body = body.slice(-TAIL_CHARS);
        }
      },
      finish() {
        figures.merge(overLimit ? readTailUsage(route, body) : route.readUsage(parseJson(body)));
        return figures.result();
      },
    };
  }
  // the line being read (up to its newline) and the event being gathered, each bounded: past
  // MAX_EVENT_CHARS only their last TAIL_CHARS are kept
  let pending = '';
  let pendingOverLimit = false;
  let data = '';
  let dataOverLimit = false;
  const dispatch = (): void => {
    if (dataOverLimit) figures.merge(readTailUsage(route, data));
    else if (data.includes(usageKey)) figures.merge(route.readUsage(parseJson(data)));
    data = '';
    dataOverLimit = false;
  };
  const readLine = (line: string, overLimit: boolean): void => {
    if (!overLimit && (line === '' || line === '\r')) {
      dispatch();
    } else if (overLimit || line.startsWith('data:')) {
      // an over-long line kept only its tail, its field name gone with its head: it can only be data
      const value = overLimit ? line : line.slice(line.startsWith('data: ') ? 6 : 5);
      data = data === '' ? value.replace(/\r$/, '') : `${data}\n${value.replace(/\r$/, '')}`;
      dataOverLimit ||= overLimit;
      if (data.length > MAX_EVENT_CHARS) {
        dataOverLimit = true;
        data = data.slice(-TAIL_CHARS);
      }
    }
  };
  const appendPending = (text: string): void => {
    pending += text;
    if (pending.length > MAX_EVENT_CHARS) {
      pendingOverLimit = true;
      pending = pending.slice(-TAIL_CHARS);
    }
  };
  return {
    push(text) {
      // a long event (a whole response in `response.completed`) comes in many chunks: scan only the new text
      const lastNewline = text.lastIndexOf('\n');
      if (lastNewline === -1) {
        appendPending(text);
        return;
      }
      const lines = text.slice(0, lastNewline).split('\n');
      appendPending(lines[0] as string);
      readLine(pending, pendingOverLimit);
      for (let index = 1; index < lines.length; index += 1) readLine(lines[index] as string, false);
      pending = '';
      pendingOverLimit = false;
      appendPending(text.slice(lastNewline + 1));
    },
    finish() {
      if (pending !== '') readLine(pending, pendingOverLimit);
      dispatch();
      return figures.result();
    },
  };
}

/**
 * The usage in the tail of an event too long to parse: the last `"usage":{...}` object in it,
 * read as each route reads its usage (at the top of the event, or in its `response`).
 */
function readTailUsage(route: ProxyRoute, tail: string): Partial<UsageFigures> | undefined {
  const field = route.usageField ?? 'usage';
  const key = tail.lastIndexOf(`"${field}":`);
  if (key === -1) return undefined;
  const start = tail.indexOf('{', key);
  const end = start === -1 ? -1 : findObjectEnd(tail, start);
  if (end === -1) return undefined;
  const usage = parseJson(tail.slice(start, end));
  return route.readUsage({ [field]: usage, response: { [field]: usage } });
}

/** The end (exclusive) of the JSON object opening at `start`, or -1 when the text ends first. */
function findObjectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let at = start; at < text.length; at += 1) {
    const character = text[at];
    if (inString) {
      if (character === '\\') at += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{') depth += 1;
    else if (character === '}') {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  return -1;
}

/**
 * A tap for one response of `route`, given its `content-type` and `content-encoding` headers.
 * Whatever goes wrong here (a bad gzip stream, text that is not JSON) only loses the figures.
 */
export function createUsageTap(
  route: ProxyRoute,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): UsageTap {
  const streamed = (contentType ?? '').toLowerCase().includes('text/event-stream');
  const reader = createTextReader(route, streamed);
  const textDecoder = new TextDecoder('utf-8');
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') {
    return {
      write: (chunk) => reader.push(textDecoder.decode(chunk, { stream: true })),
      end: () => {
        reader.push(textDecoder.decode());
        return Promise.resolve(reader.finish());
      },
    };
  }
  const decoder = createDecoder(encoding);
  if (decoder === undefined) return { write: () => undefined, end: () => Promise.resolve(undefined) };
  let failed = false;
  const done = new Promise<UsageFigures | undefined>((resolve) => {
    decoder.on('data', (chunk: Buffer) => reader.push(textDecoder.decode(chunk, { stream: true })));
    decoder.on('end', () => {
      reader.push(textDecoder.decode());
      resolve(reader.finish());
    });
    decoder.on('error', () => {
      failed = true;
      resolve(undefined);
    });
  });
  return {
    write(chunk) {
      if (!failed) decoder.write(chunk);
    },
    end() {
      if (!failed) decoder.end();
      return done;
    },
  };
}
