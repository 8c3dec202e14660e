import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/core/errors.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';
import { testStore } from '../../../src/testing/index.js';

testStore('memory store', () => createMemoryStore());

describe('createMemoryStore', () => {
  it('names its references memory://<name>/<key>, "default" unless told', () => {
    expect(createMemoryStore().referenceFor('s1/a.md')).toBe('memory://default/s1/a.md');
    const named = createMemoryStore({ name: 'worker-1' });
    expect(named.referenceFor('s1/a.md')).toBe('memory://worker-1/s1/a.md');
    expect(named.keyFor('memory://default/s1/a.md')).toBeUndefined();
  });

  it('refuses a name that is not one key segment', () => {
    for (const name of ['', 'a/b', '..', 'a\\b', 'a\u0000']) {
      expect(() => createMemoryStore({ name })).toThrow(InvalidOptionError);
    }
  });

  it('takes createdAt from the injected clock, and a rewrite takes a new one', async () => {
    let time = Date.UTC(2025, 0, 1);
    const store = createMemoryStore({ now: () => new Date(time) });
    await store.putIfAbsent('a.md', 'x');
    time += 1_000;
    await store.putIfAbsent('a.md', 'x');
    expect((await store.stat('a.md'))?.createdAt.toISOString()).toBe('2025-01-01T00:00:00.000Z');
    await store.put('a.md', 'y');
    expect((await store.stat('a.md'))?.createdAt.toISOString()).toBe('2025-01-01T00:00:01.000Z');
  });

  it('does not let a caller change a stored time through the Date it returned', async () => {
    const store = createMemoryStore({ now: () => new Date(0) });
    await store.put('a.md', 'x');
    (await store.stat('a.md'))?.createdAt.setTime(5);
    expect((await store.stat('a.md'))?.createdAt.getTime()).toBe(0);
  });

  it('stores a lone surrogate as U+FFFD, as a UTF-8 backend reads it back', async () => {
    const store = createMemoryStore();
    await store.putIfAbsent('a.md', 'x\ud83d');
    expect(await store.get('a.md')).toBe('x\ufffd');
    expect((await store.stat('a.md'))?.size).toBe(4);
    expect(await store.putIfAbsent('a.md', 'x\ud83d')).toBe('identical');
    expect(await store.holds?.('a.md', 'x\ud83d')).toBe(true);
  });
});
