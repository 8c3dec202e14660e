/** The store contract's listing cases: list by prefix and delete. */
import { beforeEach, expect, it } from 'vitest';
import { collectKeys } from '../../core/store/store-keys.js';
import type { StoreContractContext } from './contract-helpers.js';

/** Registers the groups `list` and `delete`. */
export function registerListingCases(context: StoreContractContext): void {
  const { store: currentStore, root, key, group } = context;
  group('list', () => {
    const names = ['a/x.md', 'a/b/c.md', 'a/b/d/e.md', 'ab/y.md', 'a.md', 'b.md'];

    beforeEach(async () => {
      const store = currentStore();
      for (const name of names) await store.putIfAbsent(key(name), name);
    });

    it('lists exactly the keys under a prefix ending in "/", nested ones included', async () => {
      const store = currentStore();
      expect((await collectKeys(store, key('a/'))).sort()).toEqual([key('a/b/c.md'), key('a/b/d/e.md'), key('a/x.md')]);
      expect((await collectKeys(store, key('a/b/'))).sort()).toEqual([key('a/b/c.md'), key('a/b/d/e.md')]);
      expect((await collectKeys(store, `${root()}/`)).sort()).toEqual(names.map((name) => key(name)).sort());
    });

    it('lists every key starting with a prefix without "/"', async () => {
      const store = currentStore();
      expect((await collectKeys(store, key('a'))).sort()).toEqual(
        [key('a.md'), key('a/b/c.md'), key('a/b/d/e.md'), key('a/x.md'), key('ab/y.md')].sort(),
      );
      expect(await collectKeys(store, key('a/b/c.md'))).toEqual([key('a/b/c.md')]);
    });

    it('lists every key for the prefix ""', async () => {
      const store = currentStore();
      const all = await collectKeys(store, '');
      for (const name of names) expect(all).toContain(key(name));
    });

    it('lists nothing under a prefix no key has', async () => {
      const store = currentStore();
      expect(await collectKeys(store, key('none/'))).toEqual([]);
      expect(await collectKeys(store, key('z'))).toEqual([]);
    });
  });

  group('delete', () => {
    it('removes a value, and is idempotent', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('d.md'), 'x');
      await store.delete(key('d.md'));
      expect(await store.get(key('d.md'))).toBeUndefined();
      expect(await store.stat(key('d.md'))).toBeUndefined();
      expect(await collectKeys(store, `${root()}/`)).toEqual([]);
      await store.delete(key('d.md'));
      await store.delete(key('never', 'there.md'));
      expect(await store.putIfAbsent(key('d.md'), 'y')).toBe('created');
    });

    it('removes only that key', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('d.md'), 'x');
      await store.putIfAbsent(key('d.md2'), 'y');
      await store.putIfAbsent(key('d', 'e.md'), 'z');
      await store.delete(key('d.md'));
      expect((await collectKeys(store, `${root()}/`)).sort()).toEqual([key('d.md2'), key('d/e.md')]);
    });
  });
}
