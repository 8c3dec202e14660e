/**
 * A pool of proxies answering reads themselves: three built `agent-context proxy --read-tool
 * proxy` processes, each with a folder of its own, sharing one real `redis-server` as their
 * store; a session's requests go round-robin across them. Every read the model makes is answered
 * with the exact content, whichever proxy offloaded it, and the upstream gets the same bodies
 * as from one proxy.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxyCommand, type RunningProxyCommand } from '../cli/cli-helpers.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';
import { commandOutput, createReadingModel, linesOf, runReadingSession, type AnsweredRead } from './reading-session.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from '../stores/redis-server.js';

const skipReason = redisSuiteSkipReason('a pool of proxies on Redis (tests/integration/proxy/proxy-pool.test.ts)');
const TURNS = 9;

let root: string;
let upstream: ScriptedUpstream;
let redis: RedisServer | undefined;
const reads: AnsweredRead[] = [];

/** Runs the session through `count` proxy processes (folders of their own, one Redis emptied first); resolves the bodies the upstream got. */
async function runThroughPool(
  count: number,
  name: string,
): Promise<{ bodies: string[]; reads: AnsweredRead[]; dirs: string[] }> {
  const client = new Redis(redis!.url);
  await client.flushall();
  client.disconnect();
  const dirs = Array.from({ length: count }, (_, index) => join(root, name, `proxy-${index}`));
  const proxies: RunningProxyCommand[] = [];
  const from = upstream.requests.length;
  const readsFrom = reads.length;
  try {
    for (const dir of dirs)
      proxies.push(
        await startProxyCommand([
          '--port',
          '0',
          '--upstream',
          upstream.origin,
          '--dir',
          dir,
          '--store',
          redis!.url,
          '--read-tool',
          'proxy',
          '--offload-timing',
          'on-arrival',
        ]),
      );
    await runReadingSession(
      proxies.map((proxy) => proxy.origin),
      'pool-session',
      TURNS,
    );
  } finally {
    for (const proxy of proxies) await proxy.stop();
  }
  return {
    bodies: upstream.requests.slice(from).map((record) => record.rawBody.toString('utf8')),
    reads: reads.slice(readsFrom),
    dirs,
  };
}

beforeAll(async () => {
  if (skipReason !== undefined) return;
  root = await mkdtemp(join(tmpdir(), 'aco-proxy-pool-'));
  upstream = await startScriptedUpstream(createReadingModel(reads));
  redis = await startRedisServer();
}, 30_000);

afterAll(async () => {
  await upstream?.close();
  await redis?.stop();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe.skipIf(skipReason !== undefined)('three proxy processes answering reads, one Redis store, round-robin', () => {
  let one: Awaited<ReturnType<typeof runThroughPool>>;
  let pool: Awaited<ReturnType<typeof runThroughPool>>;
  beforeAll(async () => {
    one = await runThroughPool(1, 'one');
    pool = await runThroughPool(3, 'pool');
  }, 120_000);

  it('answers every read with the exact content, whichever proxy offloaded it', () => {
    // every command's output but the first request's (none yet) was offloaded and read back once
    expect(pool.reads.map((read) => read.turn)).toEqual(Array.from({ length: TURNS - 1 }, (_, turn) => turn));
    for (const read of pool.reads) expect(linesOf(read.result)).toBe(commandOutput(read.turn));
  });

  it('sends the upstream the same bodies as one proxy', () => {
    expect(pool.bodies.length).toBe(one.bodies.length);
    expect(pool.bodies).toEqual(one.bodies);
  });

  it('keeps the content in the shared store, none in the proxies’ folders', async () => {
    const files = await Promise.all(
      pool.dirs.map((dir) => readdir(dir, { recursive: true }).catch(() => [] as string[])),
    );
    expect(files.flat().filter((file) => file.endsWith('.md') || file.endsWith('.json'))).toEqual([]);
  });
});
