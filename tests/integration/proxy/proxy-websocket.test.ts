/**
 * WebSocket upgrades through the proxy, with OpenAI's own Responses WebSocket client and a real
 * WebSocket server upstream: the upgrade is forwarded, both directions are piped unchanged and
 * unmanaged, and the proxy's checks (its token, a credential only to its own provider) apply.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { createProxyServer } from '../../../src/cli/proxy.js';
import { createProxyHandler, type ProxyHandlerOptions, type ProxyRequestEvent } from '../../../src/proxy.js';

const BUILD_LOG = Array.from(
  { length: 800 },
  (_, index) => `[build] step ${index}: compiled src/module-${index}.ts`,
).join('\n');

/** A WebSocket server on 127.0.0.1 that records what it receives and answers with `reply`. */
interface WebSocketUpstream {
  origin: string;
  connections: Array<{ url: string; headers: IncomingHttpHeaders }>;
  messages: Array<{ data: Buffer; isBinary: boolean }>;
  close(): Promise<void>;
}

async function startWebSocketUpstream(
  reply: (socket: WebSocket, data: Buffer, isBinary: boolean) => void,
  refuseWith?: { status: number; body: string },
): Promise<WebSocketUpstream> {
  // a request that arrives without its upgrade is told so at once
  const server = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain' });
    response.end('upgrade required');
  });
  const connections: WebSocketUpstream['connections'] = [];
  const messages: WebSocketUpstream['messages'] = [];
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    connections.push({ url: request.url ?? '', headers: request.headers });
    if (refuseWith !== undefined) {
      socket.end(
        `HTTP/1.1 ${refuseWith.status} Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(refuseWith.body)}\r\n\r\n${refuseWith.body}`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => {
      client.on('message', (data: RawData, isBinary: boolean) => {
        const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
        messages.push({ data: bytes, isBinary });
        reply(client, bytes, isBinary);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    connections,
    messages,
    async close() {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface WebSocketProxy {
  origin: string;
  events: ProxyRequestEvent[];
  warnings: string[];
  server: Server;
  close(): Promise<void>;
}

/** The proxy in the CLI's own server, which takes upgrades. */
async function startWebSocketProxy(options: ProxyHandlerOptions): Promise<WebSocketProxy> {
  const temp = await mkdtemp(join(tmpdir(), 'proxy-ws-'));
  const events: ProxyRequestEvent[] = [];
  const warnings: string[] = [];
  const handler = createProxyHandler({
    dir: join(temp, 'store'),
    logger: { warn: (message) => warnings.push(message) },
    onRequest: (event) => events.push(event),
    ...options,
  });
  const server = createProxyServer((request, response) => void handler(request, response), handler.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    events,
    warnings,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(temp, { recursive: true, force: true });
    },
  };
}

/** How a raw WebSocket client's opening ended: open, or refused with a status and body. */
function openOutcome(socket: WebSocket): Promise<{ open: true } | { open: false; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ open: true }));
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ open: false, status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    socket.once('error', reject);
  });
}

let upstream: WebSocketUpstream | undefined;
let proxy: WebSocketProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
  proxy = undefined;
  upstream = undefined;
});

describe('WebSocket upgrades through the proxy', () => {
  it("carries a Responses WebSocket session both ways unchanged with OpenAI's own client, unmanaged", async () => {
    const completed = {
      type: 'response.completed',
      sequence_number: 1,
      response: { id: 'resp_ws_1', status: 'completed' },
    };
    upstream = await startWebSocketUpstream((socket) => {
      socket.send(JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_ws_1' } }));
      socket.send(JSON.stringify(completed));
    });
    proxy = await startWebSocketProxy({ upstream: upstream.origin });
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1` });
    const socket = new ResponsesWS(client);
    const received: unknown[] = [];
    const done = new Promise<void>((resolve) =>
      socket.on('event', (event) => {
        received.push(event);
        if (event.type === 'response.completed') resolve();
      }),
    );
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Build it.' },
      { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAABo-ciphertext==' },
      { type: 'function_call_output', call_id: 'c1', output: BUILD_LOG },
    ];
    const event = { type: 'response.create' as const, model: 'gpt-test', input };
    expect(await openOutcome(socket.socket)).toEqual({ open: true });

    socket.send(event);
    await done;
    socket.close();

    expect(upstream.connections[0]?.url).toBe('/v1/responses');
    expect(upstream.connections[0]?.headers.authorization).toBe('Bearer sk-openai-one');
    expect(upstream.messages[0]?.data.toString('utf8')).toBe(JSON.stringify(event));
    expect(received.at(-1)).toEqual(completed);
    expect(proxy.events).toEqual([]);
    expect(proxy.warnings).toEqual([expect.stringContaining('WebSocket connections')]);
    const metrics = await (await fetch(`${proxy.origin}/_agent-context/metrics`)).text();
    expect(metrics).toContain('agent_context_requests_total{route="other",outcome="passed-through"} 1');
  });

  it('pipes binary frames byte for byte in both directions', async () => {
    upstream = await startWebSocketUpstream((socket, data) =>
      socket.send(Buffer.from(data).reverse(), { binary: true }),
    );
    proxy = await startWebSocketProxy({ upstream: upstream.origin });
    const socket = new WebSocket(`${proxy.origin.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: 'Bearer sk-openai-one' },
    });
    expect(await openOutcome(socket)).toEqual({ open: true });
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 31) % 256));

    const echoed = new Promise<Buffer>((resolve) => socket.once('message', (data: RawData) => resolve(data as Buffer)));
    socket.send(bytes);

    expect((await echoed).equals(Buffer.from(bytes).reverse())).toBe(true);
    expect(upstream.messages[0]?.data.equals(bytes)).toBe(true);
    socket.close();
  });

  it("passes the upstream's refusal of an upgrade back to the client", async () => {
    const refusal = JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
    upstream = await startWebSocketUpstream(() => undefined, { status: 401, body: refusal });
    proxy = await startWebSocketProxy({ upstream: upstream.origin });
    const socket = new WebSocket(`${proxy.origin.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: 'Bearer sk-wrong' },
    });

    expect(await openOutcome(socket)).toEqual({ open: false, status: 401, body: refusal });
  });

  it('refuses an upgrade without the proxy token, and forwards one with it without the token', async () => {
    upstream = await startWebSocketUpstream(() => undefined);
    proxy = await startWebSocketProxy({ upstream: upstream.origin, authToken: 'team-token-1234567890' });
    const url = `${proxy.origin.replace('http', 'ws')}/v1/responses`;

    const refused = await openOutcome(new WebSocket(url, { headers: { authorization: 'Bearer sk-openai-one' } }));
    const accepted = new WebSocket(url, {
      headers: { authorization: 'Bearer sk-openai-one', 'x-agent-context-token': 'team-token-1234567890' },
    });
    const opened = await openOutcome(accepted);
    accepted.close();

    expect(refused).toMatchObject({ open: false, status: 401 });
    expect(opened).toEqual({ open: true });
    expect(upstream.connections).toHaveLength(1);
    expect(upstream.connections[0]?.headers['x-agent-context-token']).toBeUndefined();
  });

  it('refuses, without an upstream, an upgrade whose credential is not the path provider’s', async () => {
    proxy = await startWebSocketProxy({});
    const socket = new WebSocket(`${proxy.origin.replace('http', 'ws')}/v1/responses`, {
      headers: { 'x-api-key': 'sk-ant-one', 'anthropic-version': '2023-06-01' },
    });

    const outcome = await openOutcome(socket);

    expect(outcome).toMatchObject({ open: false, status: 400 });
    expect(outcome.open === false && outcome.body).toContain('--upstream');
  });

  it('closes open WebSocket connections when the proxy stops', async () => {
    upstream = await startWebSocketUpstream(() => undefined);
    proxy = await startWebSocketProxy({ upstream: upstream.origin });
    const socket = new WebSocket(`${proxy.origin.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: 'Bearer sk-openai-one' },
    });
    expect(await openOutcome(socket)).toEqual({ open: true });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

    await proxy.close();
    proxy = undefined;

    await closed;
    expect(socket.readyState).toBe(WebSocket.CLOSED);
  });
});
