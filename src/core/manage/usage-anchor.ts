/**
 * The provider's usage figure as an anchor: the prompt size of the last request, exact for the
 * leading messages it sent. A figure that does not fit the history is refused (with the reason),
 * never trusted; a figure that extends the previous one teaches the calibration.
 */
import { ContextError } from '../errors.js';
import { assertLastUsage, usageInputTokens } from '../tokens.js';
import type { Message } from '../types.js';
import type { TokenCalibration } from './calibration.js';

/** A usage figure that fits the history: its prompt size and how many leading messages it covers. */
export interface CheckedUsage {
  inputTokens: number;
  messageCount: number;
}

/** A usage figure with the messages it covered, kept to learn from the next one. */
export interface UsageAnchor {
  inputTokens: number;
  /** The leading messages the request sent, as the manager saw them. */
  prefix: readonly Message[];
}

/**
 * `usage` when it fits a history of `historyLength` messages: an object whose `messageCount` is
 * an integer in [0, historyLength] and whose token figures are finite numbers >= 0. Otherwise
 * the reason it does not.
 */
export function checkLastUsage(usage: unknown, historyLength: number): { usage: CheckedUsage } | { reason: string } {
  try {
    assertLastUsage(usage, historyLength);
  } catch (error) {
    if (error instanceof ContextError) return { reason: error.message };
    throw error;
  }
  const inputTokens = usageInputTokens(usage);
  // each part was checked; their sum can still overflow to Infinity
  if (!Number.isFinite(inputTokens))
    return { reason: `lastUsage must add up to a finite number of tokens, got ${inputTokens}` };
  return { usage: { inputTokens, messageCount: usage.messageCount } };
}

/** Whether `messages` starts with exactly the objects of `prefix`. */
export function startsWithSame(messages: readonly unknown[], prefix: readonly unknown[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let index = 0; index < prefix.length; index += 1) {
    if (messages[index] !== prefix[index]) return false;
  }
  return true;
}

/** The messages {@link learnFromUsage} reads the local count of: those added since the previous figure, when it applies. */
export function messagesToLearnFrom(
  messages: readonly Message[],
  usage: CheckedUsage,
  previous: UsageAnchor | undefined,
): readonly Message[] {
  if (
    previous === undefined ||
    usage.messageCount <= previous.prefix.length ||
    !startsWithSame(messages, previous.prefix)
  )
    return [];
  return messages.slice(previous.prefix.length, usage.messageCount);
}

/**
 * Learns from `usage` (over `messages`) against the previous anchor: when the request still
 * began with the messages the previous figure covered, the figures' difference is what the
 * provider counted for the messages added since, and `localTokensOf` gives what the local
 * tokenizer counts for them. Both figures include the same system prompt and tools, which the
 * difference cancels. Returns the new anchor.
 */
export function learnFromUsage(
  messages: readonly Message[],
  usage: CheckedUsage,
  previous: UsageAnchor | undefined,
  calibration: TokenCalibration,
  localTokensOf: (message: Message) => number,
): UsageAnchor {
  if (
    previous !== undefined &&
    usage.messageCount > previous.prefix.length &&
    startsWithSame(messages, previous.prefix)
  ) {
    let addedLocalTokens = 0;
    for (let index = previous.prefix.length; index < usage.messageCount; index += 1)
      addedLocalTokens += localTokensOf(messages[index] as Message);
    calibration.observe(usage.inputTokens - previous.inputTokens, addedLocalTokens);
  }
  return { inputTokens: usage.inputTokens, prefix: messages.slice(0, usage.messageCount) };
}
