/**
 * Store benchmarks: batch offload of 200 results of 4.5 KB into a store against the
 * raw client doing the same conditional puts with the same concurrency, on the same local
 * server, in the same run. Each driver's rows come from one function (`runRedisRows`, ...).
 * And a reused id in a Redis database of 100,000 other keys: the next free name found by
 * asking `EXISTS` about the id's numbered names, against the listing (`SCAN ... MATCH`) it
 * replaced, which walks every key of the database.
 */
import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { offloadToolResults } from '../src/api/offload.js';
import { WRITE_CONCURRENCY } from '../src/core/offload/offload-files.js';
import type { ContentStore } from '../src/core/ports.js';
import { createRedisStore } from '../src/stores/redis-store.js';
import { findRedisServerSkipReason, startRedisServer } from '../tests/integration/stores/redis-server.js';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createS3Store } from '../src/stores/s3-store.js';
import { createTestS3Client, startS3Server } from '../tests/integration/stores/s3-server.js';
import { buildHistory } from './offload.bench.js';
import { formatMs, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Stores';

const LARGE_RESULT_COUNT = 200;
/** Messages of the long history (offload.bench.ts'); the short one holds only the 200 results. */
const MESSAGE_COUNT = 2000;
const SHORT_MESSAGE_COUNT = 2 * LARGE_RESULT_COUNT;

/** Runs `task(index)` for `count` indexes, `limit` at a time (the offload's own pattern). */
async function runConcurrently(count: number, limit: number, task: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times each task once per round, alternating their order, after two untimed rounds, with
 * `between()` (untimed) after each round; returns each task's median, by name.
 */
async function measureInterleaved(
  tasks: Record<string, (round: number) => Promise<void>>,
  rounds: number,
  between: () => Promise<void>,
): Promise<Record<string, number>> {
  const names = Object.keys(tasks);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = -2; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const started = performance.now();
      await tasks[name]!(round);
      if (round >= 0) samples[name]!.push(performance.now() - started);
    }
    await between();
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name]!)]));
}

/**
 * Redis rows: `offloadToolResults(messages, { store })` and the store's `putIfAbsent` alone,
 * each against ioredis sending the same `SET key value NX GET` puts 16 at a time, on one local
 * `redis-server` started here. None when the machine has no redis-server (the reason is printed).
 */
export async function runRedisRows(options: BenchRunOptions): Promise<BenchRow[]> {
  const skipReason = findRedisServerSkipReason();
  if (skipReason !== undefined) {
    console.warn(`[skipped] Redis store benchmark: ${skipReason}`);
    return [];
  }
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    const { messages, payloads } = buildHistory(MESSAGE_COUNT);
    const short = buildHistory(SHORT_MESSAGE_COUNT);
    if (short.payloads.join('') !== payloads.join(''))
      throw new Error('the two histories must offload the same payloads');
    const rounds = options.quick ? 5 : 100;
    const storeOf = (round: number, name: string) => createRedisStore({ client, prefix: `bench-${name}-${round + 2}` });
    const offloadOptions = { charThreshold: 100, ratioThreshold: 0.2 };

    // Sanity first: the offload takes exactly the 200 payloads, into the store.
    for (const history of [messages, short.messages]) {
      const check = await offloadToolResults(history, { store: storeOf(-3, 'check'), ...offloadOptions });
      if (check.offloadedCount !== LARGE_RESULT_COUNT || !check.files.every((file) => file.startsWith('redis://'))) {
        throw new Error(`expected ${LARGE_RESULT_COUNT} offloads into Redis, got ${check.offloadedCount}`);
      }
      await client.call('FLUSHALL');
    }

    const RAW = `ioredis SET NX GET x${LARGE_RESULT_COUNT}, ${WRITE_CONCURRENCY} at a time`;
    const OFFLOAD = `offloadToolResults({ store }), ${MESSAGE_COUNT} messages`;
    const OFFLOAD_SHORT = `offloadToolResults({ store }), ${SHORT_MESSAGE_COUNT} messages`;
    const PUT = `store.putIfAbsent x${LARGE_RESULT_COUNT}, ${WRITE_CONCURRENCY} at a time`;
    const RAW_WITH_HEADER = `ioredis SET NX GET x${LARGE_RESULT_COUNT} of the store's values (created-at header + payload)`;
    // each round writes fresh keys (the common case: nothing there yet); the server is emptied between rounds, untimed
    const medians = await measureInterleaved(
      {
        [RAW]: async (round) => {
          await runConcurrently(payloads.length, WRITE_CONCURRENCY, (index) =>
            client.call('SET', `bench-raw-${round + 2}/tool-result-${index}.md`, payloads[index]!, 'NX', 'GET'),
          );
        },
        [OFFLOAD]: async (round) => {
          const result = await offloadToolResults(messages, { store: storeOf(round, 'offload'), ...offloadOptions });
          if (result.offloadedCount !== LARGE_RESULT_COUNT) throw new Error(`offloaded ${result.offloadedCount}`);
        },
        [OFFLOAD_SHORT]: async (round) => {
          const result = await offloadToolResults(short.messages, {
            store: storeOf(round, 'short'),
            ...offloadOptions,
          });
          if (result.offloadedCount !== LARGE_RESULT_COUNT) throw new Error(`offloaded ${result.offloadedCount}`);
        },
        [RAW_WITH_HEADER]: async (round) => {
          await runConcurrently(payloads.length, WRITE_CONCURRENCY, (index) =>
            client.call(
              'SET',
              `bench-rawh-${round + 2}/tool-result-${index}.md`,
              `created-at=${new Date().toISOString()}\n${payloads[index]!}`,
              'NX',
              'GET',
            ),
          );
        },
        [PUT]: async (round) => {
          const store = storeOf(round, 'put');
          await runConcurrently(payloads.length, WRITE_CONCURRENCY, (index) =>
            store.putIfAbsent(`tool-result-${index}.md`, payloads[index]!),
          );
        },
      },
      rounds,
      async () => {
        await client.call('FLUSHALL');
      },
    );

    const raw = medians[RAW]!;
    const offload = medians[OFFLOAD]!;
    const offloadShort = medians[OFFLOAD_SHORT]!;
    const put = medians[PUT]!;
    const rawWithHeader = medians[RAW_WITH_HEADER]!;
    const setting = `local redis-server ${await serverVersion(client)}, one ioredis connection; median of ${rounds} interleaved runs`;
    return [
      {
        name: `Redis store: batch offload of ${LARGE_RESULT_COUNT} x 4.5 KB in a ${MESSAGE_COUNT}-message history (~1M chars)`,
        medianMs: offload,
        baseline: { name: RAW, medianMs: raw },
        extra: setting,
        goal: '<= 1.3x the raw client',
        met: offload <= 1.3 * raw,
      },
      {
        name: `Redis store: batch offload of ${LARGE_RESULT_COUNT} x 4.5 KB in a ${SHORT_MESSAGE_COUNT}-message history (those results only)`,
        medianMs: offloadShort,
        baseline: { name: RAW, medianMs: raw },
        extra: 'less history for the core to validate, plan and copy',
        goal: '<= 1.3x the raw client',
        met: offloadShort <= 1.3 * raw,
      },
      {
        name: `Redis store: putIfAbsent alone, ${LARGE_RESULT_COUNT} x 4.5 KB`,
        medianMs: put,
        baseline: { name: RAW, medianMs: raw },
        extra: `the driver without the offload around it; the raw client sending the store's own values (36-byte header joined to each payload): ${formatMs(rawWithHeader)}`,
        goal: '<= 1.3x the raw client',
        met: put <= 1.3 * raw,
      },
    ];
  } finally {
    client.disconnect();
    await server.stop();
  }
}

/** Other keys in the database of the reused-id rows. */
const UNRELATED_KEYS = 100_000;
/** Uses of the reused id already stored when a row offloads it once more. */
const EARLIER_USES = 4;

/**
 * Redis rows: one offload of a reused id (`call_0`, its name and 3 numbered names taken by
 * other contents) among {@link UNRELATED_KEYS} other keys, with the store as it is (`exists`)
 * against the same store without `exists` (so batch offload lists the id's prefix with `SCAN`).
 */
export async function runRedisReusedIdRows(options: BenchRunOptions): Promise<BenchRow[]> {
  const skipReason = findRedisServerSkipReason();
  if (skipReason !== undefined) return [];
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    for (let first = 0; first < UNRELATED_KEYS; first += 1000) {
      await client.mset(
        ...Array.from({ length: 1000 }, (_, index) => [
          `session:${first + index}`,
          'some other application data',
        ]).flat(),
      );
    }
    const history = (content: string) => [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'call_0', name: 'run', input: {} }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'call_0', content }] },
    ];
    const offloadOptions = { charThreshold: 100, ratioThreshold: 0 };
    const probing = createRedisStore({ client, prefix: 'reuse-exists' });
    // the store as it was: without exists, batch offload lists the id's prefix
    const scanning: ContentStore = { ...createRedisStore({ client, prefix: 'reuse-scan' }) };
    delete scanning.exists;
    for (const store of [probing, scanning]) {
      for (let use = 0; use < EARLIER_USES; use++)
        await offloadToolResults(history(`earlier use ${use} `.repeat(40)), { store, ...offloadOptions });
    }
    const expected = (prefix: string) => [`redis://${prefix}/tool-result-call_0-${EARLIER_USES}.md`];
    const NEW = `offload of a reused id, ${UNRELATED_KEYS.toLocaleString('en-US')} other keys: EXISTS on its numbered names`;
    const OLD = `the same with SCAN ... MATCH (the listing it replaced)`;
    const rounds = options.quick ? 5 : 30;
    const medians = await measureInterleaved(
      {
        [NEW]: async () => {
          const result = await offloadToolResults(history('a new content '.repeat(40)), {
            store: probing,
            ...offloadOptions,
          });
          if (result.files.join() !== expected('reuse-exists').join())
            throw new Error(`offloaded to ${result.files.join()}`);
        },
        [OLD]: async () => {
          const result = await offloadToolResults(history('a new content '.repeat(40)), {
            store: scanning,
            ...offloadOptions,
          });
          if (result.files.join() !== expected('reuse-scan').join())
            throw new Error(`offloaded to ${result.files.join()}`);
        },
      },
      rounds,
      async () => {
        await client.del(
          `reuse-exists/tool-result-call_0-${EARLIER_USES}.md`,
          `reuse-scan/tool-result-call_0-${EARLIER_USES}.md`,
        );
      },
    );
    const probed = medians[NEW]!;
    return [
      {
        name: NEW,
        medianMs: probed,
        baseline: { name: OLD, medianMs: medians[OLD]! },
        extra: `local redis-server ${await serverVersion(client)}; median of ${rounds} interleaved runs`,
        goal: '< 5 ms whatever the database holds',
        met: probed < 5,
      },
    ];
  } finally {
    client.disconnect();
    await server.stop();
  }
}

async function serverVersion(client: Redis): Promise<string> {
  const info = String(await client.call('INFO', 'server'));
  return /redis_version:(\S+)/.exec(info)?.[1] ?? '';
}

/**
 * S3 rows: `offloadToolResults(messages, { store })` and the store's `putIfAbsent` alone, each
 * against the raw `S3Client` sending the same `PutObject`s (`IfNoneMatch: '*'`, same content
 * type) 16 at a time, on one s3rver run in this process. Every round writes fresh keys (nothing
 * there yet, so every put creates); the objects are removed between rounds, untimed.
 */
export async function runS3Rows(options: BenchRunOptions): Promise<BenchRow[]> {
  const server = await startS3Server('bench');
  const client = createTestS3Client(server.endpoint);
  try {
    const { messages, payloads } = buildHistory();
    const rounds = options.quick ? 5 : 30;
    const storeOf = (round: number, name: string) =>
      createS3Store({ client, bucket: server.bucket, prefix: `bench-${name}-${round + 2}` });

    // Sanity first: the offload takes exactly the 200 payloads, into the store.
    const check = await offloadToolResults(messages, {
      store: storeOf(-3, 'check'),
      charThreshold: 100,
      ratioThreshold: 0.2,
    });
    if (check.offloadedCount !== LARGE_RESULT_COUNT || !check.files.every((file) => file.startsWith('s3://'))) {
      throw new Error(`expected ${LARGE_RESULT_COUNT} offloads into S3, got ${check.offloadedCount}`);
    }

    const RAW = `S3Client PutObject (If-None-Match: *) x${LARGE_RESULT_COUNT}, ${WRITE_CONCURRENCY} at a time`;
    const OFFLOAD = 'offloadToolResults({ store: s3 })';
    const PUT = `s3 store.putIfAbsent x${LARGE_RESULT_COUNT}, ${WRITE_CONCURRENCY} at a time`;
    const medians = await measureInterleaved(
      {
        [RAW]: async (round) => {
          await runConcurrently(payloads.length, WRITE_CONCURRENCY, (index) =>
            client.send(
              new PutObjectCommand({
                Bucket: server.bucket,
                Key: `bench-raw-${round + 2}/tool-result-${index}.md`,
                Body: payloads[index]!,
                IfNoneMatch: '*',
                ContentType: 'text/plain; charset=utf-8',
              }),
            ),
          );
        },
        [OFFLOAD]: async (round) => {
          const result = await offloadToolResults(messages, {
            store: storeOf(round, 'offload'),
            charThreshold: 100,
            ratioThreshold: 0.2,
          });
          if (result.offloadedCount !== LARGE_RESULT_COUNT) throw new Error(`offloaded ${result.offloadedCount}`);
        },
        [PUT]: async (round) => {
          const store = storeOf(round, 'put');
          await runConcurrently(payloads.length, WRITE_CONCURRENCY, (index) =>
            store.putIfAbsent(`tool-result-${index}.md`, payloads[index]!),
          );
        },
      },
      rounds,
      async () => {
        // s3rver keeps each object as files under <directory>/<bucket>/<key>: drop this round's
        const bucketDirectory = join(server.directory, server.bucket);
        for (const name of await readdir(bucketDirectory)) {
          if (name.startsWith('bench-')) await rm(join(bucketDirectory, name), { recursive: true, force: true });
        }
      },
    );

    const raw = medians[RAW]!;
    const offload = medians[OFFLOAD]!;
    const put = medians[PUT]!;
    const setting = `s3rver 3.7.1 in this process (ignores If-None-Match: every put creates), @aws-sdk/client-s3; median of ${rounds} interleaved runs`;
    return [
      {
        name: `S3 store: batch offload of ${LARGE_RESULT_COUNT} x 4.5 KB (${MESSAGE_COUNT} messages)`,
        medianMs: offload,
        baseline: { name: RAW, medianMs: raw },
        extra: setting,
        goal: '<= 1.3x the raw client',
        met: offload <= 1.3 * raw,
      },
      {
        name: `S3 store: putIfAbsent alone, ${LARGE_RESULT_COUNT} x 4.5 KB`,
        medianMs: put,
        baseline: { name: RAW, medianMs: raw },
        extra: 'the driver without the offload around it',
        goal: '<= 1.3x the raw client',
        met: put <= 1.3 * raw,
      },
    ];
  } finally {
    client.destroy();
    await server.close();
  }
}

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  return [...(await runRedisRows(options)), ...(await runRedisReusedIdRows(options)), ...(await runS3Rows(options))];
}
