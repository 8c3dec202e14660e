/**
 * The cost of a replay with prompt caching: a provider caches the prompt it was sent, and the
 * next request's identical prefix is read from the cache at a fraction of the input price;
 * the rest is written to the cache, at a premium. So a change early in the history (a result
 * offloaded, a compaction) costs what it costs: everything after it is written again.
 *
 * The prefix is counted in whole messages (a request's first messages that are exactly those
 * of the previous request, and the tool definitions when there was one): the bytes a changed
 * message shares with its old self are not counted, nor a cache entry's expiry.
 */
import { countTokens } from '../../api/tokens.js';
import type { Message } from '../../core/types.js';

export {
  DEFAULT_CACHE_READ_RATIO,
  DEFAULT_CACHE_WRITE_RATIO,
  estimateCachedInputCost,
} from '../../core/cost/cost-model.js';
export type { CacheRatios } from '../../core/cost/cost-model.js';

/** How one request's input splits between the cache and new input. */
interface CachedInput {
  /** Tokens of the identical prefix of the previous request: read from the cache. */
  cacheReadTokens: number;
  /** Whether the previous request's messages were not all a prefix of this one's: the cache broke somewhere in them. */
  prefixChanged: boolean;
}

/** Counts the prefix each request shares with the one before it, for one line of a replay. */
export interface PrefixTracker {
  /** `messages` is what the request sends (besides `fixedTokens` of tool definitions); call in request order. */
  next(messages: readonly Message[], fixedTokens: number): CachedInput;
}

/** Creates a {@link PrefixTracker}; each message's JSON and tokens are worked out once. */
export function createPrefixTracker(): PrefixTracker {
  const texts = new WeakMap<Message, string>();
  const tokens = new WeakMap<Message, number>();
  const textOf = (message: Message): string => {
    let text = texts.get(message);
    if (text === undefined) {
      text = JSON.stringify(message);
      texts.set(message, text);
    }
    return text;
  };
  const tokensOf = (message: Message): number => {
    let count = tokens.get(message);
    if (count === undefined) {
      count = countTokens([message]);
      tokens.set(message, count);
    }
    return count;
  };
  let previous: readonly Message[] | undefined;
  return {
    next(messages, fixedTokens) {
      if (previous === undefined) {
        previous = messages;
        return { cacheReadTokens: 0, prefixChanged: false };
      }
      let shared = 0;
      let cacheReadTokens = fixedTokens;
      while (shared < previous.length && shared < messages.length) {
        const before = previous[shared] as Message;
        const now = messages[shared] as Message;
        if (before !== now && textOf(before) !== textOf(now)) break;
        cacheReadTokens += tokensOf(now);
        shared += 1;
      }
      const prefixChanged = shared < previous.length;
      previous = messages;
      return { cacheReadTokens, prefixChanged };
    },
  };
}
