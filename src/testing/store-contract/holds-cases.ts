/** The store contract's holds cases: holds and exists agree with get. */
import { expect, it } from 'vitest';
import type { StoreContractContext } from './contract-helpers.js';

/** Registers the group `holds`. */
export function registerHoldsCases(context: StoreContractContext): void {
  const { store: currentStore, key, group } = context;
  group('holds', () => {
    it('agrees with get', async () => {
      const store = currentStore();
      // Optional on the port, but without it batch offload tries each taken name with a
      // write: a driver leaves it out only on purpose, with skip: ['holds'].
      const holds = store.holds?.bind(store);
      if (holds === undefined) throw new Error('holds is not implemented (pass skip: ["holds"] to leave it out)');
      await store.putIfAbsent(key('h.md'), 'held é😀');
      expect(await holds(key('h.md'), 'held é😀')).toBe(true);
      expect(await holds(key('h.md'), 'held é😀 ')).toBe(false);
      expect(await holds(key('h.md'), 'held e😀')).toBe(false);
      expect(await holds(key('h.md'), 'held é😁')).toBe(false); // same size, last byte differs
      expect(await holds(key('h.md'), '')).toBe(false);
      expect(await holds(key('missing.md'), '')).toBe(false);
      expect(await holds(key('missing.md'), 'held é😀')).toBe(false);
      await store.put(key('h.md'), 'changed');
      expect(await holds(key('h.md'), 'changed')).toBe(true);
      expect(await holds(key('h.md'), 'held é😀')).toBe(false);
    });

    it('exists agrees with get, where the store has it', async () => {
      const store = currentStore();
      const exists = store.exists?.bind(store);
      if (exists === undefined) return;
      await store.putIfAbsent(key('e.md'), '');
      expect(await exists(key('e.md'))).toBe(true);
      expect(await exists(key('missing.md'))).toBe(false);
      await store.delete(key('e.md'));
      expect(await exists(key('e.md'))).toBe(false);
    });
  });
}
