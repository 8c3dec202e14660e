/**
 * The history each session sent last, kept so that the messages a request repeats reach the
 * context manager as the very objects it met before. An agent sends its whole history with every
 * request, parsed afresh from JSON each time; the manager keeps what it learned of a message
 * (its token count, the decisions applied to it) by object, so a repeated message handed over
 * as a new object would be tokenized and judged again, and a long session would cost the one
 * event loop every session shares a little more at each request.
 */
import type { Message } from '../core/types.js';
import { createLruMap } from '../core/lru-map.js';

/** The last history of each recent session. */
export interface SeenHistories {
  /**
   * Replaces, in `messages` (the caller's own array), each message of the longest prefix that
   * equals the one at its place in the history `key` sent last by that earlier object, keeps
   * the result as `key`'s last history and returns it.
   */
  adopt(key: string, messages: Message[]): Message[];
}

/** Whether two values parsed from JSON are equal: same types, same array items, same fields. */
export function isSameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index += 1) if (!isSameJson(left[index], right[index])) return false;
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  let fields = 0;
  for (const field in leftRecord) {
    if (!Object.hasOwn(rightRecord, field) || !isSameJson(leftRecord[field], rightRecord[field])) return false;
    fields += 1;
  }
  return fields === Object.keys(rightRecord).length;
}

/** The last histories of at most `maxSessions` sessions, the least recently used forgotten. */
export function createSeenHistories(maxSessions: number): SeenHistories {
  const histories = createLruMap<readonly Message[]>(maxSessions);
  return {
    adopt(key, messages) {
      const previous = histories.get(key);
      if (previous !== undefined) {
        const shared = Math.min(previous.length, messages.length);
        for (let index = 0; index < shared && isSameJson(messages[index], previous[index]); index += 1) messages[index] = previous[index] as Message;
      }
      histories.set(key, messages);
      return messages;
    },
  };
}
