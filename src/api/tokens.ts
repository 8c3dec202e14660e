/**
 * Public token counting and the compaction trigger. Synchronous and local;
 * environment variables are read at call time.
 */
import { describeValue, InvalidMessageError, InvalidOptionError } from '../core/errors.js';
import type { TokenCounter } from '../core/ports.js';
import {
  assertTokenCounter,
  countHistoryTokens,
  resolveCompactTrigger,
  shouldCompactWith,
  type LastUsage,
} from '../core/text/tokens.js';
import type { Message } from '../core/types.js';
import type { ProviderFamily } from '../core/manage/counting/calibration.js';
import { resolveEstimateRatio } from '../core/manage/counting/calibration.js';
import { resolveProviderFamily } from '../core/manage/manager-options.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';

/** Options of {@link countTokens}. */
export interface CountTokensOptions {
  /**
   * What the provider reported for the last request, which sent the first `messageCount`
   * messages: `{ inputTokens, messageCount }`, or an Anthropic `usage` object spread with the
   * count (`{ ...response.usage, messageCount }`, whose prompt size is `input_tokens +
   * cache_read_input_tokens + cache_creation_input_tokens`). That prefix is then counted
   * exactly and only the messages after it are estimated locally.
   * @default undefined (everything is estimated locally)
   */
  lastUsage?: LastUsage | undefined;
  /**
   * Scales local estimates (never the provider's figure), for a safety margin: 1.1 counts
   * 10% more. Must be > 0.
   * @default 1
   */
  tokenSafetyFactor?: number | undefined;
  /**
   * Reuse counts cached per message object. Messages are treated as immutable; after
   * mutating a message in place, pass `false` so it is counted afresh.
   * @default true
   */
  cache?: boolean | undefined;
  /**
   * The tokenizer. Counts are cached per counter.
   * @default o200k_base through `gpt-tokenizer`, loaded on first use
   */
  tokenCounter?: TokenCounter | undefined;
}

/** Options of {@link shouldCompact}. */
export interface ShouldCompactOptions extends CountTokensOptions {
  /**
   * The context window, in tokens (an integer >= 1).
   * @default 200000, env `CONTEXT_TOKEN_LIMIT`
   */
  contextTokenLimit?: number | undefined;
  /**
   * Share of the window at which compaction triggers, in [0, 1].
   * @default 0.92, env `COMPACT_THRESHOLD_RATIO`
   */
  compactThresholdRatio?: number | undefined;
  /**
   * Scales local estimates (never the provider's figure). Unset, it is the margin the context
   * manager's calibration starts from for the provider family (`'anthropic'` and `'other'` 1.5,
   * `'openai'` 1), so that `shouldCompact` and the manager's first trigger check agree. Must be > 0.
   * @default the family's starting calibration (1.5 unless the family is `'openai'`)
   */
  tokenSafetyFactor?: number | undefined;
  /**
   * The model the history is sent to: its name gives the provider family when `provider` is not set.
   * @default undefined
   */
  model?: string | undefined;
  /**
   * The family of the model the history is sent to (see {@link ShouldCompactOptions.tokenSafetyFactor}).
   * @default inferred from `model`, else `'other'`
   */
  provider?: ProviderFamily | undefined;
}

/** Options of {@link estimateTokens}. */
export interface EstimateTokensOptions {
  /**
   * The tokenizer.
   * @default o200k_base through `gpt-tokenizer`
   */
  tokenCounter?: TokenCounter | undefined;
}

/** The plugged counter, checked, or the default one. @internal */
function resolveTokenCounter(counter: unknown): TokenCounter {
  if (counter === undefined) return defaultTokenCounter;
  assertTokenCounter(counter);
  return counter;
}

function assertMessageArray(messages: unknown): asserts messages is readonly Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError('messages', `expected an array of messages, got ${describeValue(messages)}`);
  }
}

/**
 * Counts the tokens of a history, synchronously and locally: text, tool names, tool inputs
 * (JSON), tool results (recursively) and thinking, plus 4 tokens per message and 3 per block;
 * other blocks (images, documents, ...) count 0. Empty → 0.
 *
 * Counts are cached per message object, so an agent loop that appends one message pays for
 * that message only. With `lastUsage`, the prefix the last request sent counts as the
 * provider reported it.
 *
 * @throws {InvalidOptionError} on a malformed `lastUsage`, `tokenSafetyFactor` or `tokenCounter`.
 * @throws {InvalidMessageError} when `messages` is not an array, or a message it tokenizes is
 *   malformed (`messages[2]: expected a message object, got null`). Each message is checked
 *   when it is first counted, not again on a cached count, and messages in the `lastUsage`
 *   prefix are not read.
 * @example
 * ```ts
 * const tokens = countTokens(messages, { lastUsage: { ...response.usage, messageCount: sent.length } });
 * ```
 */
export function countTokens(messages: readonly Message[], options: CountTokensOptions = {}): number {
  assertMessageArray(messages);
  return countHistoryTokens(messages, {
    tokenCounter: resolveTokenCounter(options.tokenCounter),
    lastUsage: options.lastUsage,
    tokenSafetyFactor: options.tokenSafetyFactor,
    cache: options.cache,
  });
}

/**
 * Tokens of a text with the default tokenizer (o200k_base), or the one given. Empty → 0.
 * Text such as `<|endoftext|>` is counted as plain text, never rejected.
 */
export function estimateTokens(text: string, options: EstimateTokensOptions = {}): number {
  if (typeof text !== 'string') {
    throw new InvalidOptionError(`text must be a string, got ${describeValue(text)}`);
  }
  return text === '' ? 0 : resolveTokenCounter(options.tokenCounter).count(text);
}

/**
 * The compaction trigger: true when the history's tokens ({@link countTokens}, local counts
 * scaled as the context manager scales them before any usage figure) are >=
 * `contextTokenLimit × compactThresholdRatio` (184,000 by default). An empty history → false.
 * Environment variables are read at each call.
 *
 * @throws {InvalidOptionError} naming the option or variable when a value is out of range.
 * @throws {InvalidMessageError} as {@link countTokens}.
 */
export function shouldCompact(messages: readonly Message[], options: ShouldCompactOptions = {}): boolean {
  assertMessageArray(messages);
  const trigger = resolveCompactTrigger(options, process.env);
  return shouldCompactWith(messages, {
    ...trigger,
    tokenCounter: resolveTokenCounter(options.tokenCounter),
    lastUsage: options.lastUsage,
    tokenSafetyFactor: resolveEstimateRatio({
      tokenSafetyFactor: options.tokenSafetyFactor,
      provider: resolveProviderFamily(options.provider, options.model, 'canonical'),
    }),
    cache: options.cache,
  });
}
