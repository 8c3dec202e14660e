/**
 * The manager's token estimate of a history: the provider's figure for the leading messages the
 * last request sent (adjusted for any of them the manager changed since), plus the local count
 * of the rest scaled by the calibration ratio. Local counts are cached per message object, and
 * by content: a message sent again as a new object (a history rebuilt from JSON, a prompt-cache
 * marker moved off it) is not tokenized again.
 *
 * The `manage/counting` folder: how many tokens a history is.
 * - `history-estimate.ts`: the estimate (this file).
 * - `usage-anchor.ts`: the provider's usage figure as an anchor.
 * - `calibration.ts`: provider tokens per local token, learnt from usage.
 * - `fixed-overhead.ts`: the prompt's fixed part (system prompt, tools) against the window.
 */
import { createLruMap } from '../../util/lru-map.js';
import {
  countMessageTokens,
  countMessageTokensYielding,
  estimateProviderTokens,
  rememberMessageTokens,
  visitCountedTexts,
  type YieldingCount,
} from '../../text/tokens.js';
import type { TokenCounter } from '../../ports.js';
import type { Message } from '../../types.js';
import { countUtf8Bytes } from '../../text/utf8.js';
import { hashMessageContent, type Hashing } from '../records/fingerprint.js';

/**
 * Counts remembered by content per manager (least recently used forgotten): a session's
 * messages, and those of its histories' longest stretch a client resends, many times over.
 */
const CONTENT_COUNTS_KEPT = 4096;

/** Local counts cached per message object, and a cheap upper bound for messages not counted yet. */
export interface LocalCounts {
  /** The local token count of `message` (tokenized on first use of its content). */
  of(message: Message): number;
  /** The count when `message` was already counted, else `undefined` (nothing is tokenized). */
  peek(message: Message): number | undefined;
  /** Takes `count` as the count of `message` (a count recorded by an earlier call, in this process or another). */
  set(message: Message, count: number): void;
  /**
   * At least the local count of `message`, without tokenizing: its count when known, else
   * (with a byte-level tokenizer, which never makes more tokens than UTF-8 bytes) its texts'
   * UTF-8 bytes plus the overheads, else its count.
   */
  bound(message: Message): number;
  /**
   * Counts each of `messages` not counted yet, as {@link LocalCounts.of} would, but with yields
   * to the event loop between parts of its long texts (when the counts were given a
   * `yieldToLoop`; else it does nothing, and `of` counts later). An async step calls it before
   * the synchronous estimates that read those counts. Rejects with `signal`'s reason once it is
   * aborted (checked at each yield).
   */
  warm(messages: Iterable<Message>, signal?: AbortSignal | undefined): Promise<void>;
}

/** Options of {@link createLocalCounts}. */
export interface LocalCountsOptions {
  /**
   * Also told every count, so that what counts through it (compaction) does not tokenize the
   * same message again: the caller's counter, which `counter` wraps.
   */
  shareWith?: TokenCounter | undefined;
  /** Lets the event loop run; without it, counting is synchronous. */
  yieldToLoop?: (() => Promise<void>) | undefined;
}

/**
 * Local counts through `counter`, cached per message object and, through `hashing`, by content
 * (the message's JSON less its prompt-cache markers, which count nothing: see
 * {@link hashMessageContent}). `countsAtMostUtf8Bytes` says the counter never counts more tokens
 * than a text has UTF-8 bytes (true of the default o200k BPE: every token is at least one byte),
 * which makes {@link LocalCounts.bound} cheap.
 */
export function createLocalCounts(
  counter: TokenCounter,
  countsAtMostUtf8Bytes: boolean,
  hashing: Hashing,
  options: LocalCountsOptions = {},
): LocalCounts {
  const { shareWith, yieldToLoop } = options;
  const counts = new WeakMap<Message, number>();
  const byContent = createLruMap<number>(CONTENT_COUNTS_KEPT);
  const keep = (message: Message, count: number): void => {
    counts.set(message, count);
    if (shareWith !== undefined) rememberMessageTokens(message, shareWith, count);
  };
  const of = (message: Message): number => {
    let count = counts.get(message);
    if (count !== undefined) return count;
    // hashing the JSON costs a small share of tokenizing the same text
    const key = hashMessageContent(hashing, message);
    count = byContent.get(key);
    if (count === undefined) {
      count = countMessageTokens(message, counter);
      byContent.set(key, count);
    }
    keep(message, count);
    return count;
  };
  const warm = async (messages: Iterable<Message>, signal?: AbortSignal | undefined): Promise<void> => {
    if (yieldToLoop === undefined) return;
    const state: YieldingCount = { yieldToLoop, charsSinceYield: 0, signal };
    for (const message of messages) {
      if (counts.has(message)) continue;
      const key = hashMessageContent(hashing, message);
      let count = byContent.get(key);
      if (count === undefined) {
        count = await countMessageTokensYielding(message, counter, state);
        byContent.set(key, count);
      }
      keep(message, count);
    }
  };
  return {
    of,
    warm,
    peek: (message) => counts.get(message),
    set: keep,
    bound(message) {
      const known = counts.get(message);
      if (known !== undefined) return known;
      if (!countsAtMostUtf8Bytes) return of(message);
      let bytes = 0;
      const overhead = visitCountedTexts(message, (text) => {
        bytes += countUtf8Bytes(text);
      });
      return overhead + bytes;
    },
  };
}

/**
 * The messages {@link estimateHistoryTokens} reads the local count of (with its default
 * `localOf` and `baseOf`): with an anchor, those of its base the manager changed and what took
 * their place, then every message after it.
 */
export function messagesEstimated(messages: readonly Message[], anchor: EstimateAnchor | undefined): Message[] {
  const start = anchor?.messageCount ?? 0;
  const read: Message[] = [];
  for (let index = 0; index < start; index += 1) {
    const before = (anchor as EstimateAnchor).base[index] as Message;
    const message = messages[index] as Message;
    if (message !== before) read.push(message, before);
  }
  for (let index = start; index < messages.length; index += 1) read.push(messages[index] as Message);
  return read;
}

/** The provider's figure for the first `messageCount` messages of `base`. */
export interface EstimateAnchor {
  inputTokens: number;
  messageCount: number;
  /** The history the figure was given for, at the start of the call. */
  base: readonly Message[];
}

/**
 * Estimated prompt tokens of `messages`: without an anchor, `ratio ×` the local count of every
 * message; with one, the provider's figure, less `ratio ×` what the manager removed from the
 * messages it covered (changed since: offloaded), plus `ratio ×` the local count of the rest.
 * `localOf` gives a message's local count, and `baseOf` that of a message of the anchor's base
 * the manager changed since (exact by default; an upper bound of the first and a lower bound of
 * the second give an upper bound of the estimate). `messages` must have the base's length when
 * an anchor is given.
 */
export function estimateHistoryTokens(
  messages: readonly Message[],
  ratio: number,
  counts: LocalCounts,
  anchor: EstimateAnchor | undefined,
  localOf: (message: Message) => number = counts.of,
  baseOf: (message: Message) => number = counts.of,
): number {
  let local = 0;
  let start = 0;
  if (anchor !== undefined) {
    start = anchor.messageCount;
    for (let index = 0; index < start; index += 1) {
      const before = anchor.base[index] as Message;
      const message = messages[index] as Message;
      if (message !== before) local += localOf(message) - baseOf(before);
    }
  }
  for (let index = start; index < messages.length; index += 1) local += localOf(messages[index] as Message);
  return estimateProviderTokens(local, ratio, anchor?.inputTokens);
}
