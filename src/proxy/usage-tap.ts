/**
 * Reads the usage off an upstream response on the side, while its bytes go to the client as
 * they arrive: a JSON body is parsed when it ends, a stream of server-sent events is read event
 * by event (only events that mention `"usage"` are parsed). A compressed body is inflated on a
 * side stream; an encoding Node cannot inflate, a body over the limit or text that does not
 * parse just means no usage is read. Nothing read here is kept but the figures.
 */
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ProxyRoute, UsageFigures } from './routes.js';

/** The largest JSON response body read for its usage; a larger one is passed on unread. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

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
  if (!streamed) {
    let body = '';
    let overLimit = false;
    return {
      push(text) {
        if (overLimit) return;
        body += text;
        if (body.length > MAX_JSON_BYTES) {
          overLimit = true;
          body = '';
        }
      },
      finish() {
        if (!overLimit) figures.merge(route.readUsage(parseJson(body)));
        return figures.result();
      },
    };
  }
  let pending = '';
  let data = '';
  const dispatch = (): void => {
    if (data.includes('"usage"')) figures.merge(route.readUsage(parseJson(data)));
    data = '';
  };
  const readLine = (line: string): void => {
    if (line === '' || line === '\r') {
      dispatch();
    } else if (line.startsWith('data:')) {
      const value = line.slice(line.startsWith('data: ') ? 6 : 5).replace(/\r$/, '');
      data = data === '' ? value : `${data}\n${value}`;
    }
  };
  return {
    push(text) {
      // a long event (a whole response in `response.completed`) comes in many chunks: scan only the new text
      if (!text.includes('\n')) {
        pending += text;
        return;
      }
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) readLine(line);
    },
    finish() {
      if (pending !== '') readLine(pending);
      dispatch();
      return figures.result();
    },
  };
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
