/**
 * The proxy's own routes, under `/_agent-context/`, never forwarded: its health, its sessions'
 * figures as JSON, and its metrics in Prometheus text format.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../core/errors.js';
import type { SessionStatistics } from '../core/session-statistics.js';
import type { ProxyMetrics } from './metrics.js';

/** The path under which the proxy answers itself: nothing under it reaches an upstream. */
export const OWN_ROUTES_PREFIX = '/_agent-context';

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
  });
  response.end(body);
}

/** What the own routes read. */
export interface OwnRouteSources {
  sessions: SessionStatistics;
  metrics: ProxyMetrics;
}

/** Answers a request under {@link OWN_ROUTES_PREFIX}. */
export async function handleOwnRoute(
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  sources: OwnRouteSources,
): Promise<void> {
  const path = (url.split('?', 1)[0] as string).slice(OWN_ROUTES_PREFIX.length).replace(/\/+$/, '');
  // the body of a request here is never read: drain it so the connection can serve the next one
  request.resume();
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return sendJson(response, 405, {
      error: `agent-context proxy: ${OWN_ROUTES_PREFIX}${path} answers GET only, got ${request.method ?? ''}`,
    });
  }
  if (path === '/health') return sendJson(response, 200, { ok: true, version: readVersion() });
  if (path === '/api/sessions') return sendJson(response, 200, { sessions: sources.sessions.list() });
  if (path.startsWith('/api/sessions/')) {
    let id: string;
    try {
      id = decodeURIComponent(path.slice('/api/sessions/'.length));
    } catch {
      id = '';
    }
    const session = sources.sessions.get(id);
    if (session === undefined)
      return sendJson(response, 404, { error: `agent-context proxy: no session ${JSON.stringify(id)} in memory` });
    return sendJson(response, 200, session);
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
    error: `agent-context proxy: ${OWN_ROUTES_PREFIX}${path} is not a route of the proxy: try ${OWN_ROUTES_PREFIX}/health, /api/sessions, /api/sessions/<id> or /metrics`,
  });
}
