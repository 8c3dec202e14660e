/**
 * Identity checks on histories, shared by the integrations: which messages a framework handed
 * back unchanged, so that a hook can reuse what it prepared for them (or report no change).
 */

/** Whether two messages stand for the same one: the same object unless a hook knows better. */
export type SameMessage<T> = (left: T, right: T) => boolean;

const isSameObject = (left: unknown, right: unknown): boolean => left === right;

/** Whether `messages` begins with the messages of `prefix` (a non-empty prefix), compared with `same`. */
export function startsWith<T>(
  messages: readonly T[],
  prefix: readonly T[],
  same: SameMessage<T> = isSameObject,
): boolean {
  if (prefix.length === 0 || prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index += 1) {
    if (!same(messages[index] as T, prefix[index] as T)) return false;
  }
  return true;
}

/** Whether two histories hold the same messages in the same order, compared with `same`. */
export function sameMessages<T>(left: readonly T[], right: readonly T[], same: SameMessage<T> = isSameObject): boolean {
  return left === right || (left.length === right.length && (left.length === 0 || startsWith(left, right, same)));
}
