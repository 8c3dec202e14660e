/**
 * The replay itself: the transcript's model requests, one after the other, through one
 * context manager, as an agent loop would run them. Before request `k` the manager prepares
 * the managed history; the prepared messages are what the request sends; then the agent
 * appends what really came next in the transcript (the answer, the tool results, the user's
 * next message) to what it sent, and the next request starts from there. Without the manager,
 * request `k` sends the raw transcript up to the answer.
 *
 * Tokens are local estimates (the package's tokenizer) for both lines. Each request's count is
 * passed back to the manager as the provider's usage figure, so the manager's trigger works in
 * the same tokens as the figures reported. Each request is priced twice: every input token at
 * the input price, and with prompt caching (see `prompt-cache.ts`). A tool result the model
 * never saw whole is read back in one more request, counted apart (see `read-backs.ts`).
 */
import { countTokens } from '../../api/tokens.js';
import type { LastUsage } from '../../core/text/tokens.js';
import type { Message } from '../../core/types.js';
import type { ContextAction, PrepareOptions, PrepareResult } from '../../core/manage/types.js';
import { groupResultsByRequest, measureReadBacks } from './read-backs.js';
import { findRequestTurns, sliceTurn } from './request-turns.js';
import {
  createPrefixTracker,
  DEFAULT_CACHE_READ_RATIO,
  DEFAULT_CACHE_WRITE_RATIO,
  estimateCachedInputCost,
  type CacheRatios,
} from './prompt-cache.js';
import { estimateInputCost } from './replay-report.js';
import type { ReplayCompaction, ReplayRequest } from './replay-report.js';

/** What the replay needs of a context manager. */
export interface ReplayManager {
  prepare(messages: readonly Message[], options?: PrepareOptions): Promise<PrepareResult<Message>>;
}

/** Options of {@link replaySession}. */
export interface ReplaySessionOptions {
  /** The transcript, as canonical messages. */
  messages: readonly Message[];
  /** The manager every request goes through. */
  manager: ReplayManager;
  /** Tokens of the tool definitions every request sends besides the messages. @default 0 */
  toolDefinitionTokens?: number;
  /** US dollars per million input tokens, for the cost estimate. */
  pricePerMTok: number;
  /**
   * Prices of a token read from and written to the prompt cache, as shares of the input price.
   * @default { readRatio: 0.1, writeRatio: 1.25 }
   */
  cacheRatios?: CacheRatios | undefined;
  /** Cancels the replay: the pending request rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Called before each request with its 1-based number and the number of requests; awaited. */
  onRequest?: ((request: number, requestCount: number) => unknown) | undefined;
}

/** What the actions of one `prepare` call add up to. */
function readActions(
  actions: readonly ContextAction[],
): Pick<ReplayRequest, 'offloadedResults' | 'freedChars' | 'compaction' | 'compactionSkipped'> {
  let offloadedResults = 0;
  let freedChars = 0;
  let compaction: ReplayCompaction | null = null;
  let compactionSkipped: string | null = null;
  for (const action of actions) {
    if (action.type === 'direct-offload' || action.type === 'batch-offload') {
      offloadedResults += action.toolCallIds.length;
      freedChars += action.freedChars;
    } else if (action.type === 'compact') {
      compaction = {
        tokensBefore: action.tokensBefore,
        tokensAfter: action.tokensAfter,
        archiveReference: action.archiveReference ?? null,
      };
    } else if (action.type === 'compact-skipped') {
      compactionSkipped = action.reason;
    }
  }
  return { offloadedResults, freedChars, compaction, compactionSkipped };
}

/**
 * Replays every model request of `messages` through `manager` and returns one record per
 * request, in order: none when the transcript has no assistant message.
 *
 * @throws whatever `prepare` rejects with (a store that refuses a write, the signal's reason).
 */
export async function replaySession(options: ReplaySessionOptions): Promise<ReplayRequest[]> {
  const { messages, manager, pricePerMTok, signal } = options;
  const fixedTokens = options.toolDefinitionTokens ?? 0;
  const ratios = options.cacheRatios ?? { readRatio: DEFAULT_CACHE_READ_RATIO, writeRatio: DEFAULT_CACHE_WRITE_RATIO };
  const cacheWithout = createPrefixTracker();
  const cacheWith = createPrefixTracker();
  const turns = findRequestTurns(messages);
  const arrivals = groupResultsByRequest(messages, turns);
  // tokens of the raw history before each message: counts add up message by message
  const rawTokensBefore = [0];
  for (const message of messages) rawTokensBefore.push((rawTokensBefore.at(-1) ?? 0) + countTokens([message]));

  const requests: ReplayRequest[] = [];
  let history: Message[] = messages.slice(0, turns[0] ?? 0);
  let lastUsage: LastUsage | undefined;
  for (let index = 0; index < turns.length; index += 1) {
    const messageIndex = turns[index] as number;
    await options.onRequest?.(index + 1, turns.length);
    const prepared = await manager.prepare(history, {
      ...(lastUsage === undefined ? {} : { lastUsage }),
      ...(signal === undefined ? {} : { signal }),
    });
    const sent = prepared.messages;
    const tokensWith = fixedTokens + countTokens(sent);
    const tokensWithout = fixedTokens + (rawTokensBefore[messageIndex] ?? 0);
    const cachedWithout = cacheWithout.next(messages.slice(0, messageIndex), fixedTokens);
    const cachedWith = cacheWith.next(sent, fixedTokens);
    // the manager loses nothing: a result not held whole is in its store, and is read back
    const readBacks = measureReadBacks(sent, arrivals.get(index) ?? [], fixedTokens, { pricePerMTok, ratios });
    requests.push({
      request: index + 1,
      messageIndex,
      messagesWithout: messageIndex,
      tokensWithout,
      messagesWith: sent.length,
      tokensWith,
      ...readActions(prepared.actions),
      costWithout: estimateInputCost(tokensWithout, pricePerMTok),
      costWith: estimateInputCost(tokensWith, pricePerMTok),
      cacheReadTokensWithout: Math.min(cachedWithout.cacheReadTokens, tokensWithout),
      cacheReadTokensWith: Math.min(cachedWith.cacheReadTokens, tokensWith),
      prefixChangedWith: cachedWith.prefixChanged,
      cachedCostWithout: estimateCachedInputCost(tokensWithout, cachedWithout.cacheReadTokens, pricePerMTok, ratios),
      cachedCostWith: estimateCachedInputCost(tokensWith, cachedWith.cacheReadTokens, pricePerMTok, ratios),
      readBacks: readBacks.requests,
      readBackTokens: readBacks.tokens,
      readBackCost: estimateInputCost(readBacks.tokens, pricePerMTok),
      readBackCachedCost: readBacks.cachedCost,
    });
    // the provider's figure for what was sent, as an agent passes `response.usage` back
    lastUsage = { inputTokens: tokensWith, messageCount: sent.length };
    history = [...sent, ...sliceTurn(messages, turns, index)];
  }
  return requests;
}
