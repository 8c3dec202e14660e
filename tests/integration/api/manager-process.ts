/**
 * One process of tests/integration/api/context-manager-processes.test.ts: a server that prepares
 * histories with `createContextManager` over a shared file or Redis store, run as its own
 * `node --import tsx` process (from the sources, nothing built).
 *
 * argv[2]: JSON settings `{ store, sessionId, contextTokenLimit, label, summaryDelayMs, perRequest }`:
 * `store` is `{ kind: 'file', dir }` or `{ kind: 'redis', url, prefix }`; `perRequest` makes a
 * new manager for every request (a route handler), else one manager serves every request (a
 * worker of a pool). Protocol: prints `ready`, then reads one JSON request per stdin line
 * `{ id, history, startAt? }` (waits until `startAt`, epoch ms, when given) and prints one JSON
 * line per request `{ id, messages, actions, summaries, warnings }`. Exits 0 when stdin ends.
 */
import process from 'node:process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createContextManager } from '../../../src/api/context-manager.js';
import type { ContentStore } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import { createRedisStore, type RedisStore } from '../../../src/stores/redis-store.js';

interface Settings {
  store: { kind: 'file'; dir: string } | { kind: 'redis'; url: string; prefix: string };
  sessionId: string;
  contextTokenLimit: number;
  label: string;
  summaryDelayMs: number;
  perRequest: boolean;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
const store: ContentStore | RedisStore =
  settings.store.kind === 'file'
    ? createFileStore({ dir: settings.store.dir })
    : createRedisStore({ url: settings.store.url, prefix: settings.store.prefix });

let summaries = 0;
const warnings: string[] = [];
const summarizer = {
  async summarize(messages: readonly Message[]): Promise<string> {
    summaries += 1;
    // long enough that processes started together are all summarizing at once
    await sleep(settings.summaryDelayMs);
    return `Summary by ${settings.label} of ${messages.length} messages: the agent read the logs, found the timeout and fixed it.`;
  },
};

const createManager = () =>
  createContextManager({
    store,
    sessionId: settings.sessionId,
    contextTokenLimit: settings.contextTokenLimit,
    summarizer,
    logger: { warn: (message) => void warnings.push(message) },
  });
const shared = settings.perRequest ? undefined : createManager();

interface Request {
  id: number;
  history: Message[];
  startAt?: number;
}

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const request = JSON.parse(line) as Request;
  if (request.startAt !== undefined) await sleep(Math.max(0, request.startAt - Date.now()));
  const manager = shared ?? createManager();
  const before = summaries;
  warnings.length = 0;
  const result = await manager.prepare(request.history);
  process.stdout.write(
    `${JSON.stringify({ id: request.id, messages: result.messages, actions: result.actions.map((action) => action.type), summaries: summaries - before, warnings })}\n`,
  );
}
if (settings.store.kind === 'redis') await (store as RedisStore).close();
