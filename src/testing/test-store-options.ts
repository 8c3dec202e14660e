/** The options of the store contract suite and the names of its groups of cases. */
import type { ContentStore } from '../core/ports.js';

/** Options of {@link testStore}. */
export interface TestStoreOptions {
  /**
   * Creates a store of the same driver whose backend cannot be reached (a closed port, a
   * directory that cannot exist). With it, the suite checks that every write rejects with
   * `WRITE_FAILED` and every read with `READ_FAILED`, each with the backend's error as `cause`.
   * Without it, those cases are not run (the console says so).
   */
  createFailingStore?: () => ContentStore | Promise<ContentStore>;
  /** Called after each case with each store `createStore` or `createFailingStore` returned for it (close a client, ...). */
  disposeStore?: (store: ContentStore) => void | Promise<void>;
  /**
   * Bytes of the large value written and read back (with a range read inside it).
   * @default 10_485_760 (10 MB)
   */
  largeValueBytes?: number;
  /**
   * Cases not to run, by the name of their `describe` block (`'putIfAbsent under concurrent
   * writers'`, ...): for a backend that cannot give a guarantee, say which and skip it rather
   * than weaken the suite for everyone. Left-out cases are not registered; the console names them.
   */
  skip?: readonly TestStoreCase[];
}

/** The groups of cases of {@link testStore}, by the name of their `describe` block. */
export type TestStoreCase =
  | 'putIfAbsent'
  | 'putIfAbsent under concurrent writers'
  | 'putIfAbsent with parts'
  | 'put'
  | 'get'
  | 'range reads'
  | 'unicode'
  | 'large values'
  | 'stat'
  | 'list'
  | 'delete'
  | 'references'
  | 'key checks'
  | 'holds'
  | 'unreachable backend';
