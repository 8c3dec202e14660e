/**
 * The archive text in parts: `JSON.stringify(items, null, 2)` produced one item at a time, so
 * a writer can stream a large archive without the whole text ever being held in memory.
 */

/**
 * Yields parts whose concatenation is exactly `JSON.stringify(items, null, 2)`: `'[\n  '` and
 * the first item, then `',\n  '` and each next item, then `'\n]'` (`'[]'` alone when `items` is
 * empty). Each item is serialized on its own, so the largest part is about one item's JSON.
 * The generator is lazy: nothing is serialized before a part is asked for, and a fresh call
 * starts over. Throws what `JSON.stringify` throws (a cycle, a `BigInt`) when that item is reached.
 *
 * @example
 * ```ts
 * [...stringifyArrayInParts([{ a: 1 }, 2])].join('') === JSON.stringify([{ a: 1 }, 2], null, 2); // true
 * ```
 */
export function* stringifyArrayInParts(items: readonly unknown[]): Generator<string, void, undefined> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  for (let index = 0; index < items.length; index += 1) {
    yield `${index === 0 ? '[\n  ' : ',\n  '}${stringifyItem(items[index], index)}`;
  }
  yield '\n]';
}

/** `item` as `JSON.stringify` writes it at `index` of an array indented by 2, without the array's frame. */
function stringifyItem(item: unknown, index: number): string {
  if (!hasToJson(item)) {
    // In a one-item array the item gets the one level of indentation it has in `items`, and
    // `null` for what JSON omits (undefined, a function, a symbol); the frame `[\n  `…`\n]` is cut off.
    return JSON.stringify([item], null, 2).slice('[\n  '.length, -'\n]'.length);
  }
  // `toJSON` is given the item's key: as the only property of a holder, it gets the real index.
  const key = String(index);
  const holder = JSON.stringify({ [key]: item }, null, 2);
  return holder === '{}' ? 'null' : holder.slice(`{\n  "${key}": `.length, -'\n}'.length);
}

/** Whether `JSON.stringify` calls a `toJSON(key)` of `item` (it looks on objects and bigints). */
function hasToJson(item: unknown): boolean {
  const looked = (typeof item === 'object' && item !== null) || typeof item === 'bigint';
  return looked && typeof (item as { toJSON?: unknown }).toJSON === 'function';
}
