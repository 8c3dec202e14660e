/**
 * Compaction archives in a Redis store, on a real `redis-server` this file starts, in a
 * database that holds many unrelated keys: choosing the archive's name asks about that name
 * alone (`EXISTS`), never walks the keyspace (`SCAN`, `KEYS`). Skipped, with the reason
 * printed, where no redis-server exists.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { archiveRest } from '../../../src/core/compact/persist.js';
import type { Message } from '../../../src/core/types.js';
import { createRedisStore } from '../../../src/stores/redis-store.js';
import { createRecordingLogger } from '../../unit/compact-fixtures.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const skipReason = redisSuiteSkipReason('Redis compaction archives (tests/integration/stores/redis-compact-archive.test.ts)');

/** The calls of `command` the server has counted since its last `CONFIG RESETSTAT`. */
async function countCalls(client: Redis, command: string): Promise<number> {
  const stats = await client.info('commandstats');
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats);
  return match === null ? 0 : Number(match[1]);
}

const history: Message[] = [
  { role: 'user', content: 'Fix the failing invoice test.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { command: 'npm test' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'FAIL tests/invoice.test.ts\nexpected 10.01, got 10' }] },
  { role: 'assistant', content: 'The rounding is off by one cent; fixing it now.' },
];

describe.skipIf(skipReason !== undefined)('compaction archives in a Redis store among many unrelated keys', () => {
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
  });

  /** 20,000 keys of someone else's in the same database. */
  async function fillWithOtherKeys(): Promise<void> {
    for (let batch = 0; batch < 20; batch++) {
      await client.mset(...Array.from({ length: 1000 }, (_, index) => [`other:${batch}:${index}`, 'x']).flat());
    }
  }

  it('compacts without scanning the database', async () => {
    await fillWithOtherKeys();
    const store = createRedisStore({ client, prefix: 'archives', logger: createRecordingLogger() });
    const options = { store, sessionId: 's1', force: true, summarizer: { summarize: async () => 'The rounding was fixed.' }, logger: createRecordingLogger() };
    const first = await compactMessages(history, options);
    await client.config('RESETSTAT');
    const second = await compactMessages(history.slice(0, 3), options);

    expect([first.compacted, second.compacted]).toEqual([true, true]);
    expect(second.originalMessagesPath).toMatch(/^redis:\/\/archives\/s1\/compact-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-\d+\.json$/);
    expect(second.originalMessagesPath).not.toBe(first.originalMessagesPath);
    expect(await countCalls(client, 'scan')).toBe(0);
    expect(await countCalls(client, 'keys')).toBe(0);
    expect(await countCalls(client, 'exists')).toBeGreaterThan(0);
  });

  it('numbers the archives of one second from 1, each asked about by name', async () => {
    await fillWithOtherKeys();
    const store = createRedisStore({ client, prefix: 'archives', logger: createRecordingLogger() });
    const options = { store, sessionId: 's1', logger: createRecordingLogger(), now: () => new Date('2026-11-21T23:45:12.789Z') };
    await client.config('RESETSTAT');
    const paths = [];
    for (const rest of [history, history.slice(1), history.slice(2)]) paths.push((await archiveRest(rest, options)).path);

    expect(paths).toEqual([1, 2, 3].map((sequence) => `redis://archives/s1/compact-2026-11-21T23-45-12Z-${sequence}.json`));
    expect(JSON.parse((await store.get('s1/compact-2026-11-21T23-45-12Z-2.json')) ?? '')).toEqual(history.slice(1));
    expect(await countCalls(client, 'scan')).toBe(0);
  });
});
