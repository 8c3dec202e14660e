/** Identity checks on histories: which messages the SDK handed back unchanged. */

/** Whether `messages` begins with exactly the objects of `prefix` (a non-empty prefix). */
export function startsWith(messages: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length === 0 || prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index += 1) {
    if (messages[index] !== prefix[index]) return false;
  }
  return true;
}

/** Whether two histories hold the same objects in the same order. */
export function sameMessages(left: readonly unknown[], right: readonly unknown[]): boolean {
  return left === right || (left.length === right.length && (left.length === 0 || startsWith(left, right)));
}
