/**
 * Many workers, one Redis store: three worker PROCESSES batch-offload their
 * histories into one store at the same time, with the same tool_use ids and different contents
 * (plus some results every worker has with the same content); then every reference each worker
 * got is read back through the read tool (`createReadOffloadedTool`), as an agent would. Nothing lost, nothing overwritten: each worker's each content is exactly
 * at its reference; one shared content is one entry. The workers run the BUILT package
 * (`npm test` builds first; run `npm run build` before running this file on its own).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadOffloadedTool, type ReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import { collectKeys } from '../../../src/core/store/store-keys.js';
import { createRedisStore, type RedisStore } from '../../../src/stores/redis-store.js';
import { REPOSITORY_ROOT } from '../cli/cli-helpers.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const WORKER_SCRIPT = join(REPOSITORY_ROOT, 'tests/integration/stores/redis-worker.mjs');
const WORKERS = 3;
const ROUNDS = 4;
const RESULTS_PER_ROUND = 30;
const SHARED_PER_ROUND = 5;

const skipReason = redisSuiteSkipReason('Redis workers (tests/integration/stores/redis-workers.test.ts)');

/** One result a worker offloaded, as it reported it. */
interface WorkerEntry {
  toolUseId: string;
  content: string;
  reference: string;
}

/** A started worker: `ready` resolves once it is connected; `done` with what it printed after `go`. */
interface Worker {
  ready: Promise<void>;
  /** Starts the worker's offloads at `startAt` (epoch ms). */
  go(startAt: number): void;
  done: Promise<WorkerEntry[]>;
}

function startWorker(url: string, prefix: string, worker: number): Worker {
  const child = spawn(
    process.execPath,
    [WORKER_SCRIPT, url, prefix, String(worker), String(ROUNDS), String(RESULTS_PER_ROUND), String(SHARED_PER_ROUND)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<WorkerEntry[]>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`worker ${worker} exited with ${code}:\n${stderr}`));
        return;
      }
      const lines = stdout
        .split('\n')
        .slice(1)
        .filter((line) => line !== '');
      resolve(lines.map((line) => JSON.parse(line) as WorkerEntry));
    });
  });
  // a worker that dies before it is ready must not leave the test waiting
  done.catch(() => markReady());
  return { ready, go: (startAt: number) => child.stdin.end(`go ${startAt}\n`), done };
}

/**
 * The content at `reference`, as an agent gets it through the read tool: page after page of
 * numbered lines (`     1\tline`), each page's footer saying where the next starts.
 */
async function readThroughTool(tool: ReadOffloadedTool, reference: string): Promise<string> {
  const lines: string[] = [];
  let offset: number | undefined = 1;
  while (offset !== undefined) {
    const output = await tool.execute({ ref: reference, offset });
    const rows = output.split('\n');
    const footer = rows.pop() ?? '';
    for (const row of rows) {
      const line = /^ *\d+\t(.*)$/s.exec(row);
      if (line === null)
        throw new Error(
          `read_offloaded answered something else than numbered lines for ${reference}: ${output.slice(0, 300)}`,
        );
      lines.push(line[1]!);
    }
    if (footer.includes('was cut')) throw new Error(`a line of ${reference} was too long for a page: ${footer}`);
    offset = footer.endsWith('end of content]')
      ? undefined
      : Number(/"offset": ?(\d+)/.exec(footer)?.[1] ?? Number.NaN);
    if (Number.isNaN(offset)) throw new Error(`no next page in the footer of ${reference}: ${footer}`);
  }
  return lines.join('\n');
}

describe.skipIf(skipReason !== undefined)('three worker processes offloading into one Redis store', () => {
  let server: RedisServer;
  let store: RedisStore;
  const prefix = 'workers';

  beforeAll(async () => {
    if (!existsSync(join(REPOSITORY_ROOT, 'dist/stores/redis-store.js'))) {
      throw new Error('dist/stores/redis-store.js is missing: run `npm run build` first (`npm test` does)');
    }
    server = await startRedisServer();
    store = createRedisStore({ url: server.url, prefix });
  });

  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  it('loses nothing and overwrites nothing: every content is read back exactly at the reference its worker got', async () => {
    const workers = Array.from({ length: WORKERS }, (_, worker) => startWorker(server.url, prefix, worker));
    await Promise.all(workers.map((worker) => worker.ready));
    const startAt = Date.now() + 100;
    for (const worker of workers) worker.go(startAt);
    const reports = await Promise.all(workers.map((worker) => worker.done));

    const perWorker = ROUNDS * (RESULTS_PER_ROUND + SHARED_PER_ROUND);
    for (const report of reports) expect(report).toHaveLength(perWorker);

    // the fourth party: an agent reading every reference back through the read tool
    const tool = createReadOffloadedTool({ store });
    const all = reports.flat();
    const readBack = await Promise.all(all.map((entry) => readThroughTool(tool, entry.reference)));
    const mismatches = all
      .filter((entry, index) => readBack[index] !== entry.content)
      .map((entry) => `${entry.toolUseId} at ${entry.reference}`);
    expect(mismatches).toEqual([]);

    // the same id with other contents: one key per worker; the same content: one key for all
    const byId = new Map<string, WorkerEntry[]>();
    for (const entry of all) byId.set(entry.toolUseId, [...(byId.get(entry.toolUseId) ?? []), entry]);
    for (const [toolUseId, entries] of byId) {
      const references = new Set(entries.map((entry) => entry.reference));
      expect(references.size, toolUseId).toBe(toolUseId.startsWith('toolu_same_') ? 1 : WORKERS * ROUNDS);
      // names taken in order, none skipped: tool-result-<id>.md, then -1, -2, ...
      const expected = Array.from(
        { length: references.size },
        (_, suffix) => `redis://${prefix}/tool-result-${toolUseId}${suffix === 0 ? '' : `-${suffix}`}.md`,
      );
      expect([...references].sort(), toolUseId).toEqual(expected.sort());
    }
    const keys = await collectKeys(store, '');
    expect(keys).toHaveLength(RESULTS_PER_ROUND * WORKERS * ROUNDS + SHARED_PER_ROUND);
  }, 60_000);
});
