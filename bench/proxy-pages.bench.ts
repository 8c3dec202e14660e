/**
 * The proxy's own page and JSON routes under load: the page `GET /_agent-context/` with what it
 * fetches first (`GET /_agent-context/api/sessions`) with 200 sessions in memory (each with 5
 * requests recorded, one of them offloading a result), the list alone, and one session's detail
 * after 200 requests (its offloaded results' sizes read from the store), over real HTTP against
 * `createProxyHandler` in this process (the upstream answers at once, on 127.0.0.1). Goal:
 * <= 50 ms each at p50.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxyHandler } from '../src/proxy.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Proxy pages';

const SESSIONS = 200;
const REQUESTS_PER_SESSION = 5;
const GOAL_MS = 50;
const RESULT = Array.from({ length: 300 }, (_, index) => `line ${index}: compiled module-${index}`).join('\n');

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function send(origin: string, path: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<string>((resolve, reject) => {
    const outgoing = httpRequest(`${origin}${path}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The history of request `turn`: a task, a tool call and its result, then small exchanges. */
function history(session: number, turn: number): unknown[] {
  const messages: unknown[] = [
    { role: 'user', content: `Session ${session}: build the project.` },
    { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${session}`, name: 'Bash', input: { c: 'make' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${session}`, content: RESULT }] },
  ];
  for (let index = 1; index < turn; index += 1)
    messages.push({ role: 'assistant', content: `Step ${index} done.` }, { role: 'user', content: 'Go on.' });
  return messages;
}

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'proxy-pages-bench-'));
  const upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const body = JSON.stringify({
        id: 'msg',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: 100, output_tokens: 1 },
      });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
  });
  const upstreamOrigin = await listen(upstream);
  const handler = createProxyHandler({
    upstream: upstreamOrigin,
    dir,
    maxSessions: SESSIONS,
    offload: { timing: 'on-arrival' },
    logger: { warn: () => undefined },
  });
  const proxy = createServer((request, response) => void handler(request, response));
  const origin = await listen(proxy);
  try {
    const headers = {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-bench',
      'anthropic-version': '2023-06-01',
    };
    for (let turn = 1; turn <= REQUESTS_PER_SESSION; turn += 1) {
      await Promise.all(
        Array.from({ length: SESSIONS }, (_, session) =>
          send(
            origin,
            '/v1/messages',
            'POST',
            { ...headers, 'x-agent-context-session': `bench-${session}` },
            JSON.stringify({ model: 'claude-bench', max_tokens: 8, messages: history(session, turn) }),
          ),
        ),
      );
    }
    // one long session: its detail lists 200 requests
    for (let turn = 1; turn <= 200; turn += 1)
      await send(
        origin,
        '/v1/messages',
        'POST',
        { ...headers, 'x-agent-context-session': 'bench-0' },
        JSON.stringify({ model: 'claude-bench', max_tokens: 8, messages: history(0, REQUESTS_PER_SESSION + turn) }),
      );
    const listed = JSON.parse(await send(origin, '/_agent-context/api/sessions', 'GET', {})) as { sessions: unknown[] };
    if (listed.sessions.length !== SESSIONS)
      throw new Error(`expected ${SESSIONS} sessions, the proxy lists ${listed.sessions.length}`);
    const html = await send(origin, '/_agent-context/', 'GET', {});
    if (!html.startsWith('<!doctype html>')) throw new Error(`expected the page, got ${html.slice(0, 80)}`);
    const medians = await measureMedians(
      {
        // the page, then the list its script fetches before it shows anything
        page: async () => {
          await send(origin, '/_agent-context/', 'GET', {});
          await send(origin, '/_agent-context/api/sessions', 'GET', {});
        },
        list: () => send(origin, '/_agent-context/api/sessions', 'GET', {}),
        detail: () => send(origin, '/_agent-context/api/sessions/bench-0', 'GET', {}),
      },
      options,
    );
    const page = medians.page ?? Number.NaN;
    const list = medians.list ?? Number.NaN;
    const detail = medians.detail ?? Number.NaN;
    return [
      {
        name: `GET /_agent-context/ then its sessions JSON, ${SESSIONS} sessions`,
        medianMs: page,
        goal: `<= ${GOAL_MS} ms`,
        met: page <= GOAL_MS,
      },
      {
        name: `GET /_agent-context/api/sessions, ${SESSIONS} sessions`,
        medianMs: list,
        goal: `<= ${GOAL_MS} ms`,
        met: list <= GOAL_MS,
      },
      {
        name: 'GET /_agent-context/api/sessions/<id>, 205 requests',
        medianMs: detail,
        goal: `<= ${GOAL_MS} ms`,
        met: detail <= GOAL_MS,
      },
    ];
  } finally {
    proxy.closeAllConnections();
    upstream.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    await new Promise((resolve) => upstream.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
