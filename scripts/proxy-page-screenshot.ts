/**
 * `npx tsx scripts/proxy-page-screenshot.ts`: the screenshots of the proxy's live page in
 * docs/proxy.md. Starts a proxy (with an auth token) in front of an upstream that answers every
 * request at once, plays three demo sessions through it (build logs offloaded, a long one
 * compacted), then has headless Chromium (/usr/bin/chromium, or CHROMIUM) take the sessions
 * table at 1280x800 and one session's view at 1280x1500. Writes docs/images/proxy-page.png and
 * docs/images/proxy-page-session.png.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxyHandler } from '../src/proxy.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TOKEN = 'demo-token-for-the-screenshot-0001';
const IMAGES = new URL('../docs/images/', import.meta.url).pathname;

function runChromium(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function post(origin: string, session: string, messages: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${origin}/v1/messages`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'sk-ant-demo',
          'anthropic-version': '2023-06-01',
          'x-agent-context-token': TOKEN,
          'x-agent-context-session': session,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve());
      },
    );
    outgoing.on('error', reject);
    outgoing.end(
      JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'You are a coding agent.', messages }),
    );
  });
}

/** A log of `lines` lines, as a build or a test run prints it. */
function log(tool: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, index) => `[${tool}] ${index % 17 === 0 ? 'WARN' : 'INFO'} step ${index}: compiled src/module-${index}.ts`,
  ).join('\n');
}

/** A session of `turns` turns: each runs a tool whose output is a long log, then talks about it. */
function session(task: string, tool: string, turns: number): unknown[][] {
  const messages: unknown[] = [{ role: 'user', content: task }];
  const requests: unknown[][] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const id = `toolu_${tool}_${turn}`;
    messages.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `${tool} --step ${turn}` } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: log(tool, 300 + turn * 40) }] },
    );
    requests.push([...messages]);
    messages.push(
      {
        role: 'assistant',
        content:
          `Step ${turn}: the ${tool} run passed its checks; the module keeps its state in a map and flushes it on exit, so the next change moves the flush behind the lock. `.repeat(
            8,
          ),
      },
      { role: 'user', content: `Good. Go on with step ${turn + 1}.` },
    );
  }
  return requests;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-page-screenshot-'));
  const upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const body = JSON.stringify({
        id: 'msg_demo',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'Done.' }],
        usage: { input_tokens: 100, output_tokens: 5 },
      });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    });
  });
  const handler = createProxyHandler({
    upstream: await listen(upstream),
    dir,
    authToken: TOKEN,
    contextTokenLimit: 10_000,
    logger: { warn: () => undefined },
  });
  const proxy = createServer((request, response) => void handler(request, response));
  const origin = await listen(proxy);
  try {
    for (const [name, task, tool, turns] of [
      ['claude-fix-flaky-test', 'The auth tests fail one run in ten: find out why.', 'vitest', 4],
      ['codex-refactor-store', 'Move the store behind an interface.', 'tsc', 3],
      ['claude-migrate-db', 'Migrate the schema to the new column names.', 'make', 14],
    ] as const) {
      for (const messages of session(task, tool, turns)) await post(origin, name, messages);
    }
    mkdirSync(IMAGES, { recursive: true });
    const page = `${origin}/_agent-context/?token=${TOKEN}`;
    for (const [file, url, height] of [
      ['proxy-page.png', page, 800],
      ['proxy-page-session.png', `${page}#/sessions/claude-migrate-db`, 1500],
    ] as const) {
      const profile = mkdtempSync(join(tmpdir(), 'proxy-page-chromium-'));
      // not spawnSync: the proxy answering the page runs in this process
      const run = await runChromium([
        '--headless',
        '--disable-gpu',
        '--no-sandbox',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        '--virtual-time-budget=5000',
        `--window-size=1280,${height}`,
        `--screenshot=${join(IMAGES, file)}`,
        url,
      ]);
      rmSync(profile, { recursive: true, force: true });
      if (run.status !== 0) throw new Error(`${CHROMIUM} failed (${run.status}): ${run.stderr}`);
      process.stdout.write(`wrote docs/images/${file}\n`);
    }
  } finally {
    proxy.closeAllConnections();
    upstream.closeAllConnections();
    proxy.close();
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
