/**
 * Test helpers for users of the package, the `agent-context-offload/testing` subpath: the
 * contract suites a storage driver and a message format adapter must pass. It imports `vitest`:
 * use it from vitest test files.
 */
export { DEFAULT_LARGE_VALUE_BYTES, testStore } from './test-store.js';
export type { TestStoreCase, TestStoreOptions } from './test-store-options.js';
export { testFormat } from './test-format.js';
export type { TestFormatInvalidCase, TestFormatOptions, TestFormatSamples } from './test-format.js';
