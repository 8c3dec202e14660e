/**
 * The contract every {@link ContentStore} driver meets, as a vitest suite: the package runs it on
 * its file, memory, Redis and S3 drivers, and a user runs it on their own driver. This file holds
 * the suite's frame (a fresh store and key prefix per case, clean-up, left-out groups); the cases
 * are in store-contract/, one file per area, registered here in the order a reader meets them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentStore } from '../core/ports.js';
import { collectKeys } from '../core/store/store-keys.js';
import type { StoreContractContext } from './store-contract/contract-helpers.js';
import { registerFailureCases } from './store-contract/failure-cases.js';
import { registerHoldsCases } from './store-contract/holds-cases.js';
import { registerKeyCases } from './store-contract/key-cases.js';
import { registerListingCases } from './store-contract/listing-cases.js';
import { registerReadCases } from './store-contract/read-cases.js';
import { registerWriteCases } from './store-contract/write-cases.js';
import type { TestStoreCase, TestStoreOptions } from './test-store-options.js';

/** Bytes of the large value unless {@link TestStoreOptions.largeValueBytes} says otherwise. */
export const DEFAULT_LARGE_VALUE_BYTES = 10 * 1024 * 1024;

/** A fresh key prefix, so cases never see each other's keys even on a shared backend. */
function createRoot(): string {
  return `contract-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Registers the {@link ContentStore} contract as vitest cases: write-once under 20 concurrent
 * writers, reuse of identical content, content in parts, overwrite, byte-range reads that never
 * return half a character, unicode, a large value, sizes in UTF-8 bytes, listing by prefix,
 * deletion, references, keys refused before any I/O, `holds`, and (with
 * `options.createFailingStore`) errors wrapped as `WRITE_FAILED` / `READ_FAILED` with their cause.
 *
 * Call it at the top level of a vitest test file (or inside a `describe`): it imports `vitest`,
 * which must be installed. `createStore` is called before each case; stores it returns may share
 * one backend, since every case works under its own fresh key prefix and deletes what it wrote.
 *
 * @example
 * ```ts
 * // my-store.test.ts
 * import { testStore } from 'agent-context-offload/testing';
 * import { createMyStore } from '../src/my-store.js';
 *
 * testStore('my store', () => createMyStore({ url: process.env.MY_STORE_URL }));
 * ```
 */
export function testStore(
  name: string,
  createStore: () => ContentStore | Promise<ContentStore>,
  options: TestStoreOptions = {},
): void {
  const largeValueBytes = options.largeValueBytes ?? DEFAULT_LARGE_VALUE_BYTES;
  const skipped = new Set<TestStoreCase>(options.skip ?? []);
  // Cases the caller leaves out are not registered at all (no skipped test lingers in the
  // report); they are named once on the console, so a reader of the log knows.
  const notRun: string[] = [...skipped].map((title) => `${title} (the skip option)`);
  if (options.createFailingStore === undefined) notRun.push('unreachable backend (no createFailingStore given)');
  if (notRun.length > 0) console.info(`testStore(${JSON.stringify(name)}): not run: ${notRun.join('; ')}`);
  const group = (title: TestStoreCase, register: () => void): void => {
    if (!skipped.has(title)) describe(title, register);
  };

  describe(`${name}: ContentStore contract`, () => {
    let store: ContentStore;
    let root: string;
    const key = (...segments: string[]): string => [root, ...segments].join('/');

    beforeEach(async () => {
      store = await createStore();
      root = createRoot();
    });

    afterEach(async () => {
      // Best effort: a store the case left broken must not hide the case's own failure.
      try {
        for (const written of await collectKeys(store, `${root}/`)) await store.delete(written);
      } catch {
        // nothing to do
      }
      await options.disposeStore?.(store);
    });

    it('names its kind', () => {
      expect(typeof store.kind).toBe('string');
      expect(store.kind).not.toBe('');
    });

    const context: StoreContractContext = {
      store: () => store,
      root: () => root,
      key,
      group,
      largeValueBytes,
      options,
    };
    registerWriteCases(context);
    registerReadCases(context);
    registerListingCases(context);
    registerKeyCases(context);
    registerHoldsCases(context);
    registerFailureCases(context);
  });
}
