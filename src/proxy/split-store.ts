/**
 * One store made of two: the context manager's session records (`<session>/.records/...`) in a
 * shared store (Redis, S3), so several proxy processes, or one restarted, find each other's
 * decisions; everything else (offloaded content, compaction archives) in the local file store,
 * whose absolute paths the agent's own tools open.
 */
import type { ContentStore, PutOutcome } from '../core/ports.js';

/** The folder of a session's records inside the session's folder. */
const RECORD_FOLDER = '.records';

/** Whether `key` (or a listing prefix) lies in a session's records folder: `<session>/.records/...`. */
function isRecordKey(key: string): boolean {
  const slash = key.indexOf('/');
  return slash !== -1 && key.startsWith(`${RECORD_FOLDER}/`, slash + 1);
}

/** A prefix that may cover records as well as content (`''`, `s1/`, `s1/.rec`). */
function mayCoverRecords(prefix: string): boolean {
  const slash = prefix.indexOf('/');
  return slash === -1 || RECORD_FOLDER.startsWith(prefix.slice(slash + 1)) || isRecordKey(prefix);
}

/** `content` for everything but session records, which go to `records`. */
export function createSplitStore(content: ContentStore, records: ContentStore): ContentStore {
  const storeOf = (key: string): ContentStore => (isRecordKey(key) ? records : content);
  const store: ContentStore = {
    kind: content.kind,
    putIfAbsent: (key, value): Promise<PutOutcome> => storeOf(key).putIfAbsent(key, value),
    put: (key, value) => storeOf(key).put(key, value),
    get: (key, range) => storeOf(key).get(key, range),
    stat: (key) => storeOf(key).stat(key),
    async *list(prefix) {
      if (!isRecordKey(prefix)) yield* content.list(prefix);
      if (mayCoverRecords(prefix)) {
        for await (const key of records.list(prefix)) if (isRecordKey(key)) yield key;
      }
    },
    delete: (key) => storeOf(key).delete(key),
    referenceFor: (key) => storeOf(key).referenceFor(key),
    keyFor: (reference) => content.keyFor(reference) ?? records.keyFor(reference),
  };
  const { listPartialWrites } = content;
  if (listPartialWrites !== undefined) store.listPartialWrites = (prefix) => listPartialWrites.call(content, prefix);
  if (content.holds !== undefined && records.holds !== undefined) {
    store.holds = (key, value) => {
      const target = storeOf(key);
      return (target.holds as NonNullable<ContentStore['holds']>).call(target, key, value);
    };
  }
  if (content.exists !== undefined && records.exists !== undefined) {
    store.exists = (key) => {
      const target = storeOf(key);
      return (target.exists as NonNullable<ContentStore['exists']>).call(target, key);
    };
  }
  return store;
}
