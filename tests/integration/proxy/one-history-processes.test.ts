/**
 * One session, one history, across real processes: a recorded session replayed request by
 * request through manager processes (tests/integration/api/manager-process.ts) and through the
 * built `agent-context proxy` command sends the same bytes at every request (store paths set
 * aside) whichever process answers: two processes taking turns on one store, a new manager per
 * request, a process restarted every 4 requests, against one process; two proxies taking turns
 * and a proxy restarted every 4 requests, against one proxy, on one folder and with the
 * records on a real `redis-server`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { REPOSITORY_ROOT, startProxyCommand, type RunningProxyCommand } from '../cli/cli-helpers.js';
import {
  describeDifferences,
  loadDemoSession,
  requestsOf,
  sendAsSession,
  sentMessages,
  startSizeCountingUpstream,
  setStorePathsAside,
  type RecordedSession,
} from './one-history-sessions.js';
import type { ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from '../stores/redis-server.js';

const MANAGER_SCRIPT = join(REPOSITORY_ROOT, 'tests/integration/api/manager-process.ts');
const WINDOW = 12_000;

/** Which process serves which request: a name not seen before starts a process (a restart stops the ones before). */
interface Serving {
  processFor(request: number): string;
  restarts: boolean;
}

const ONE: Serving = { processFor: () => 'one', restarts: false };
const TWO_IN_TURN: Serving = { processFor: (request) => (request % 2 === 0 ? 'a' : 'b'), restarts: false };
const RESTARTED_EVERY_4: Serving = { processFor: (request) => `run ${Math.floor(request / 4)}`, restarts: true };

type StoreSpec = { kind: 'file'; dir: string } | { kind: 'redis'; url: string; prefix: string };

interface RunningProcess {
  send(line: string): void;
  lines: AsyncIterator<string>;
  stop(): Promise<void>;
}

/** A manager process preparing each history sent to it (`perRequest`: a new manager per request). */
async function startManagerProcess(store: StoreSpec, perRequest: boolean): Promise<RunningProcess> {
  const settings = {
    store,
    sessionId: 'one-history',
    contextTokenLimit: WINDOW,
    label: 'worker',
    summaryDelayMs: 0,
    perRequest,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', MANAGER_SCRIPT, JSON.stringify(settings)], {
    cwd: REPOSITORY_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return wrapLineProcess(child, 'ready');
}

async function wrapLineProcess(child: ChildProcessWithoutNullStreams, readyLine: string): Promise<RunningProcess> {
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.value !== readyLine) throw new Error(`the process did not start (${String(first.value)}):\n${stderr}`);
  return {
    send: (line) => void child.stdin.write(`${line}\n`),
    lines,
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the process exited with ${code}:\n${stderr}`);
    },
  };
}

/** The messages each request sent, through manager processes served as `serving` says. */
async function replayThroughManagerProcesses(
  session: RecordedSession,
  serving: Serving,
  store: StoreSpec,
  perRequest = false,
): Promise<string[]> {
  const running = new Map<string, RunningProcess>();
  const sent: string[] = [];
  try {
    for (const [request, history] of requestsOf(session).entries()) {
      const name = serving.processFor(request);
      let worker = running.get(name);
      if (worker === undefined) {
        if (serving.restarts)
          for (const [other, process] of running) await process.stop().then(() => running.delete(other));
        worker = await startManagerProcess(store, perRequest);
        running.set(name, worker);
      }
      worker.send(JSON.stringify({ id: request, history }));
      const answer = JSON.parse((await worker.lines.next()).value as string) as { messages: Message[] };
      sent.push(normalize(JSON.stringify(answer.messages), store));
    }
  } finally {
    for (const worker of running.values()) await worker.stop();
  }
  return sent;
}

function normalize(body: string, store: StoreSpec): string {
  return setStorePathsAside(body, store.kind === 'file' ? store.dir : store.prefix);
}

/** An Anthropic Messages body for `history` (its system message as `system`). */
function toRequestBody(history: readonly Message[]): string {
  const [first, ...rest] = history;
  const system = first?.role === 'system' ? first.content : undefined;
  return JSON.stringify({
    model: 'claude-test',
    max_tokens: 1024,
    system,
    messages: system === undefined ? history : rest,
  });
}

let root: string;
let upstream: ScriptedUpstream;
let session: RecordedSession;
/**
 * The store folder of a replay, emptied: the same path for every replay, since paths are in the
 * references and weigh on the token counts.
 */
async function freshDirectory(): Promise<string> {
  const directory = join(root, 'store');
  await rm(directory, { recursive: true, force: true });
  return directory;
}

/** The histories the upstream received through proxy processes served as `serving` says, on one folder (and `redisUrl` for the records). */
async function replayThroughProxyProcesses(serving: Serving, redisUrl?: string): Promise<string[]> {
  const directory = await freshDirectory();
  // one session name for every replay (it is in the paths too); only one replay keeps records in Redis
  const sessionName = 'one-history';
  const running = new Map<string, RunningProxyCommand>();
  const from = upstream.requests.length;
  try {
    for (const [request, history] of requestsOf(session).entries()) {
      const name = serving.processFor(request);
      let proxy = running.get(name);
      if (proxy === undefined) {
        if (serving.restarts)
          for (const [other, process] of running) await process.stop().then(() => running.delete(other));
        proxy = await startProxyCommand([
          '--port',
          '0',
          '--upstream',
          upstream.origin,
          '--dir',
          directory,
          '--window',
          String(WINDOW),
          ...(redisUrl === undefined ? [] : ['--store', redisUrl]),
        ]);
        running.set(name, proxy);
      }
      expect(await sendAsSession(proxy.origin, sessionName, toRequestBody(history))).toBe(200);
    }
  } finally {
    for (const proxy of running.values()) await proxy.stop();
  }
  return sentMessages(upstream, from, directory);
}

const redisSkip = redisSuiteSkipReason(
  'one history over Redis (tests/integration/proxy/one-history-processes.test.ts)',
);
let redis: RedisServer | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-one-history-processes-'));
  // the provider's figure follows from the bytes it was sent, as a real one's does
  upstream = await startSizeCountingUpstream();
  session = await loadDemoSession(2);
  if (redisSkip === undefined) redis = await startRedisServer();
}, 30_000);

afterAll(async () => {
  await upstream.close();
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('manager processes on one file store, the demo session x2 in a 12K window', () => {
  let reference: string[];
  beforeAll(async () => {
    reference = await replayThroughManagerProcesses(session, ONE, { kind: 'file', dir: await freshDirectory() });
  }, 120_000);

  it('compacts and offloads along the way', () => {
    expect(reference.some((body) => body.includes('Summary by worker'))).toBe(true);
    expect(reference.some((body) => body.includes('<store>/one-history/'))).toBe(true);
  });

  it('sends the same bytes at every request from two processes taking turns as from one', async () => {
    const sent = await replayThroughManagerProcesses(session, TWO_IN_TURN, {
      kind: 'file',
      dir: await freshDirectory(),
    });
    expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
  }, 120_000);

  it('sends the same bytes at every request from a process restarted every 4 requests as from one', async () => {
    const sent = await replayThroughManagerProcesses(session, RESTARTED_EVERY_4, {
      kind: 'file',
      dir: await freshDirectory(),
    });
    expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
  }, 120_000);

  it('sends the same bytes at every request from a new manager per request as from one manager', async () => {
    const sent = await replayThroughManagerProcesses(session, ONE, { kind: 'file', dir: await freshDirectory() }, true);
    expect(describeDifferences(reference, sent)).toBe('the same bytes at every request');
  }, 120_000);
});

describe('agent-context proxy processes, the demo session x2 in a 12K window', () => {
  let reference: string[];
  beforeAll(async () => {
    reference = await replayThroughProxyProcesses(ONE);
  }, 120_000);

  it('compacts and offloads along the way', () => {
    expect(reference.some((body) => body.includes('[Conversation compressed]'))).toBe(true);
    expect(reference.some((body) => body.includes('<store>/one-history/'))).toBe(true);
  });

  it('sends the same bytes at every request from two proxies taking turns on one folder as from one', async () => {
    expect(describeDifferences(reference, await replayThroughProxyProcesses(TWO_IN_TURN))).toBe(
      'the same bytes at every request',
    );
  }, 120_000);

  it('sends the same bytes at every request from a proxy restarted every 4 requests as from one', async () => {
    expect(describeDifferences(reference, await replayThroughProxyProcesses(RESTARTED_EVERY_4))).toBe(
      'the same bytes at every request',
    );
  }, 120_000);

  it.skipIf(redisSkip !== undefined)(
    'sends the same bytes at every request from two proxies taking turns with their records on Redis as from one',
    async () => {
      expect(describeDifferences(reference, await replayThroughProxyProcesses(TWO_IN_TURN, redis!.url))).toBe(
        'the same bytes at every request',
      );
    },
    120_000,
  );
});
