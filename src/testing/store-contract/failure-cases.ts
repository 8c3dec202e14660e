/** The store contract's failure cases: an unreachable backend's errors and their cause. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ContentStore } from '../../core/ports.js';
import { collectKeys } from '../../core/store/store-keys.js';
import { rejectionOf, type StoreContractContext } from './contract-helpers.js';

/** Registers the group `unreachable backend` when `options.createFailingStore` is given. */
export function registerFailureCases(context: StoreContractContext): void {
  const { root, key, group, options } = context;
  const createFailingStore = options.createFailingStore;
  if (createFailingStore !== undefined) {
    group('unreachable backend', () => {
      let failing: ContentStore;
      beforeEach(async () => {
        failing = await createFailingStore();
      });
      afterEach(async () => {
        await options.disposeStore?.(failing);
      });

      it('rejects every write with WRITE_FAILED and the backend error as cause', async () => {
        const writes: [string, () => Promise<unknown>][] = [
          ['putIfAbsent', () => failing.putIfAbsent(key('w.md'), 'x')],
          ['putIfAbsent (parts)', () => failing.putIfAbsent(key('w.md'), ['x', 'y'])],
          ['put', () => failing.put(key('w.md'), 'x')],
          ['delete', () => failing.delete(key('w.md'))],
        ];
        for (const [method, write] of writes) {
          const error = await rejectionOf(write);
          expect(error, method).toMatchObject({ code: 'WRITE_FAILED' });
          expect((error as Error).cause, `${method}: cause`).toBeDefined();
        }
      });

      it('rejects every read with READ_FAILED and the backend error as cause', async () => {
        const reads: [string, () => Promise<unknown>][] = [
          ['get', () => failing.get(key('r.md'))],
          ['get (range)', () => failing.get(key('r.md'), { offset: 1, length: 2 })],
          ['stat', () => failing.stat(key('r.md'))],
          ['list', () => collectKeys(failing, `${root()}/`)],
        ];
        for (const [method, read] of reads) {
          const error = await rejectionOf(read);
          expect(error, method).toMatchObject({ code: 'READ_FAILED' });
          expect((error as Error).cause, `${method}: cause`).toBeDefined();
        }
      });
    });
  }
}
