/**
 * One session, any process: child PROCESSES (tests/integration/api/manager-process.ts, each its own
 * `node`) prepare the same session over one real store, a file store in a temp directory and a
 * real `redis-server`: one after the other (a restart), taking turns (a worker pool), and all at
 * the same moment over one span (a race). Histories are sent raw, rebuilt from JSON in each
 * process, as a web server gets them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { collectKeys } from '../../../src/core/store/store-keys.js';
import type { ContentStore } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import { createRedisStore } from '../../../src/stores/redis-store.js';
import { REPOSITORY_ROOT } from '../cli/cli-helpers.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from '../stores/redis-server.js';

const PROCESS_SCRIPT = join(REPOSITORY_ROOT, 'tests/integration/api/manager-process.ts');
const WINDOW = 6000;
const SESSION = 'chat-1';
const REFERENCE_SESSION = 'chat-2';

/** What a process answered for one request. */
interface Answer {
  id: number;
  messages: Message[];
  actions: string[];
  summaries: number;
  warnings: string[];
}

/** A started process: `prepare` sends it a request and resolves with its answer. */
interface ManagerProcess {
  prepare(history: readonly Message[], startAt?: number): Promise<Answer>;
  stop(): Promise<void>;
}

type StoreSpec = { kind: 'file'; dir: string } | { kind: 'redis'; url: string; prefix: string };

async function startProcess(
  store: StoreSpec,
  label: string,
  options: { perRequest?: boolean; summaryDelayMs?: number } = {},
): Promise<ManagerProcess> {
  const settings = {
    store,
    sessionId: SESSION,
    contextTokenLimit: WINDOW,
    label,
    summaryDelayMs: options.summaryDelayMs ?? 0,
    perRequest: options.perRequest ?? false,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', PROCESS_SCRIPT, JSON.stringify(settings)], {
    cwd: REPOSITORY_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const waiting = new Map<number, (answer: Answer) => void>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') return markReady();
    const answer = JSON.parse(line) as Answer;
    waiting.get(answer.id)?.(answer);
  });
  await Promise.race([
    ready,
    exited.then((code) =>
      Promise.reject(new Error(`process ${label} exited with ${code} before it was ready:\n${stderr}`)),
    ),
  ]);
  let next = 0;
  return {
    prepare(history, startAt) {
      const id = next++;
      const answered = new Promise<Answer>((resolve, reject) => {
        waiting.set(id, resolve);
        void exited.then((code) => reject(new Error(`process ${label} exited with ${code}:\n${stderr}`)));
      });
      child.stdin.write(`${JSON.stringify({ id, history, ...(startAt === undefined ? {} : { startAt }) })}\n`);
      return answered;
    },
    async stop() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`process ${label} exited with ${code}:\n${stderr}`);
    },
  };
}

function words(count: number, seed: string): string {
  return Array.from({ length: count }, (_, index) => `${seed}${index % 89}`).join(' ');
}

/** A coding session: each turn a tool call with a large output, the agent's notes, the user's next request. */
function buildConversation(turns: number): Message[] {
  const history: Message[] = [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: 'The nightly job times out. Find out why and fix it.' },
  ];
  for (let turn = 0; turn < turns; turn += 1) {
    const id = `toolu_${String(turn).padStart(3, '0')}`;
    history.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${turn}: reading the log.` },
          { type: 'tool_use', id, name: 'bash', input: { command: `cat logs/${turn}.log` } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: words(700, `log${turn}x`) }] },
      { role: 'assistant', content: words(160, `note${turn}n`) },
      { role: 'user', content: `Good, go on with part ${turn + 1}.` },
    );
  }
  return history;
}

const rebuilt = (messages: readonly Message[]): Message[] => JSON.parse(JSON.stringify(messages)) as Message[];
const sameJson = (left: unknown, right: unknown): boolean => JSON.stringify(left) === JSON.stringify(right);
const startsWithJson = (messages: readonly Message[], prefix: readonly Message[]): boolean =>
  sameJson(messages.slice(0, prefix.length), prefix);

/** The requests of a web chat: the raw history after each turn, from the 2nd on. */
function requestsOf(history: readonly Message[]): Message[][] {
  const requests: Message[][] = [];
  for (let end = 6; end <= history.length; end += 4) requests.push(history.slice(0, end));
  return requests;
}

/** Requests whose messages do not start with what the previous request sent. */
function countPrefixChanges(sent: ReadonlyArray<readonly Message[]>): number {
  let changes = 0;
  for (let index = 1; index < sent.length; index += 1)
    if (!startsWithJson(sent[index] as Message[], sent[index - 1] as Message[])) changes += 1;
  return changes;
}

/**
 * The same requests through one manager in this process, over the same store in a session of
 * the same length (references, and so token counts, alike): what any set of processes must match.
 */
async function replayWithOneManager(
  requests: readonly Message[][],
  store: ContentStore,
): Promise<{ sent: Message[][]; summaries: number }> {
  let summaries = 0;
  const manager = createContextManager({
    store,
    sessionId: REFERENCE_SESSION,
    contextTokenLimit: WINDOW,
    summarizer: { summarize: async () => `Summary ${++summaries}.` },
    logger: { warn: () => undefined },
  });
  const sent: Message[][] = [];
  for (const request of requests) sent.push((await manager.prepare(request)).messages);
  return { sent, summaries };
}

async function compactRecords(store: ContentStore): Promise<string[]> {
  return (await collectKeys(store, `${SESSION}/.records/`)).filter((key) => key.includes('/compact-'));
}

const redisSkip = redisSuiteSkipReason(
  'manager processes over Redis (tests/integration/api/context-manager-processes.test.ts)',
);

interface StoreUnderTest {
  spec(): StoreSpec;
  open(): ContentStore;
}

let root: string;
let redis: RedisServer | undefined;
let prefixCount = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-manager-processes-'));
  if (redisSkip === undefined) redis = await startRedisServer();
}, 20_000);

afterAll(async () => {
  await redis?.stop();
  await rm(root, { recursive: true, force: true });
});

const stores: Array<[string, () => StoreUnderTest, boolean]> = [
  [
    'file',
    () => {
      const dir = join(root, `store-${prefixCount++}`);
      return { spec: () => ({ kind: 'file', dir }), open: () => createFileStore({ dir }) };
    },
    false,
  ],
  [
    'Redis',
    () => {
      const prefix = `run${prefixCount++}`;
      return {
        spec: () => ({ kind: 'redis', url: redis!.url, prefix }),
        open: () => createRedisStore({ url: redis!.url, prefix }),
      };
    },
    redisSkip !== undefined,
  ],
];

describe.each(stores)('processes preparing one session over a %s store', (_, createStoreUnderTest, skip) => {
  it.skipIf(skip)(
    'a restart: a new process continues from the records, raw or prepared history alike, and summarizes nothing again',
    async () => {
      const store = createStoreUnderTest();
      const history = buildConversation(16);
      const first = await startProcess(store.spec(), 'first', { perRequest: true });
      const before = await first.prepare(history);
      await first.stop();
      expect(before.actions).toContain('compact');
      expect(before.summaries).toBe(1);

      const next: Message[] = [
        { role: 'assistant', content: 'The timeout is fixed.' },
        { role: 'user', content: 'Now add a test for it.' },
      ];
      const second = await startProcess(store.spec(), 'second', { perRequest: true });
      const fromRaw = await second.prepare(rebuilt([...history, ...next]));
      const fromPrepared = await second.prepare(rebuilt([...before.messages, ...next]));
      await second.stop();

      expect(fromRaw.summaries + fromPrepared.summaries).toBe(0);
      expect(startsWithJson(fromRaw.messages, before.messages)).toBe(true);
      expect(sameJson(fromRaw.messages, fromPrepared.messages)).toBe(true);
      const opened = store.open();
      expect(await compactRecords(opened)).toHaveLength(1);
      await (opened as { close?: () => Promise<void> }).close?.();
    },
    60_000,
  );

  it.skipIf(skip)(
    'a worker pool: three processes taking turns send what one manager sends, summarizing as often',
    async () => {
      const store = createStoreUnderTest();
      const requests = requestsOf(buildConversation(24));
      const workers = await Promise.all(['a', 'b', 'c'].map((label) => startProcess(store.spec(), label)));
      const answers: Answer[] = [];
      for (const [index, request] of requests.entries())
        answers.push(await workers[index % workers.length]!.prepare(rebuilt(request)));
      await Promise.all(workers.map((worker) => worker.stop()));

      const opened = store.open();
      const reference = await replayWithOneManager(requests, opened);
      await (opened as { close?: () => Promise<void> }).close?.();
      const summaries = answers.reduce((total, answer) => total + answer.summaries, 0);
      expect(reference.summaries).toBeGreaterThan(0);
      expect(summaries).toBe(reference.summaries);
      expect(countPrefixChanges(answers.map((answer) => answer.messages))).toBe(countPrefixChanges(reference.sent));
      // the same requests, message for message, but for the summaries' own text
      expect(answers.map((answer) => answer.messages.length)).toEqual(
        reference.sent.map((messages) => messages.length),
      );
    },
    90_000,
  );

  it.skipIf(skip)(
    'a race: three processes compacting one span at the same moment record one compaction and all send it',
    async () => {
      const store = createStoreUnderTest();
      const history = buildConversation(16);
      const racers = await Promise.all(
        ['x', 'y', 'z'].map((label) => startProcess(store.spec(), label, { summaryDelayMs: 600 })),
      );
      const startAt = Date.now() + 500;
      const answers = await Promise.all(racers.map((racer) => racer.prepare(rebuilt(history), startAt)));
      await Promise.all(racers.map((racer) => racer.stop()));

      const [first, ...others] = answers;
      for (const other of others) expect(sameJson(other.messages, first!.messages)).toBe(true);
      const summaries = answers.reduce((total, answer) => total + answer.summaries, 0);
      const dropped = answers
        .flatMap((answer) => answer.warnings)
        .filter((warning) => warning.includes('another process compacted the same history first'));
      expect(summaries).toBeGreaterThanOrEqual(2);
      expect(dropped).toHaveLength(summaries - 1);
      const opened = store.open();
      expect(await compactRecords(opened)).toHaveLength(1);
      await (opened as { close?: () => Promise<void> }).close?.();
    },
    60_000,
  );
});
