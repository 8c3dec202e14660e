/**
 * Token counting and the compaction trigger. Pure: the
 * tokenizer comes in through the {@link TokenCounter} port.
 *
 * What a message costs:
 * - {@link MESSAGE_TOKEN_OVERHEAD} tokens for the message itself (role marker and separators);
 * - string content: the tokens of the string;
 * - each block: {@link BLOCK_TOKEN_OVERHEAD} tokens for its framing, plus
 *   `text` → its text; `tool_use` → its name and `JSON.stringify(input)`;
 *   `tool_result` → its string content, or its blocks counted the same way (recursively);
 *   `thinking` → its thinking text;
 * - any other block (image, document, redacted_thinking, server tool blocks): 0, overhead
 *   included — a local tokenizer cannot price them, and the provider's figure
 *   (`lastUsage`) is the way to account for them.
 */
import { throwIfAborted } from '../abort.js';
import { DEFAULT_TOKEN_SAFETY_FACTOR } from '../options/defaults.js';
import type { Environment } from '../options/env.js';
import { OPTIONS, resolveTableOption } from '../options/option-table.js';
import { describeValue, InvalidOptionError } from '../errors.js';
import type { TokenCounter } from '../ports.js';
import type { Message } from '../types.js';
import { splitIntoPieces } from './text-pieces.js';
import { assertMessage } from '../messages/validate-messages.js';

/**
 * Tokens added per message for the role marker and turn separators. OpenAI documents 3–4 per
 * chat message; Claude's framing is of the same size.
 */
export const MESSAGE_TOKEN_OVERHEAD = 4;
/** Tokens added per counted content block for its type tag and delimiters. */
export const BLOCK_TOKEN_OVERHEAD = 3;

/**
 * What the provider reported for the last request, which sent the first `messageCount`
 * messages: the prompt size in tokens, exact for that prefix. Either the generic shape
 * `{ inputTokens, messageCount }` or an Anthropic `usage` object spread with the count
 * (`{ ...response.usage, messageCount }`): its prompt size is `input_tokens +
 * cache_read_input_tokens + cache_creation_input_tokens`.
 */
export type LastUsage = GenericUsage | AnthropicUsage;

/** Provider-neutral usage: the prompt size of the last request and how many messages it sent. */
export interface GenericUsage {
  /** Prompt tokens the provider counted for the last request (system, tools and messages). */
  inputTokens: number;
  /** How many leading messages of the history that request sent. */
  messageCount: number;
}

/** An Anthropic `usage` object, spread with the number of messages the request sent. */
export interface AnthropicUsage {
  /** Uncached prompt tokens. */
  input_tokens: number;
  /** Prompt tokens read from the cache. */
  cache_read_input_tokens?: number | null;
  /** Prompt tokens written to the cache. */
  cache_creation_input_tokens?: number | null;
  /** How many leading messages of the history that request sent. */
  messageCount: number;
  /** Other usage fields (`output_tokens`, `service_tier`, ...) are ignored. */
  [field: string]: unknown;
}

/** Options of {@link countHistoryTokens}. */
export interface CountHistoryTokensOptions {
  /** The tokenizer. */
  tokenCounter: TokenCounter;
  /** The provider's figure for a prefix of the history; only the messages after it are estimated. */
  lastUsage?: LastUsage | undefined;
  /**
   * Scales local estimates (never the provider's figure), for a safety margin.
   * @default 1
   */
  tokenSafetyFactor?: number | undefined;
  /**
   * Reuse counts cached per message object. Pass `false` after mutating a message in place:
   * its count is then computed afresh (and the cache refreshed).
   * @default true
   */
  cache?: boolean | undefined;
}

/** Options of {@link shouldCompactWith}. */
export interface ShouldCompactWithOptions extends CountHistoryTokensOptions {
  /** The context window, in tokens. */
  contextTokenLimit: number;
  /** Share of the window at which compaction triggers, in [0, 1]. */
  compactThresholdRatio: number;
}

// One cache per counter: two tokenizers give two counts for the same message.
const cachesByCounter = new WeakMap<TokenCounter, WeakMap<object, number>>();

function cacheOf(counter: TokenCounter): WeakMap<object, number> {
  let cache = cachesByCounter.get(counter);
  if (cache === undefined) {
    cache = new WeakMap();
    cachesByCounter.set(counter, cache);
  }
  return cache;
}

/**
 * Calls `visit` with each text {@link countMessageTokens} tokenizes in `message`, in order (empty
 * texts are skipped: they count 0), and returns the tokens it adds on top of them (message and
 * block overheads): `countMessageTokens(message, counter)` is that overhead plus
 * `counter.count(text)` for each visited text. The single definition of what is counted.
 */
export function visitCountedTexts(message: Message, visit: (text: string) => void): number {
  const content: unknown = message.content;
  if (typeof content === 'string') {
    visitText(content, visit);
    return MESSAGE_TOKEN_OVERHEAD;
  }
  return MESSAGE_TOKEN_OVERHEAD + (Array.isArray(content) ? visitBlocks(content, visit) : 0);
}

function visitText(text: unknown, visit: (text: string) => void): void {
  if (typeof text === 'string' && text !== '') visit(text);
}

function visitBlocks(blocks: readonly unknown[], visit: (text: string) => void): number {
  let overhead = 0;
  for (const block of blocks) overhead += visitBlock(block, visit);
  return overhead;
}

/** Visits the counted texts of one block; returns its overhead (0 for an unknown block). */
function visitBlock(block: unknown, visit: (text: string) => void): number {
  if (typeof block !== 'object' || block === null) return 0;
  const fields = block as Record<string, unknown>;
  switch (fields.type) {
    case 'text':
      visitText(fields.text, visit);
      return BLOCK_TOKEN_OVERHEAD;
    case 'thinking':
      visitText(fields.thinking, visit);
      return BLOCK_TOKEN_OVERHEAD;
    case 'tool_use':
      visitText(fields.name, visit);
      visitText(fields.input === undefined ? '' : JSON.stringify(fields.input), visit);
      return BLOCK_TOKEN_OVERHEAD;
    case 'tool_result': {
      const content = fields.content;
      if (Array.isArray(content)) return BLOCK_TOKEN_OVERHEAD + visitBlocks(content, visit);
      visitText(content, visit);
      return BLOCK_TOKEN_OVERHEAD;
    }
    default:
      return 0;
  }
}

function countUncached(counter: TokenCounter, message: Message): number {
  let total = 0;
  const overhead = visitCountedTexts(message, (text) => {
    total += counter.count(text);
  });
  return overhead + total;
}

/**
 * Local token count of one message, its overhead included. Cached per message object (and
 * per counter): an unchanged message is tokenized once, however often it is counted.
 *
 * @throws {InvalidMessageError} when a message that is not cached is malformed (path `message`).
 */
export function countMessageTokens(
  message: Message,
  counter: TokenCounter,
  options: { cache?: boolean | undefined } = {},
): number {
  return countWithCache(message, undefined, counter, cacheOf(counter), options.cache !== false);
}

/** {@link countMessageTokens} of `messages[index]` (or of a lone message when `index` is undefined). */
function countWithCache(
  message: Message,
  index: number | undefined,
  counter: TokenCounter,
  cache: WeakMap<object, number>,
  useCache: boolean,
): number {
  if (useCache) {
    const cached = cache.get(message); // undefined for null or a primitive: they are checked below
    if (cached !== undefined) return cached;
  }
  // checked on a miss only: a cached message was checked when it was counted, so an agent
  // loop that appends one message pays for one message, the check included
  assertMessage(message, index === undefined ? 'message' : `messages[${index}]`);
  const count = countUncached(counter, message);
  cache.set(message, count);
  return count;
}

/**
 * Takes `count` as the count of `message` by `counter` (computed elsewhere, as
 * {@link countMessageTokens} computes it), so that a later count of that message object through
 * `counter` does not tokenize it again: the context manager shares its counts with compaction
 * this way.
 */
export function rememberMessageTokens(message: Message, counter: TokenCounter, count: number): void {
  cacheOf(counter).set(message, count);
}

/**
 * Characters counted between two yields of {@link countTextYielding}: 2 × 1920, a multiple of
 * the default counter's largest piece (`MAX_COUNTED_PIECE_CHARS`) and of its longest unbroken
 * stretch (`MAX_UNBROKEN_STRETCH_CHARS`, 384), so its pieces are cut at the same points whether
 * a text is counted whole or in these parts. About 3 ms of random base64, and about 9 ms of the
 * slowest text measured (random CJK with no punctuation), on a machine that runs nothing else.
 */
export const CHARS_COUNTED_BETWEEN_YIELDS = 3840;

/** What {@link countTextYielding} yields with, and how much it has counted since it last did. */
export interface YieldingCount {
  /** Lets the event loop run (a macrotask: `setImmediate`). */
  yieldToLoop: () => Promise<void>;
  /** Characters counted since the last yield, carried from text to text (updated in place). */
  charsSinceYield: number;
  /** Checked after each yield: an aborted count rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * `counter.count(text)`, counted in parts of at most {@link CHARS_COUNTED_BETWEEN_YIELDS}
 * characters, with a yield to the event loop before a part that would take what was counted
 * since the last yield (carried across calls through `state`) over that many: no more is ever
 * counted at a stretch, so no count of a long text holds the loop.
 *
 * The parts end where o200k_base always ends a pre-token ({@link splitIntoPieces}), so for the
 * default counter the sum equals its count of the whole text: it counts at the same points, and
 * a stretch with no such point is cut at a multiple of its own piece length from where the
 * stretch starts, whole or in parts. For another counter, each part boundary is a point where a
 * BPE tokenizer of that kind ends a token, so the sum is its count to within about a token per
 * part.
 */
export async function countTextYielding(counter: TokenCounter, text: string, state: YieldingCount): Promise<number> {
  const parts =
    text.length <= CHARS_COUNTED_BETWEEN_YIELDS ? [text] : splitIntoPieces(text, CHARS_COUNTED_BETWEEN_YIELDS);
  let total = 0;
  for (const part of parts) {
    if (state.charsSinceYield > 0 && state.charsSinceYield + part.length > CHARS_COUNTED_BETWEEN_YIELDS) {
      state.charsSinceYield = 0;
      await state.yieldToLoop();
      throwIfAborted(state.signal);
    }
    total += counter.count(part);
    state.charsSinceYield += part.length;
  }
  return total;
}

/**
 * {@link countMessageTokens}, counted through {@link countTextYielding}: the same count (for the
 * default counter), without holding the event loop while a long text is tokenized. The result
 * is cached as {@link countMessageTokens} caches it.
 *
 * @throws {InvalidMessageError} when `message` is not cached and is malformed (path `message`).
 */
export async function countMessageTokensYielding(
  message: Message,
  counter: TokenCounter,
  state: YieldingCount,
): Promise<number> {
  const cache = cacheOf(counter);
  const cached = cache.get(message);
  if (cached !== undefined) return cached;
  assertMessage(message, 'message');
  const texts: string[] = [];
  let count = visitCountedTexts(message, (text) => texts.push(text));
  for (const text of texts) count += await countTextYielding(counter, text, state);
  cache.set(message, count);
  return count;
}

/** The prompt size a {@link LastUsage} reports. */
export function usageInputTokens(usage: LastUsage): number {
  const generic = (usage as Partial<GenericUsage>).inputTokens;
  if (typeof generic === 'number') return generic;
  const anthropic = usage as AnthropicUsage;
  return (
    anthropic.input_tokens + (anthropic.cache_read_input_tokens ?? 0) + (anthropic.cache_creation_input_tokens ?? 0)
  );
}

function isTokenFigure(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Throws {@link InvalidOptionError} unless `usage` is a {@link LastUsage} whose
 * `messageCount` fits a history of `messageCount` messages.
 */
export function assertLastUsage(usage: unknown, historyLength: number): asserts usage is LastUsage {
  if (typeof usage !== 'object' || usage === null) {
    throw new InvalidOptionError(
      `lastUsage must be an object { inputTokens, messageCount }, got ${describeValue(usage)}`,
    );
  }
  const fields = usage as Record<string, unknown>;
  const count = fields.messageCount;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > historyLength) {
    throw new InvalidOptionError(
      `lastUsage.messageCount must be an integer in [0, ${historyLength}] (messages the last request sent), got ${describeValue(count)}`,
    );
  }
  if ('inputTokens' in fields) {
    if (!isTokenFigure(fields.inputTokens)) {
      throw new InvalidOptionError(
        `lastUsage.inputTokens must be a number >= 0, got ${describeValue(fields.inputTokens)}`,
      );
    }
    return;
  }
  if (!isTokenFigure(fields.input_tokens)) {
    throw new InvalidOptionError(
      `lastUsage must carry inputTokens (or an Anthropic usage's input_tokens) as a number >= 0, got ${describeValue(fields.input_tokens)}`,
    );
  }
  for (const name of ['cache_read_input_tokens', 'cache_creation_input_tokens']) {
    const value = fields[name];
    if (value !== undefined && value !== null && !isTokenFigure(value)) {
      throw new InvalidOptionError(`lastUsage.${name} must be a number >= 0, got ${describeValue(value)}`);
    }
  }
}

/** Throws {@link InvalidOptionError} unless `factor` is a finite number > 0. */
function assertTokenSafetyFactor(factor: unknown): asserts factor is number {
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor <= 0) {
    throw new InvalidOptionError(`tokenSafetyFactor must be a number > 0, got ${describeValue(factor)}`);
  }
}

/**
 * Tokens of a history: the provider's figure for the prefix `lastUsage` covers, plus local
 * counts (scaled by `tokenSafetyFactor`, rounded up) of every message after it. Empty → 0.
 *
 * @throws {InvalidOptionError} when `lastUsage` or `tokenSafetyFactor` is malformed.
 * @throws {InvalidMessageError} when a message it counts (not cached, after the `lastUsage`
 *   prefix) is malformed, with its path: `messages[3].content[0].tool_use_id: ...`.
 */
export function countHistoryTokens(messages: readonly Message[], options: CountHistoryTokensOptions): number {
  const factor = options.tokenSafetyFactor ?? DEFAULT_TOKEN_SAFETY_FACTOR;
  assertTokenSafetyFactor(factor);
  let exact = 0;
  let start = 0;
  if (options.lastUsage !== undefined) {
    assertLastUsage(options.lastUsage, messages.length);
    exact = usageInputTokens(options.lastUsage);
    start = options.lastUsage.messageCount;
  }
  let local = 0;
  const cache = cacheOf(options.tokenCounter);
  const useCache = options.cache !== false;
  for (let index = start; index < messages.length; index += 1) {
    local += countWithCache(messages[index] as Message, index, options.tokenCounter, cache, useCache);
  }
  return estimateProviderTokens(local, factor, exact);
}

/**
 * The one estimator of a history's provider tokens, wherever a trigger is checked (the context
 * manager, `shouldCompact`, `compactMessages`): the provider's figure for the prefix it covers
 * (`anchorTokens`, 0 when none), plus `ratio ×` the local count of the rest, rounded up.
 */
export function estimateProviderTokens(localTokens: number, ratio: number, anchorTokens = 0): number {
  return Math.max(0, anchorTokens + (ratio === 1 ? localTokens : Math.ceil(ratio * localTokens)));
}

/**
 * The token count at which compaction triggers: `limit × ratio`, rounded up. The product is
 * first rounded to 6 decimals, so `200000 × 0.92` is 184000 (not 184000.00000000003) and a
 * history of exactly 184000 tokens triggers.
 */
export function compactThresholdTokens(contextTokenLimit: number, compactThresholdRatio: number): number {
  return Math.ceil(Number((contextTokenLimit * compactThresholdRatio).toFixed(6)));
}

/** Whether `tokenCount` reaches the trigger (`>=`). */
export function isAtCompactThreshold(
  tokenCount: number,
  contextTokenLimit: number,
  compactThresholdRatio: number,
): boolean {
  return tokenCount >= compactThresholdTokens(contextTokenLimit, compactThresholdRatio);
}

/**
 * The compaction trigger: true when the history's tokens are >=
 * `contextTokenLimit × compactThresholdRatio`. An empty history never triggers.
 */
export function shouldCompactWith(messages: readonly Message[], options: ShouldCompactWithOptions): boolean {
  if (messages.length === 0) return false;
  return isAtCompactThreshold(
    countHistoryTokens(messages, options),
    options.contextTokenLimit,
    options.compactThresholdRatio,
  );
}

/** The trigger settings, resolved. */
export interface CompactTrigger {
  /** The context window, in tokens. */
  contextTokenLimit: number;
  /** Share of the window at which compaction triggers. */
  compactThresholdRatio: number;
}

/**
 * Resolves the trigger settings: the option, else `CONTEXT_TOKEN_LIMIT` /
 * `COMPACT_THRESHOLD_RATIO`, else 200000 / 0.92. The limit is an integer >= 1, the ratio a
 * number in [0, 1].
 *
 * @throws {InvalidOptionError} naming the option or variable.
 */
export function resolveCompactTrigger(
  options: { contextTokenLimit?: unknown; compactThresholdRatio?: unknown },
  env: Environment,
): CompactTrigger {
  return {
    contextTokenLimit: resolveTableOption(OPTIONS.contextTokenLimit, options.contextTokenLimit, env),
    compactThresholdRatio: resolveTableOption(OPTIONS.compactThresholdRatio, options.compactThresholdRatio, env),
  };
}

/** Throws {@link InvalidOptionError} unless `counter` is an object with a `count(text)` method. */
export function assertTokenCounter(counter: unknown, optionName = 'tokenCounter'): asserts counter is TokenCounter {
  if (typeof counter !== 'object' || counter === null || typeof (counter as TokenCounter).count !== 'function') {
    throw new InvalidOptionError(
      `${optionName} must be an object with a count(text) method, got ${describeValue(counter)}`,
    );
  }
}
