/**
 * The Redis store against what a shared, busy or badly set server does, on a real
 * `redis-server` this file starts: a reused id and compaction archives in a database full of
 * other keys, a foreign key
 * of another type at a planned name, an evicting `maxmemory-policy`, a full server. Skipped, with the reason printed, where no
 * redis-server exists.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import { pruneOffloaded } from '../../../src/api/prune.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import { archiveRest } from '../../../src/core/compact/persist.js';
import type { Message } from '../../../src/core/types.js';
import { createRedisStore, type RedisLike } from '../../../src/stores/redis-store.js';
import { createRecordingLogger } from '../../fixtures/compact-fixtures.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const skipReason = redisSuiteSkipReason('Redis store faults (tests/integration/stores/redis-store-faults.test.ts)');

/** A history of one tool call per entry of `results` (id → content), each large enough to offload. */
function historyWith(results: Record<string, string>): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'go' }];
  for (const [id, content] of Object.entries(results)) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'run', input: {} }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] });
  }
  return messages;
}

const OFFLOAD = { charThreshold: 100, ratioThreshold: 0 } as const;

/** The calls of `command` the server has counted since its last `CONFIG RESETSTAT`. */
async function countCalls(client: Redis, command: string): Promise<number> {
  const stats = await client.info('commandstats');
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats);
  return match === null ? 0 : Number(match[1]);
}

describe.skipIf(skipReason !== undefined)('the Redis store on a shared, busy or badly set server', () => {
  let server: RedisServer;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
  });

  afterAll(async () => {
    await client?.quit();
    await server?.stop();
  });

  afterEach(async () => {
    await client.flushall();
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    await client.config('SET', 'maxmemory', '0');
  });

  /** 20,000 keys of someone else's in the same database. */
  async function fillWithOtherKeys(): Promise<void> {
    for (let batch = 0; batch < 20; batch++) {
      await client.mset(...Array.from({ length: 1000 }, (_, index) => [`other:${batch}:${index}`, 'x']).flat());
    }
  }

  describe('a reused id', () => {
    it('finds the next free name without scanning, among 20,000 unrelated keys', async () => {
      await fillWithOtherKeys();
      const store = createRedisStore({ client, prefix: 'reuse', logger: createRecordingLogger() });
      const first = await offloadToolResults(historyWith({ call_0: 'first '.repeat(50) }), { store, ...OFFLOAD });
      const second = await offloadToolResults(historyWith({ call_0: 'second '.repeat(50) }), { store, ...OFFLOAD });
      await client.config('RESETSTAT');
      const third = await offloadToolResults(historyWith({ call_0: 'third '.repeat(50) }), { store, ...OFFLOAD });
      const again = await offloadToolResults(historyWith({ call_0: 'second '.repeat(50) }), { store, ...OFFLOAD });

      expect([first.files, second.files, third.files, again.files]).toEqual([
        ['redis://reuse/tool-result-call_0.md'],
        ['redis://reuse/tool-result-call_0-1.md'],
        ['redis://reuse/tool-result-call_0-2.md'],
        ['redis://reuse/tool-result-call_0-1.md'],
      ]);
      expect(await countCalls(client, 'scan')).toBe(0);
      expect(await countCalls(client, 'keys')).toBe(0);
    });
  });

  describe('compaction archives', () => {
    const history: Message[] = [
      { role: 'user', content: 'Fix the failing invoice test.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { command: 'npm test' } }],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: 'FAIL tests/invoice.test.ts\nexpected 10.01, got 10',
          },
        ],
      },
      { role: 'assistant', content: 'The rounding is off by one cent; fixing it now.' },
    ];

    it('are named without scanning, among 20,000 unrelated keys', async () => {
      await fillWithOtherKeys();
      const store = createRedisStore({ client, prefix: 'archives', logger: createRecordingLogger() });
      const options = {
        store,
        sessionId: 's1',
        force: true,
        summarizer: { summarize: async () => 'The rounding was fixed.' },
        logger: createRecordingLogger(),
      };
      const first = await compactMessages(history, options);
      await client.config('RESETSTAT');
      const second = await compactMessages(history.slice(0, 3), options);

      expect([first.compacted, second.compacted]).toEqual([true, true]);
      expect(second.originalMessagesPath).toMatch(
        /^redis:\/\/archives\/s1\/compact-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-\d+\.json$/,
      );
      expect(second.originalMessagesPath).not.toBe(first.originalMessagesPath);
      expect(await countCalls(client, 'scan')).toBe(0);
      expect(await countCalls(client, 'keys')).toBe(0);
      expect(await countCalls(client, 'exists')).toBeGreaterThan(0);
    });

    it('are numbered from 1 within their second, each name asked about with EXISTS', async () => {
      await fillWithOtherKeys();
      const store = createRedisStore({ client, prefix: 'archives', logger: createRecordingLogger() });
      const options = {
        store,
        sessionId: 's1',
        logger: createRecordingLogger(),
        now: () => new Date('2026-11-21T23:45:12.789Z'),
      };
      await client.config('RESETSTAT');
      const paths = [];
      for (const rest of [history, history.slice(1), history.slice(2)])
        paths.push((await archiveRest(rest, options)).path);

      expect(paths).toEqual(
        [1, 2, 3].map((sequence) => `redis://archives/s1/compact-2026-11-21T23-45-12Z-${sequence}.json`),
      );
      expect(JSON.parse((await store.get('s1/compact-2026-11-21T23-45-12Z-2.json')) ?? '')).toEqual(history.slice(1));
      expect(await countCalls(client, 'scan')).toBe(0);
    });
  });

  describe('a foreign key of another type at a planned name', () => {
    it('is a taken name: the content goes to the next one', async () => {
      await client.rpush('ag/tool-result-b.md', 'x');
      const store = createRedisStore({ client, prefix: 'ag', logger: createRecordingLogger() });
      const result = await offloadToolResults(historyWith({ a: 'a'.repeat(300), b: 'b'.repeat(300) }), {
        store,
        ...OFFLOAD,
      });
      expect(result.files).toEqual(['redis://ag/tool-result-a.md', 'redis://ag/tool-result-b-1.md']);
      expect(await client.lrange('ag/tool-result-b.md', 0, -1)).toEqual(['x']);
    });

    it('is skipped by prune with a warning, and the rest is pruned', async () => {
      await client.rpush('ag/tool-result-b.md', 'x');
      const logger = createRecordingLogger();
      const store = createRedisStore({ client, prefix: 'ag', logger });
      await store.putIfAbsent('tool-result-a.md', 'old');
      const result = await pruneOffloaded({ store, olderThanMs: 0, now: () => new Date(Date.now() + 60_000) });
      expect(result.removed.map((entry) => entry.key)).toEqual(['tool-result-a.md']);
      expect(await client.type('ag/tool-result-b.md')).toBe('list');
      expect(logger.warnings).toContainEqual(
        'Redis store: skipped redis://ag/tool-result-b.md: it holds a list, not a value this store wrote',
      );
    });

    it('is read by the read tool as no content, and held by nothing', async () => {
      await client.hset('ag/tool-result-h.md', 'field', 'value');
      const store = createRedisStore({ client, prefix: 'ag', logger: createRecordingLogger() });
      expect(await store.holds('tool-result-h.md', 'value')).toBe(false);
      expect(await store.exists('tool-result-h.md')).toBe(true);
      expect(await createReadOffloadedTool({ store }).execute({ ref: 'redis://ag/tool-result-h.md' })).toMatch(
        /^No offloaded content at "redis:\/\/ag\/tool-result-h\.md"/,
      );
    });
  });

  describe('maxmemory-policy', () => {
    it.each([
      ['allkeys-lru', undefined, 'any key'],
      ['volatile-lru', 600, "keys with an expiry, such as this store's (ttlSeconds)"],
    ])('warns once when the server may evict entries (%s, ttlSeconds %s)', async (policy, ttlSeconds, what) => {
      await client.config('SET', 'maxmemory-policy', policy);
      const logger = createRecordingLogger();
      // the policy is asked beside the first call: its warning arrives on its own time
      const warned = new Promise<void>((resolve) => {
        const warn = logger.warn.bind(logger);
        logger.warn = (message) => (warn(message), resolve());
      });
      const store = createRedisStore({ client, prefix: 'evict', ttlSeconds, logger });
      await store.putIfAbsent('tool-result-a.md', 'a');
      await store.putIfAbsent('tool-result-b.md', 'b');
      await store.get('tool-result-a.md');
      await warned;
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toContain(
        `Redis store redis://evict/: the server's maxmemory-policy is ${policy}: when memory is full it deletes ${what}`,
      );
      expect(logger.warnings[0]).toContain('Set maxmemory-policy noeviction');
    });

    it.each([
      ['noeviction', 600],
      ['volatile-lru', undefined],
    ])('says nothing when the policy keeps the entries (%s, ttlSeconds %s)', async (policy, ttlSeconds) => {
      await client.config('SET', 'maxmemory-policy', policy);
      const logger = createRecordingLogger();
      const calls: string[] = [];
      const counting: RedisLike = { call: (command, ...args) => (calls.push(command), client.call(command, ...args)) };
      const store = createRedisStore({ client: counting, prefix: 'keep', ttlSeconds, logger });
      await store.putIfAbsent('tool-result-a.md', 'a');
      await store.get('tool-result-a.md');
      expect(calls.filter((command) => command === 'CONFIG')).toHaveLength(1);
      expect(logger.warnings).toEqual([]);
    });

    it('stays quiet when the server refuses CONFIG, as managed services do', async () => {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const logger = createRecordingLogger();
      const refusing: RedisLike = {
        call: (command, ...args) =>
          command === 'CONFIG'
            ? Promise.reject(new Error("ERR unknown command 'CONFIG'"))
            : client.call(command, ...args),
      };
      const store = createRedisStore({ client: refusing, prefix: 'managed', logger });
      expect(await store.putIfAbsent('tool-result-a.md', 'a')).toBe('created');
      expect(await store.get('tool-result-a.md')).toBe('a');
      expect(logger.warnings).toEqual([]);
    });
  });

  describe('a full server (maxmemory reached, noeviction)', () => {
    /** Fills the server up to its limit with unrelated keys: large ones, then small ones (a large command's own buffer counts while it runs). */
    async function fillServer(): Promise<void> {
      const used = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
      await client.config('SET', 'maxmemory', String(used + 2 * 1024 * 1024));
      let index = 0;
      for (const size of [64 * 1024, 256]) {
        for (let full = false; !full; index++) {
          full = await client.set(`filler:${index}`, 'f'.repeat(size)).then(
            () => false,
            (error: unknown) => String(error).includes('OOM'),
          );
        }
      }
    }

    it("answers 'identical' for content already stored", async () => {
      const store = createRedisStore({ client, prefix: 'full', logger: createRecordingLogger() });
      const content = 'stored before the server filled up '.repeat(20);
      expect(await store.putIfAbsent('tool-result-a.md', content)).toBe('created');
      await fillServer();
      expect(await store.putIfAbsent('tool-result-a.md', content)).toBe('identical');
      expect(await store.putIfAbsent('tool-result-a.md', 'other content')).toBe('exists');
    });

    it('fails a write of new content with WRITE_FAILED naming the OOM', async () => {
      const store = createRedisStore({ client, prefix: 'full', logger: createRecordingLogger() });
      await fillServer();
      await expect(store.putIfAbsent('tool-result-new.md', 'new content '.repeat(1000))).rejects.toMatchObject({
        code: 'WRITE_FAILED',
        message: expect.stringContaining('OOM'),
      });
    });

    it('reuses identical content for a reused id through batch offload', async () => {
      const store = createRedisStore({ client, prefix: 'full', logger: createRecordingLogger() });
      const history = historyWith({ call_0: 'the same result '.repeat(40) });
      const before = await offloadToolResults(history, { store, ...OFFLOAD });
      await fillServer();
      const after = await offloadToolResults(history, { store, ...OFFLOAD });
      expect(after.files).toEqual(before.files);
    });
  });
});
