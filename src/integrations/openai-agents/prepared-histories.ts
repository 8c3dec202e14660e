/**
 * What the input filter sent last, per conversation. The runner hands the filter the whole
 * turn input every call (the untouched history plus the new items), while the context manager
 * wants the history it prepared last time with the new items appended: that keeps every earlier
 * decision (a reference, a summary) byte for byte, so nothing is compacted twice and the prompt
 * prefix stays cacheable. This memory maps the one to the other. It is kept per context manager,
 * so that the session wrapper stores what the filter sent instead of summarizing again.
 */

import { startsWith, type SameMessage } from '../same-messages.js';

/** One remembered call: the input as the runner gave it, what was sent for it, and the run's own input items. */
export interface PreparedHistory<T> {
  /** The input as the runner gave it. */
  source: readonly T[];
  /** What the filter sent instead. */
  prepared: readonly T[];
  /** The user messages the current run was started with, as far as the filter can tell. */
  runInput: readonly T[];
}

/** Remembers the last prepared history of a few conversations. */
export interface PreparedHistories<T> {
  /** The remembered call whose source `input` starts with (the most recent first), if any. */
  find(input: readonly T[]): PreparedHistory<T> | undefined;
  /** Remembers `entry`, in place of `replaces` (a result of {@link find}) when given. */
  remember(entry: PreparedHistory<T>, replaces?: PreparedHistory<T>): void;
}

/**
 * How many conversations one filter remembers. One filter serves one conversation, but an agent
 * used as a tool runs a nested conversation through the same runner configuration.
 */
export const MAX_REMEMBERED_CONVERSATIONS = 8;

/**
 * Compares items: the same object, or the same content apart from a top-level `id`. The runner
 * hands a run that resumes a session fresh copies of the stored items, and those must still
 * match; sessions drop the ids the model gave its calls when they store them. Each comparer
 * caches an item's text per object, so each item is serialized at most once.
 */
export function createSameItem(): SameMessage<unknown> {
  const keys = new WeakMap<object, string | undefined>();
  const keyOf = (item: unknown): string | undefined => {
    if (typeof item !== 'object' || item === null) return undefined;
    if (keys.has(item)) return keys.get(item);
    let key: string | undefined;
    try {
      const { id: _id, ...rest } = item as Record<string, unknown>;
      key = JSON.stringify(rest);
    } catch {
      key = undefined;
    }
    keys.set(item, key);
    return key;
  };
  return (left, right) => {
    if (left === right) return true;
    const leftKey = keyOf(left);
    return leftKey !== undefined && leftKey === keyOf(right);
  };
}

/** Creates the memory (see {@link PreparedHistories}). */
export function createPreparedHistories<T>(capacity = MAX_REMEMBERED_CONVERSATIONS): PreparedHistories<T> {
  // Most recent first; a mismatch is usually found at the first item.
  const entries: Array<PreparedHistory<T>> = [];
  const sameItem: SameMessage<T> = createSameItem();

  return {
    find(input) {
      return entries.find((entry) => startsWith(input, entry.source, sameItem));
    },
    remember(entry, replaces) {
      const previous = replaces === undefined ? -1 : entries.indexOf(replaces);
      if (previous !== -1) entries.splice(previous, 1);
      entries.unshift(entry);
      if (entries.length > capacity) entries.length = capacity;
    },
  };
}

const byManager = new WeakMap<object, PreparedHistories<unknown>>();

/** The memory shared by every hook made with `manager`. */
export function preparedHistoriesOf<T>(manager: object): PreparedHistories<T> {
  let histories = byManager.get(manager);
  if (histories === undefined) {
    histories = createPreparedHistories<unknown>();
    byManager.set(manager, histories);
  }
  return histories as PreparedHistories<T>;
}
