/**
 * The Redis store through an outage of its server, with the client it makes from a URL: calls
 * fail at once while the server is down, and the store makes a new client once the old one has
 * given up reconnecting, so the store recovers when the server is back. The wait is real: the
 * client gives up on its own retry timers (about 1.2 s), which no option of the store shortens;
 * so this file runs with `npm run test:processes`, not `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../../../src/stores/redis-store.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const skipReason = redisSuiteSkipReason('Redis store outage (tests/integration/stores/redis-outage.test.ts)');

describe.skipIf(skipReason !== undefined)('createRedisStore through an outage of redis-server', () => {
  it('fails with WRITE_FAILED when the server goes away, and recovers when it is back (a client made from a URL)', async () => {
    const own = await startRedisServer();
    const store = createRedisStore({ url: own.url, prefix: 'restart' });
    let restarted: RedisServer | undefined;
    try {
      expect(await store.putIfAbsent('a.md', 'x')).toBe('created');
      await own.stop();
      const started = Date.now();
      await expect(store.putIfAbsent('b.md', 'y')).rejects.toMatchObject({ code: 'WRITE_FAILED' });
      expect(Date.now() - started).toBeLessThan(2_000);
      // long enough for the client to give up reconnecting (about 1.2 s): the store makes a new one
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await expect(store.get('a.md')).rejects.toMatchObject({ code: 'READ_FAILED' });
      restarted = await startRedisServer({ port: own.port });
      let outcome: unknown;
      for (let attempt = 0; attempt < 50 && outcome === undefined; attempt++) {
        outcome = await store.putIfAbsent('b.md', 'y').catch(() => new Promise((resolve) => setTimeout(resolve, 100)));
      }
      expect(outcome).toBe('created');
    } finally {
      await store.close();
      await restarted?.stop();
    }
  });
});
