/**
 * Without ioredis installed, a Redis store given a `client` works (it never imports ioredis),
 * and one given a `url` rejects each call with MISSING_DEPENDENCY saying what to install. The
 * package is made unloadable with a module mock that fails as a missing package does.
 */
import { describe, expect, it, vi } from 'vitest';
import { createRedisStore } from '../../../src/stores/redis-store.js';

vi.mock('ioredis', () => {
  throw Object.assign(new Error("Cannot find package 'ioredis' imported from src/stores/redis-store.ts"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});

describe('createRedisStore without ioredis installed', () => {
  it('creates a store from a url without importing anything, and each call rejects with MISSING_DEPENDENCY', async () => {
    const store = createRedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'offload' });
    const error = await store.putIfAbsent('a.md', 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'MISSING_DEPENDENCY',
      message: expect.stringContaining('npm install ioredis'),
    });
    expect((error as Error).cause).toBeDefined();
    await expect(store.get('a.md')).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
    await store.close();
  });

  it('works with a client passed in, which needs no ioredis', async () => {
    const values = new Map<string, string>();
    const call = async (command: string, ...args: Array<string | number>): Promise<unknown> => {
      const [key, value] = args.map(String) as [string, string];
      if (command === 'SET') {
        const previous = values.get(key) ?? null;
        if (previous === null) values.set(key, value);
        return previous;
      }
      if (command === 'GET') return values.get(key) ?? null;
      throw new Error(`unexpected ${command}`);
    };
    const store = createRedisStore({ client: { call }, prefix: 'offload' });
    expect(await store.putIfAbsent('a.md', 'x')).toBe('created');
    expect(await store.putIfAbsent('a.md', 'x')).toBe('identical');
    expect(await store.get('a.md')).toBe('x');
  });
});
