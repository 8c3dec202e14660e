/**
 * The proxy's own routes, under `/_agent-context/`, never forwarded: its live page, its health,
 * its sessions' figures as JSON (with the content it offloaded or archived for each, by
 * reference), and its metrics in Prometheus text format.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extractReference, isOffloadedKey } from '../api/offloaded-content.js';
import { describeError } from '../core/errors.js';
import type { ContentStore } from '../core/ports.js';
import type { SessionDetail, SessionStatistics } from '../core/cost/session-statistics.js';
import { findStoreKeyProblem } from '../core/store/store-keys.js';
import type { ProxyMetrics } from './metrics.js';
import { OWN_PAGE_CSP, OWN_PAGE_HTML } from './own-page.js';

/** The path under which the proxy answers itself: nothing under it reaches an upstream. */
const OWN_ROUTES_PREFIX = '/_agent-context';

/**
 * The token a request for the live page carries in its query (`/_agent-context/?token=...`), or
 * `undefined`. A browser cannot send a header when it opens a page, so the page (which holds no
 * figures itself) alone takes its token there; the page then sends it as the header on its
 * fetches, and every other route takes the header only.
 */
export function readPageToken(rawUrl: string | undefined): string | undefined {
  if (rawUrl === undefined) return undefined;
  const query = rawUrl.indexOf('?');
  if (query === -1) return undefined;
  const path = rawUrl.slice(0, query);
  if (path !== OWN_ROUTES_PREFIX && path !== `${OWN_ROUTES_PREFIX}/`) return undefined;
  const tokens = new URLSearchParams(rawUrl.slice(query + 1)).getAll('token');
  return tokens.length === 1 ? tokens[0] : undefined;
}

/** Whether `url` (a normalized path with its query) is one of the proxy's own. */
export function isOwnRoute(url: string): boolean {
  const path = url.split('?', 1)[0] as string;
  return path === OWN_ROUTES_PREFIX || path.startsWith(`${OWN_ROUTES_PREFIX}/`);
}

let version: string | undefined;
/** This package's version: src/proxy/ and dist/proxy/ both sit two levels below package.json. */
function readVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}

/** What the own routes read. */
export interface OwnRouteSources {
  sessions: SessionStatistics;
  metrics: ProxyMetrics;
  /** The proxy's store: what it offloaded and archived, served back by reference. */
  store: ContentStore;
}

/** Content the proxy offloaded or archived for a session, as its detail lists it. */
interface SessionContent {
  kind: 'offloaded' | 'archive';
  time: string;
  /** The reference (a path in the proxy's directory), as the content route takes it. */
  reference: string;
  /** The tool call whose result (or input) it holds, for an offloaded one. */
  toolCallId: string | null;
  /** Its size in bytes, or `null` when it is no longer in the store. */
  bytes: number | null;
}

/** The references a session's detail names: its offloaded results and its archives, oldest first. */
function listContents(session: SessionDetail): Omit<SessionContent, 'bytes'>[] {
  const contents: Omit<SessionContent, 'bytes'>[] = [];
  const seen = new Set<string>();
  const add = (content: Omit<SessionContent, 'bytes'>): void => {
    if (seen.has(content.reference)) return;
    seen.add(content.reference);
    contents.push(content);
  };
  for (const step of session.offloaded) {
    // an input offload leaves one reference per field, not per call: no call to name then
    const perCall = step.references.length === step.toolCallIds.length;
    step.references.forEach((reference, index) =>
      add({
        kind: 'offloaded',
        time: step.time,
        reference: extractReference(reference),
        toolCallId: perCall ? (step.toolCallIds[index] ?? null) : null,
      }),
    );
  }
  for (const archive of session.archives)
    add({ kind: 'archive', time: archive.time, reference: extractReference(archive.reference), toolCallId: null });
  return contents.sort((first, second) => (first.time < second.time ? -1 : first.time > second.time ? 1 : 0));
}

/** The store key of `reference` when it names content the package offloads or archives, else `undefined`. */
function keyOfContent(store: ContentStore, reference: string): string | undefined {
  let key: string | undefined;
  try {
    key = store.keyFor(reference);
  } catch {
    return undefined;
  }
  return key !== undefined && findStoreKeyProblem(key) === undefined && isOffloadedKey(key) ? key : undefined;
}

async function sizeOf(store: ContentStore, reference: string): Promise<number | null> {
  const key = keyOfContent(store, reference);
  if (key === undefined) return null;
  try {
    return (await store.stat(key))?.size ?? null;
  } catch {
    return null;
  }
}

function sendPage(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(OWN_PAGE_HTML),
    'cache-control': 'no-store',
    'content-security-policy': OWN_PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // the page may have been opened with its token in the address: never pass it on
    'referrer-policy': 'no-referrer',
  });
  response.end(OWN_PAGE_HTML);
}

/**
 * One offloaded result or archive of a session, as plain text: only a reference the session's
 * own detail lists (what this proxy wrote for it), resolved by the store to a key inside its
 * directory. Anything else is refused before the store is read.
 */
async function sendContent(
  response: ServerResponse,
  sources: OwnRouteSources,
  id: string,
  query: URLSearchParams,
): Promise<void> {
  const references = query.getAll('ref');
  if (references.length !== 1 || references[0] === '')
    return sendJson(response, 400, {
      error: `agent-context proxy: ${OWN_ROUTES_PREFIX}/api/sessions/<id>/content needs one ref (a reference the session's detail lists), got ${references.length === 0 ? 'none' : JSON.stringify(references)}`,
    });
  const reference = references[0] as string;
  const session = sources.sessions.get(id);
  if (session === undefined)
    return sendJson(response, 404, { error: `agent-context proxy: no session ${JSON.stringify(id)} in memory` });
  const key = keyOfContent(sources.store, reference);
  if (key === undefined || !listContents(session).some((content) => content.reference === reference))
    return sendJson(response, 404, {
      error: `agent-context proxy: ${JSON.stringify(reference.slice(0, 200))} is not content this proxy offloaded or archived for session ${JSON.stringify(id)}`,
    });
  let text: string | undefined;
  try {
    text = await sources.store.get(key);
  } catch (error) {
    return sendJson(response, 500, {
      error: `agent-context proxy: the content cannot be read (${describeError(error)})`,
    });
  }
  if (text === undefined)
    return sendJson(response, 404, {
      error: `agent-context proxy: ${JSON.stringify(reference.slice(0, 200))} is no longer in the store`,
    });
  response.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // opened on its own, the text is inert: no script, no style, no frame
    'content-security-policy': "default-src 'none'; sandbox",
  });
  response.end(text);
}

function decodeSessionId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return '';
  }
}

/** Answers a request under {@link OWN_ROUTES_PREFIX}. */
export async function handleOwnRoute(
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  sources: OwnRouteSources,
): Promise<void> {
  const queryStart = url.indexOf('?');
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const path = (url.split('?', 1)[0] as string).slice(OWN_ROUTES_PREFIX.length).replace(/\/+$/, '');
  // the body of a request here is never read: drain it so the connection can serve the next one
  request.resume();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return sendJson(response, 405, {
      error: `agent-context proxy: ${OWN_ROUTES_PREFIX}${path} answers GET only, got ${request.method ?? ''}`,
    });
  }
  if (path === '') return sendPage(response);
  if (path === '/health') return sendJson(response, 200, { ok: true, version: readVersion() });
  if (path === '/api/sessions') return sendJson(response, 200, { sessions: sources.sessions.list() });
  const content = /^\/api\/sessions\/([^/]+)\/content$/.exec(path);
  if (content !== null) return sendContent(response, sources, decodeSessionId(content[1] as string), query);
  if (path.startsWith('/api/sessions/')) {
    const id = decodeSessionId(path.slice('/api/sessions/'.length));
    const session = sources.sessions.get(id);
    if (session === undefined)
      return sendJson(response, 404, { error: `agent-context proxy: no session ${JSON.stringify(id)} in memory` });
    const contents = await Promise.all(
      listContents(session).map(async (item) => ({ ...item, bytes: await sizeOf(sources.store, item.reference) })),
    );
    return sendJson(response, 200, { ...session, contents });
  }
  if (path === '/metrics') {
    try {
      const { contentType, text } = await sources.metrics.scrape();
      response.writeHead(200, {
        'content-type': contentType,
        'content-length': Buffer.byteLength(text),
        'cache-control': 'no-store',
      });
      response.end(text);
    } catch (error) {
      sendJson(response, 500, {
        error: `agent-context proxy: the metrics cannot be written (${describeError(error)})`,
      });
    }
    return;
  }
  return sendJson(response, 404, {
    error: `agent-context proxy: ${OWN_ROUTES_PREFIX}${path} is not a route of the proxy: try ${OWN_ROUTES_PREFIX}/ (the page), /health, /api/sessions, /api/sessions/<id>, /api/sessions/<id>/content?ref=<reference> or /metrics`,
  });
}
