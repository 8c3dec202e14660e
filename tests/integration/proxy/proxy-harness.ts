/**
 * The proxy under test: `createProxyHandler` in a real HTTP server on 127.0.0.1 with a temp
 * store directory, its request events and warnings collected.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxyHandler, type ProxyHandlerOptions, type ProxyRequestEvent } from '../../../src/proxy.js';

export interface RunningProxy {
  origin: string;
  /** The store directory (a temp dir, removed on close). */
  dir: string;
  events: ProxyRequestEvent[];
  warnings: string[];
  close(): Promise<void>;
}

/** Starts a proxy in front of `upstream`, with a temp `dir` unless the options name one. */
export async function startProxy(
  upstream: string | undefined,
  options: ProxyHandlerOptions = {},
): Promise<RunningProxy> {
  const temp = await mkdtemp(join(tmpdir(), 'proxy-test-'));
  const dir = options.dir ?? join(temp, 'store');
  const events: ProxyRequestEvent[] = [];
  const warnings: string[] = [];
  const handler = createProxyHandler({
    upstream,
    dir,
    logger: { warn: (message) => warnings.push(message) },
    onRequest: (event) => events.push(event),
    // these tests follow offloaded results by their references: they are offloaded as they arrive
    ...options,
    offload: { timing: 'on-arrival', ...options.offload },
  });
  const server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    dir,
    events,
    warnings,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(temp, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP exchange's result: status, headers and the body's exact bytes. */
export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends one request with node:http and collects the whole answer. */
export function sendRaw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${origin}${path}`,
      { method: options.method ?? 'POST', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
