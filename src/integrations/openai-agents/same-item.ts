/**
 * Item comparison for the session wrapper: sessions hand out copies of what they store, and drop
 * the ids the model gave its calls, so stored items are matched by content.
 */
import type { SameMessage } from '../same-messages.js';

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
