/**
 * The Redis store against a real `redis-server` this file starts on a free 127.0.0.1 port:
 * the ContentStore contract suite (with an ioredis client, with a client made from a URL, and
 * with a client that has only `call`, so range reads go through the server-side script), then
 * what only Redis has: expiry, glob characters in a prefix, prefixes kept apart, the value
 * layout, an unreachable server. Skipped, with the reason printed, where no redis-server exists.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectKeys } from '../../../src/core/store/store-keys.js';
import type { ContentStore } from '../../../src/core/ports.js';
import { createRedisStore, type RedisLike, type RedisStore } from '../../../src/stores/redis-store.js';
import { testStore } from '../../../src/testing/index.js';
import { createRecordingLogger } from '../../fixtures/compact-fixtures.js';
import { findFreePort, redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const skipReason = redisSuiteSkipReason('Redis store (tests/integration/stores/redis-store.test.ts)');

describe.skipIf(skipReason !== undefined)('createRedisStore against redis-server', () => {
  let server: RedisServer;
  let client: Redis;
  /** A port nothing listens on: taken free, never bound. */
  let closedPort: number;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
    closedPort = await findFreePort();
  });

  afterAll(async () => {
    await client?.quit();
    await server?.stop();
  });

  const failingStore = (): RedisStore =>
    createRedisStore({ url: `redis://127.0.0.1:${closedPort}`, prefix: 'failing' });
  const dispose = async (store: ContentStore): Promise<void> => {
    await (store as RedisStore).close();
  };

  testStore('redis (ioredis client)', () => createRedisStore({ client, prefix: 'contract' }), {
    createFailingStore: failingStore,
    disposeStore: dispose,
  });

  testStore('redis (url)', () => createRedisStore({ url: server.url, prefix: 'contract-url', ttlSeconds: 600 }), {
    createFailingStore: failingStore,
    disposeStore: dispose,
    largeValueBytes: 1024 * 1024,
  });

  // node-redis and others fit through an adapter with `call` alone: no byte replies
  testStore(
    'redis (a client with call only)',
    () =>
      createRedisStore({
        client: { call: (command, ...args) => client.call(command, ...args) },
        prefix: 'contract-call',
      }),
    {
      largeValueBytes: 1024 * 1024,
    },
  );

  describe('Redis specifics', () => {
    let store: RedisStore;
    let prefix: string;

    beforeAll(() => {
      prefix = `specifics-${Date.now().toString(36)}`;
      store = createRedisStore({ client, prefix });
    });

    afterAll(async () => {
      for (const key of await collectKeys(store, '')) await store.delete(key);
    });

    it('stores an entry under <prefix>/<key>, its value a created-at header then the content', async () => {
      expect(await store.putIfAbsent('s1/a.md', 'hello é')).toBe('created');
      const raw = await client.get(`${prefix}/s1/a.md`);
      expect(raw).toMatch(/^created-at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\nhello é$/);
      expect(store.referenceFor('s1/a.md')).toBe(`redis://${prefix}/s1/a.md`);
      expect(await client.ttl(`${prefix}/s1/a.md`)).toBe(-1);
    });

    it('sets the expiry on putIfAbsent and put when ttlSeconds is given, and keeps it on identical reuse', async () => {
      const expiring = createRedisStore({ client, prefix: `${prefix}-ttl`, ttlSeconds: 120 });
      try {
        expect(await expiring.putIfAbsent('t.md', 'x')).toBe('created');
        const ttl = await client.ttl(`${prefix}-ttl/t.md`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(120);
        await client.expire(`${prefix}-ttl/t.md`, 50);
        expect(await expiring.putIfAbsent('t.md', 'x')).toBe('identical');
        expect(await client.ttl(`${prefix}-ttl/t.md`)).toBeLessThanOrEqual(50);
        await expiring.put('p.md', 'y');
        expect(await client.ttl(`${prefix}-ttl/p.md`)).toBeGreaterThan(50);
      } finally {
        await client.del(`${prefix}-ttl/t.md`, `${prefix}-ttl/p.md`);
      }
    });

    it('lists a prefix with glob characters as it is, not as a pattern', async () => {
      const globPrefix = `${prefix}-g*l?o[b]^`;
      const glob = createRedisStore({ client, prefix: globPrefix });
      // keys a pattern would match if the prefix were not escaped
      await client.set(`${prefix}-gXlYob^/decoy.md`, 'x');
      await client.set(`${prefix}-g-many-lZo${'b'}^/decoy.md`, 'x');
      try {
        await glob.putIfAbsent('a*.md', 'star');
        await glob.putIfAbsent('b?/c[1].md', 'brackets');
        await glob.putIfAbsent('plain.md', 'plain');
        expect((await collectKeys(glob, '')).sort()).toEqual(['a*.md', 'b?/c[1].md', 'plain.md']);
        expect(await collectKeys(glob, 'a*')).toEqual(['a*.md']);
        expect(await collectKeys(glob, 'b?/')).toEqual(['b?/c[1].md']);
        expect(await collectKeys(glob, 'b?/c[')).toEqual(['b?/c[1].md']);
        expect(await collectKeys(glob, 'b')).toEqual(['b?/c[1].md']);
        expect(await glob.get('b?/c[1].md')).toBe('brackets');
        expect(glob.keyFor(glob.referenceFor('b?/c[1].md'))).toBe('b?/c[1].md');
      } finally {
        for (const key of await collectKeys(glob, '')) await glob.delete(key);
        await client.del(`${prefix}-gXlYob^/decoy.md`, `${prefix}-g-many-lZob^/decoy.md`);
      }
    });

    it('keeps stores with other prefixes apart: nothing listed, read or referenced across', async () => {
      const first = createRedisStore({ client, prefix: `${prefix}-one` });
      const second = createRedisStore({ client, prefix: `${prefix}-two` });
      const longer = createRedisStore({ client, prefix: `${prefix}-one-more` });
      try {
        await first.putIfAbsent('shared.md', 'from the first');
        await longer.putIfAbsent('x.md', 'from the longer prefix');
        expect(await collectKeys(second, '')).toEqual([]);
        expect(await collectKeys(first, '')).toEqual(['shared.md']);
        expect(await second.get('shared.md')).toBeUndefined();
        expect(await second.stat('shared.md')).toBeUndefined();
        expect(await second.putIfAbsent('shared.md', 'from the second')).toBe('created');
        expect(await first.get('shared.md')).toBe('from the first');
        expect(second.keyFor(first.referenceFor('shared.md'))).toBeUndefined();
        expect(first.keyFor(longer.referenceFor('x.md'))).toBeUndefined();
        expect(first.keyFor(`redis://${prefix}-one`)).toBeUndefined();
        expect(first.keyFor(`redis://${prefix}-one/`)).toBeUndefined();
      } finally {
        await Promise.all([first.delete('shared.md'), second.delete('shared.md'), longer.delete('x.md')]);
      }
    });

    it('reads a value written under the prefix by other means as READ_FAILED, stats it as none with a warning, and never overwrites it', async () => {
      await client.set(`${prefix}/foreign.md`, 'no header');
      const logger = createRecordingLogger();
      const store = createRedisStore({ client, prefix, logger });
      try {
        await expect(store.get('foreign.md')).rejects.toMatchObject({ code: 'READ_FAILED' });
        expect(await store.stat('foreign.md')).toBeUndefined();
        expect(logger.warnings).toEqual([
          `Redis store: skipped redis://${prefix}/foreign.md: its value has no "created-at=" header, so this store did not write it`,
        ]);
        expect(await store.putIfAbsent('foreign.md', 'no header')).toBe('exists');
        expect(await store.holds('foreign.md', 'no header')).toBe(false);
        expect(await client.get(`${prefix}/foreign.md`)).toBe('no header');
      } finally {
        await client.del(`${prefix}/foreign.md`);
      }
    });

    it('reuses content with a lone surrogate, as Redis stores it (U+FFFD)', async () => {
      expect(await store.putIfAbsent('lone.md', 'a\ud800b')).toBe('created');
      expect(await store.get('lone.md')).toBe('a\ufffdb');
      expect(await store.putIfAbsent('lone.md', 'a\ud800b')).toBe('identical');
      expect(await store.holds('lone.md', 'a\ud800b')).toBe(true);
    });

    it('checks its options before anything happens', () => {
      expect(() => createRedisStore({ prefix: 'x' })).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          message: expect.stringContaining('exactly one of client and url'),
        }),
      );
      expect(() => createRedisStore({ client, url: server.url, prefix: 'x' })).toThrow(
        /exactly one of client and url, got both/,
      );
      expect(() => createRedisStore({ client: {} as RedisLike, prefix: 'x' })).toThrow(/call\(command, \.\.\.args\)/);
      expect(() => createRedisStore({ url: 'http://localhost', prefix: 'x' })).toThrow(/redis:\/\/ or rediss:\/\//);
      for (const prefix of ['', '/x', 'x/', 'a/../b', 'a\\b', 'a\u0000']) {
        expect(() => createRedisStore({ client, prefix })).toThrow(
          expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(/^prefix /) }),
        );
      }
      for (const ttlSeconds of [0, -1, 1.5, Number.NaN]) {
        expect(() => createRedisStore({ client, prefix: 'x', ttlSeconds })).toThrow(
          /ttlSeconds must be a positive integer/,
        );
      }
    });

    it('fails with WRITE_FAILED and the connection error as cause when the server cannot be reached, not waiting to reconnect', async () => {
      const unreachable = createRedisStore({ url: `redis://127.0.0.1:${closedPort}`, prefix: 'unreachable' });
      try {
        const error = await unreachable.putIfAbsent('a.md', 'x').catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          code: 'WRITE_FAILED',
          message: expect.stringContaining(`127.0.0.1:${closedPort}`),
        });
        expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
        // each call tries again, and fails the same way rather than waiting for a reconnection
        await expect(unreachable.get('a.md')).rejects.toMatchObject({ code: 'READ_FAILED' });
      } finally {
        await unreachable.close();
      }
    });
  });
});
