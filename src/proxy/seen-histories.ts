/**
 * The history each session sent last, kept so that the messages a request repeats reach the
 * context manager as the very objects it met before. An agent sends its whole history with every
 * request, parsed afresh from JSON each time; the manager keeps what it learned of a message
 * (its token count, the decisions applied to it) by object, so a repeated message handed over
 * as a new object would be tokenized and judged again, and a long session would cost the one
 * event loop every session shares a little more at each request.
 */
import type { Message } from '../core/types.js';
import { isDeepEqual } from '../core/util/deep-equal.js';
import { createLruMap } from '../core/util/lru-map.js';

/** The last history of each recent session. */
export interface SeenHistories {
  /**
   * Replaces, in `messages` (the caller's own array), each message of the longest prefix that
   * equals the one at its place in the history `key` sent last by that earlier object, keeps
   * the result as `key`'s last history and returns it. `bytes` is the size of the request body
   * it came in, counted against the limit of bytes kept.
   */
  adopt(key: string, messages: Message[], bytes?: number): Message[];
}

/**
 * The last histories of at most `maxSessions` sessions, from bodies of at most `maxBytes` in all,
 * the least recently used forgotten.
 */
export function createSeenHistories(maxSessions: number, maxBytes?: number): SeenHistories {
  const histories = createLruMap<readonly Message[]>(maxSessions, maxBytes);
  return {
    adopt(key, messages, bytes) {
      const previous = histories.get(key);
      if (previous !== undefined) {
        const shared = Math.min(previous.length, messages.length);
        for (let index = 0; index < shared && isDeepEqual(messages[index], previous[index]); index += 1)
          messages[index] = previous[index] as Message;
      }
      histories.set(key, messages, bytes);
      return messages;
    },
  };
}
