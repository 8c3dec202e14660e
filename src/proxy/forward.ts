/**
 * Sends a request on to the upstream and its response back to the client as it arrives: every
 * header as it came (the connection's own headers aside, `host` set to the upstream's, the
 * length fixed for a new body), the response's status, headers and bytes unchanged, nothing
 * buffered. A client that goes away ends the upstream request.
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AUTH_HEADER } from './auth.js';
import { SESSION_HEADER } from './session-id.js';

/** Headers that belong to one connection, not to the message: HTTP/1.1's hop-by-hop headers. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Request headers the proxy sets itself (`host`) or keeps to itself (the session header, its auth token). */
const REPLACED_REQUEST_HEADERS = new Set([...CONNECTION_HEADERS, 'host', SESSION_HEADER, AUTH_HEADER]);

/**
 * The request's headers for the upstream, from its raw headers (repeated ones kept, in order);
 * `decoded` when the body goes on decoded from the client's `content-encoding`.
 */
export function buildUpstreamHeaders(
  rawHeaders: readonly string[],
  target: URL,
  bodyLength: number | undefined,
  decoded = false,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    // a new body has a new length; a body streamed through keeps the one the client sent
    if (REPLACED_REQUEST_HEADERS.has(name) || (name === 'content-length' && bodyLength !== undefined)) continue;
    if (name === 'content-encoding' && decoded) continue;
    const existing = headers[name];
    headers[name] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [String(existing)]), value];
  }
  headers.host = target.host;
  if (bodyLength !== undefined) headers['content-length'] = String(bodyLength);
  return headers;
}

/** The response's raw headers for the client, without the upstream connection's own. */
export function buildClientHeaders(rawHeaders: readonly string[]): string[] {
  const headers: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (CONNECTION_HEADERS.has(name.toLowerCase())) continue;
    headers.push(name, rawHeaders[index + 1] as string);
  }
  return headers;
}

/**
 * A request's path and query with its dot segments resolved (`.`, `..`, and their percent-encoded
 * spellings `%2e`, `%2e%2e`; `\` separates segments as `/` does, as URL parsers read it), the
 * query left as it came and a fragment dropped; `undefined` when the path climbs above its root
 * (`/../admin`), which would climb out of the upstream's base path, or does not start with `/`.
 */
export function normalizeRequestPath(url: string): string | undefined {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  const query = end === -1 || url[end] === '#' ? '' : url.slice(end).replace(/#.*$/s, '');
  if (!path.startsWith('/') && !path.startsWith('\\')) return undefined;
  const segments = path.split(/[/\\]/).slice(1);
  const kept: string[] = [];
  // a path ending in a dot segment names a folder, as URL parsers read it: it keeps its last slash
  let folder = false;
  for (const segment of segments) {
    const dots = segment.replace(/%2e/gi, '.');
    folder = dots === '.' || dots === '..';
    if (dots === '.') continue;
    if (dots === '..') {
      if (kept.length === 0) return undefined;
      kept.pop();
    } else {
      kept.push(segment);
    }
  }
  return `/${kept.join('/')}${folder && kept.length > 0 ? '/' : ''}${query}`;
}

/** The upstream URL of a request: the upstream's own path, then the request's path and query. */
export function upstreamUrl(upstream: URL, requestUrl: string): URL {
  const base = upstream.pathname.endsWith('/') ? upstream.pathname.slice(0, -1) : upstream.pathname;
  return new URL(
    `${upstream.protocol}//${upstream.host}${base}${requestUrl.startsWith('/') ? requestUrl : `/${requestUrl}`}`,
  );
}

/** Options of {@link forwardRequest}. */
export interface ForwardRequestOptions {
  /** The upstream's base URL. */
  upstream: URL;
  /** The request's path and query as sent on ({@link normalizeRequestPath}). @default the request's own */
  url?: string | undefined;
  /** The body to send (or its parts, sent one after the other); `undefined` streams the client's own body through. */
  body?: Buffer | readonly Buffer[] | undefined;
  /** `body` was decoded from the client's `content-encoding`: it goes on without that header. */
  decoded?: boolean | undefined;
  /** Sees the response's status and headers first, then each chunk the client gets, then its end. */
  observe?: ((response: IncomingMessage) => ResponseObserver | undefined) | undefined;
  /** Answers the client when the upstream cannot be reached (no response at all). */
  onUnreachable(error: Error): void;
}

/** Sees a response's bytes as the client gets them. */
export interface ResponseObserver {
  chunk(chunk: Buffer): void;
  /** Every chunk was seen; the response ends for the client once what this returns settles. */
  end(): void | Promise<void>;
}

/**
 * Forwards `request` to the upstream and streams the answer to `response`. Resolves when the
 * exchange is over, whichever way it ended; never rejects.
 */
export function forwardRequest(
  request: IncomingMessage,
  response: ServerResponse,
  options: ForwardRequestOptions,
): Promise<void> {
  const target = upstreamUrl(options.upstream, options.url ?? request.url ?? '/');
  const { body } = options;
  const bodyLength =
    body === undefined || Buffer.isBuffer(body) ? body?.length : body.reduce((sum, part) => sum + part.length, 0);
  const headers = buildUpstreamHeaders(request.rawHeaders, target, bodyLength, options.decoded === true);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<void>((resolve) => {
    const upstream = send(target, { method: request.method ?? 'GET', headers });
    let answered = false;
    // the client went away before the answer was complete: stop the upstream's work too
    const onClientClose = (): void => {
      if (!response.writableFinished) upstream.destroy();
      resolve();
    };
    response.on('close', onClientClose);
    upstream.on('error', (error) => {
      if (!answered && !response.headersSent) options.onUnreachable(error);
      else response.destroy(error);
      resolve();
    });
    upstream.on('response', (upstreamResponse) => {
      answered = true;
      const observer = options.observe?.(upstreamResponse);
      response.writeHead(
        upstreamResponse.statusCode ?? 502,
        upstreamResponse.statusMessage,
        buildClientHeaders(upstreamResponse.rawHeaders),
      );
      // SSE clients wait for each event: send the headers now rather than with the first chunk
      response.flushHeaders();
      upstreamResponse.on('error', (error) => response.destroy(error));
      if (observer === undefined) {
        upstreamResponse.pipe(response);
        return;
      }
      // The end waits for the observer: what it records is there before the client has the whole
      // answer, so before its next request. A body with a length is complete at its last byte: its
      // last chunk waits too. A stream's chunks go on as they come; its end (the last chunk of the
      // encoding) waits.
      const holdLast = upstreamResponse.headers['content-length'] !== undefined;
      let held: Buffer | undefined;
      upstreamResponse.on('data', (chunk: Buffer) => {
        observer.chunk(chunk);
        const out = holdLast ? held : chunk;
        held = holdLast ? chunk : undefined;
        if (out !== undefined && !response.write(out)) {
          upstreamResponse.pause();
          response.once('drain', () => upstreamResponse.resume());
        }
      });
      upstreamResponse.on('end', () => {
        void Promise.resolve()
          .then(() => observer.end())
          .catch(() => undefined)
          .finally(() => response.end(held));
      });
    });
    if (body !== undefined) {
      // parts go out together (one writev), not one packet each
      upstream.cork();
      for (const part of Buffer.isBuffer(body) ? [body] : body) upstream.write(part);
      upstream.end();
    } else {
      request.pipe(upstream);
    }
  });
}
