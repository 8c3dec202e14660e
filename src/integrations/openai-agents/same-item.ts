import { isDeepEqual } from '../../core/util/deep-equal.js';

/**
 * Whether two items are the same object, or hold the same content apart from a top-level `id`:
 * sessions hand out copies of what they store, and drop the ids the model gave its calls.
 */
export function isSameItem(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const { id: _leftId, ...leftFields } = left as Record<string, unknown>;
  const { id: _rightId, ...rightFields } = right as Record<string, unknown>;
  return isDeepEqual(leftFields, rightFields);
}
