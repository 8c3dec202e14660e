/**
 * What the proxy keeps in memory once sessions of large requests are idle:
 * `npx tsx bench/proxy-memory.ts [sessions] [MiB] [options JSON]` (default 16 sessions of one
 * 31 MiB request each, a `cat` of a long log) through `createProxyHandler` in a real HTTP server
 * in front of a local upstream. Prints the resident set, the heap and the buffers in use after
 * garbage collection, before the first request and after the last. The `maxKeptBytes` figure
 * of docs/proxy.md comes from it; `'{"maxKeptBytes":8388608}'` tries another limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createProxyHandler, type ProxyHandlerOptions } from '../src/proxy.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const sessions = Number(process.argv[2] ?? 16);
const requestBytes = Number(process.argv[3] ?? 31) * 1024 * 1024;
const options = (process.argv[4] === undefined ? {} : JSON.parse(process.argv[4])) as ProxyHandlerOptions;

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

function report(label: string): void {
  collectGarbage();
  collectGarbage();
  const usage = process.memoryUsage();
  console.log(
    `${label}: resident ${megabytes(usage.rss)}, heap ${megabytes(usage.heapUsed)}, buffers ${megabytes(usage.arrayBuffers)}`,
  );
}

const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [],
        usage: { input_tokens: 10, output_tokens: 1 },
      }),
    );
  });
});
const upstreamPort = await listen(upstream);
const dir = mkdtempSync(join(tmpdir(), 'proxy-memory-'));
const handler = createProxyHandler({
  upstream: `http://127.0.0.1:${upstreamPort}`,
  dir,
  maxBodyBytes: 2 * requestBytes,
  logger: { warn: () => undefined },
  ...options,
});
const proxy = createServer((request, response) => void handler(request, response));
const port = await listen(proxy);

report('before');
for (let session = 0; session < sessions; session += 1) {
  const body = JSON.stringify({
    model: 'claude-test',
    max_tokens: 8,
    messages: [
      { role: 'user', content: `Session ${session}: read the log.` },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat log' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: `${session} `.padEnd(requestBytes, 'log line\n') },
        ],
      },
    ],
  });
  await new Promise<void>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/messages',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'sk-ant-bench',
          'x-agent-context-session': `s${session}`,
        },
      },
      (response) => {
        response.resume();
        response.on('end', resolve);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
report(`after ${sessions} sessions of ${megabytes(requestBytes)}`);
proxy.close();
upstream.close();
rmSync(dir, { recursive: true, force: true });
