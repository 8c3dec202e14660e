/**
 * The latency a read answered by the proxy adds: `npx tsx bench/proxy-read.ts [--quick]`.
 * `createProxyHandler({ readTool: 'proxy' })` in a real HTTP server in front of a local
 * scripted model; the same request (a history whose newest tool result, 150 lines, was
 * offloaded) is sent again and again, answered either at once or after the model reads the
 * result back through the proxy (one read round: the read from the store, the history sent again,
 * a second answer). The difference of the medians is what the read costs beside the model's
 * own time for a second answer. Once with the file store, once with Redis (a local
 * `redis-server`, when the machine has one). Then a pool: three handlers, each with its own folder, on
 * one Redis store, a session of 30 requests round-robin across them: the reads answered, all
 * with the exact content, and the median time of a request answered with a read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ContentStore } from '../src/core/ports.js';
import { createProxyHandler } from '../src/proxy.js';
import { createRedisStore, type RedisStore } from '../src/stores/redis-store.js';
import { sendRaw } from '../tests/integration/proxy/proxy-harness.js';
import { anthropicBody, sendJson, startScriptedUpstream } from '../tests/fixtures/scripted-llm-server.js';
import {
  commandOutput,
  createReadingModel,
  linesOf,
  REFERENCE,
  runReadingSession,
  type AnsweredRead,
} from '../tests/integration/proxy/reading-session.js';
import { findRedisServerSkipReason, startRedisServer } from '../tests/integration/stores/redis-server.js';

const quick = process.argv.includes('--quick');
const REQUESTS = quick ? 20 : 100;
const POOL_TURNS = quick ? 10 : 30;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startProxy(
  upstream: string,
  dir: string,
  store: ContentStore | undefined,
): Promise<{ origin: string; server: Server }> {
  const handler = createProxyHandler({
    upstream,
    dir,
    store,
    readTool: 'proxy',
    offload: { timing: 'on-arrival' },
    logger: { warn: () => undefined },
  });
  const server = createServer((request, response) => void handler(request, response));
  return { origin: await listen(server), server };
}

const HISTORY = JSON.stringify({
  model: 'claude-test',
  max_tokens: 256,
  messages: [
    { role: 'user', content: 'Inspect the export.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_cmd_0', name: 'Bash', input: { command: 'dump' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_cmd_0', content: commandOutput(0) }] },
  ],
});

/** Median ms of the same request, the model reading the offloaded result first or not. */
async function measureAddedLatency(label: string, store: ContentStore | undefined, root: string): Promise<void> {
  let reads = true;
  const upstream = await startScriptedUpstream((record, response) => {
    const messages = (record.body?.messages ?? []) as { content: unknown }[];
    const last = JSON.stringify(messages.at(-1)?.content);
    const usage = { input_tokens: Math.ceil(record.rawBody.length / 4), output_tokens: 5 };
    if (reads && REFERENCE.test(last) && !last.includes('toolu_read'))
      return sendJson(
        response,
        anthropicBody(
          [{ type: 'tool_use', id: 'toolu_read', name: 'read_offloaded', input: { ref: REFERENCE.exec(last)![1] } }],
          usage,
          'tool_use',
        ),
      );
    return sendJson(response, anthropicBody([{ type: 'text', text: 'done' }], usage));
  });
  const proxy = await startProxy(upstream.origin, join(root, label), store);
  const send = async (): Promise<number> => {
    const started = performance.now();
    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' },
      body: HISTORY,
    });
    if (reply.status !== 200 || reply.body.includes('read_offloaded'))
      throw new Error(`unexpected answer ${reply.status}`);
    return performance.now() - started;
  };
  try {
    // warm: the offload recorded, the tokenizer and the connections ready
    for (let index = 0; index < 5; index += 1) await send();
    const direct: number[] = [];
    const withRead: number[] = [];
    for (let index = 0; index < REQUESTS; index += 1) {
      reads = false;
      direct.push(await send());
      reads = true;
      withRead.push(await send());
    }
    const added = median(withRead) - median(direct);
    console.log(
      `${label}: answered at once ${median(direct).toFixed(2)} ms, with one read answered by the proxy ${median(withRead).toFixed(2)} ms: +${added.toFixed(2)} ms (x${(median(withRead) / median(direct)).toFixed(2)}), median of ${REQUESTS}`,
    );
  } finally {
    proxy.server.closeAllConnections();
    proxy.server.close();
    await upstream.close();
  }
}

/** A session round-robin across three handlers on one Redis store: the reads answered and their time. */
async function measurePool(url: string, root: string): Promise<void> {
  const reads: AnsweredRead[] = [];
  const upstream = await startScriptedUpstream(createReadingModel(reads));
  const stores: RedisStore[] = [];
  const proxies: { origin: string; server: Server }[] = [];
  try {
    for (let index = 0; index < 3; index += 1) {
      const store = createRedisStore({ url, prefix: 'bench-pool' });
      stores.push(store);
      proxies.push(await startProxy(upstream.origin, join(root, `pool-${index}`), store));
    }
    const times = await runReadingSession(
      proxies.map((proxy) => proxy.origin),
      'bench-pool',
      POOL_TURNS,
    );
    const exact = reads.filter((read) => linesOf(read.result) === commandOutput(read.turn)).length;
    console.log(
      `pool of 3 proxies on one Redis, ${POOL_TURNS} requests round-robin: ${reads.length} reads answered, ${exact} with the exact content; a request with a read ${median(times.slice(1)).toFixed(2)} ms (median)`,
    );
  } finally {
    for (const proxy of proxies) {
      proxy.server.closeAllConnections();
      proxy.server.close();
    }
    for (const store of stores) await store.close();
    await upstream.close();
  }
}

const root = await mkdtemp(join(tmpdir(), 'aco-proxy-read-bench-'));
try {
  await measureAddedLatency('file store', undefined, root);
  const skip = findRedisServerSkipReason();
  if (skip !== undefined) console.log(`Redis: skipped (${skip})`);
  else {
    const redis = await startRedisServer();
    try {
      const store = createRedisStore({ url: redis.url, prefix: 'bench-one' });
      await measureAddedLatency('Redis store', store, root);
      await store.close();
      const client = new Redis(redis.url);
      await client.flushall();
      client.disconnect();
      await measurePool(redis.url, root);
    } finally {
      await redis.stop();
    }
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
