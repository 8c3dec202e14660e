/** The store contract's key cases: references both ways and keys refused before any I/O. */
import { expect, it } from 'vitest';
import { collectKeys } from '../../core/store/store-keys.js';
import { createUnsafeKeys, rejectionOf, type StoreContractContext } from './contract-helpers.js';

/** Registers the groups `references` and `key checks`. */
export function registerKeyCases(context: StoreContractContext): void {
  const { store: currentStore, root, key, group } = context;
  group('references', () => {
    it('maps a key to a reference and back', () => {
      const store = currentStore();
      for (const name of ['a.md', 'a/b/c.md', 'tool-result-x_1.md', '中文/😀.md', 'with space.md']) {
        const reference = store.referenceFor(key(name));
        expect(typeof reference).toBe('string');
        expect(store.keyFor(reference)).toBe(key(name));
      }
    });

    it('gives undefined for text that is not one of its references', () => {
      const store = currentStore();
      for (const text of [
        '',
        'plain words',
        '../outside.md',
        '/etc/passwd',
        'https://example.com/a.md',
        'C:\\x\\y.md',
      ]) {
        expect(store.keyFor(text)).toBeUndefined();
      }
      const reference = store.referenceFor(key('a/b.md'));
      expect(store.keyFor(`${reference}/../../../../../../../etc/passwd`)).toBeUndefined();
      expect(store.keyFor(`${reference}\u0000`)).toBeUndefined();
    });
  });

  group('key checks', () => {
    it('refuses unsafe keys with UNSAFE_PATH before any I/O', async () => {
      const store = currentStore();
      for (const unsafe of createUnsafeKeys(root())) {
        const calls: [string, () => Promise<unknown>][] = [
          ['putIfAbsent', () => store.putIfAbsent(unsafe, 'x')],
          ['putIfAbsent (parts)', () => store.putIfAbsent(unsafe, ['x'])],
          ['put', () => store.put(unsafe, 'x')],
          ['get', () => store.get(unsafe)],
          ['stat', () => store.stat(unsafe)],
          ['delete', () => store.delete(unsafe)],
        ];
        if (store.holds !== undefined) calls.push(['holds', () => store.holds!(unsafe, 'x')]);
        if (store.exists !== undefined) calls.push(['exists', () => store.exists!(unsafe)]);
        for (const [method, call] of calls) {
          const error = await rejectionOf(call);
          expect(error, `${method}(${JSON.stringify(unsafe)})`).toMatchObject({ code: 'UNSAFE_PATH' });
        }
        let thrown: unknown;
        try {
          store.referenceFor(unsafe);
        } catch (error) {
          thrown = error;
        }
        expect(thrown, `referenceFor(${JSON.stringify(unsafe)})`).toMatchObject({ code: 'UNSAFE_PATH' });
      }
      // whatever a sloppy driver made of those keys, it would hold this case's root id
      const id = root().slice('contract-'.length);
      expect((await collectKeys(store, '')).filter((written) => written.includes(id))).toEqual([]);
    });

    it('refuses unsafe list prefixes with UNSAFE_PATH', async () => {
      const store = currentStore();
      for (const prefix of ['../', '/abs/', 'a\\b', 'a//', '..', 'a\u0000']) {
        const error = await rejectionOf(() => collectKeys(store, prefix));
        expect(error, `list(${JSON.stringify(prefix)})`).toMatchObject({ code: 'UNSAFE_PATH' });
      }
    });
  });
}
