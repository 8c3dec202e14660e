/**
 * The AI SDK converts the history into a new provider prompt for every model call, so a
 * middleware never sees the same message object twice. The context manager's caches (canonical
 * conversion, token counts, its decisions and a compaction's substitution) are keyed by message
 * object: handing it fresh objects every call would convert and count the whole history again,
 * and compact it again. Messages equal to the ones of the previous call are swapped back for
 * those objects, so the manager sees a history that grows at the end, as in a loop it owns.
 */

/**
 * Whether two plain objects have the same keys holding the same data. Plain objects inherit no
 * enumerable key, so `for...in` walks their own keys only.
 */
function isSameRecord(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  let leftCount = 0;
  for (const key in left) {
    leftCount += 1;
    const value = left[key];
    const other = right[key];
    if (value !== other && !isSameData(value, other)) return false;
    if (value === undefined && !(key in right)) return false;
  }
  let rightCount = 0;
  for (const _key in right) rightCount += 1;
  return leftCount === rightCount;
}

/** Whether two values hold the same data: primitives, arrays, plain objects, bytes, URLs and dates. */
export function isSameData(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const prototype = Object.getPrototypeOf(left) as unknown;
  if (prototype !== Object.getPrototypeOf(right)) return false;
  // Plain objects and arrays first: nearly every node of a prompt is one.
  if (prototype === Object.prototype || prototype === null) return isSameRecord(left as Record<string, unknown>, right as Record<string, unknown>);
  if (Array.isArray(left)) {
    const other = right as unknown[];
    if (left.length !== other.length) return false;
    for (let index = 0; index < left.length; index += 1) if (!isSameData(left[index], other[index])) return false;
    return true;
  }
  if (left instanceof Uint8Array) {
    const other = right as Uint8Array;
    if (left.length !== other.length) return false;
    for (let index = 0; index < left.length; index += 1) if (left[index] !== other[index]) return false;
    return true;
  }
  if (left instanceof URL) return left.href === (right as URL).href;
  if (left instanceof Date) return left.getTime() === (right as Date).getTime();
  // Other class instances: only the same object is the same data.
  return false;
}

/**
 * `prompt` with its leading messages that equal those of `previous` (same index) replaced by the
 * objects of `previous`; from the first message that differs on, the new objects. Returns
 * `prompt` itself when none could be reused.
 */
export function reusePreviousMessages(prompt: readonly unknown[], previous: readonly unknown[]): readonly unknown[] {
  const limit = Math.min(prompt.length, previous.length);
  let same = 0;
  while (same < limit && isSameData(prompt[same], previous[same])) same += 1;
  if (same === 0) return prompt;
  if (same === prompt.length && same === previous.length) return previous;
  return [...previous.slice(0, same), ...prompt.slice(same)];
}
