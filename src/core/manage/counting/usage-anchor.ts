/**
 * The provider's usage figure as an anchor: the prompt size of the last request, exact for the
 * leading messages it sent. A figure that does not fit the history is refused (with the reason),
 * never trusted; a figure that extends a previous one of the same history teaches the calibration.
 */
import { ContextError } from '../../errors.js';
import { assertLastUsage, usageInputTokens } from '../../text/tokens.js';
import type { Message } from '../../types.js';
import { learnCalibration, type CalibrationState } from './calibration.js';

/** A usage figure that fits the history: its prompt size and how many leading messages it covers. */
export interface CheckedUsage {
  inputTokens: number;
  messageCount: number;
}

/** A usage figure recorded before in the same history: its prompt size and how many leading messages it covered. */
export interface PreviousUsage {
  inputTokens: number;
  messageCount: number;
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

/**
 * `calibration` after learning from `usage` (over `messages`) against `previous`, a figure of the
 * same history that counted its first `previous.messageCount` messages (the caller found it by
 * content): the figures' difference is what the provider counted for the messages added since,
 * and `localTokensOf` gives what the local tokenizer counts for them. Both figures include the
 * same system prompt and tools, which the difference cancels. `calibration` itself when there is
 * nothing to learn (no previous figure, no message added, too few tokens). Pure: the same figures
 * of the same history give the same calibration in any process.
 */
export function learnFromUsage(
  messages: readonly Message[],
  usage: CheckedUsage,
  previous: PreviousUsage | undefined,
  calibration: CalibrationState,
  localTokensOf: (message: Message) => number,
): CalibrationState {
  if (previous === undefined || usage.messageCount <= previous.messageCount) return calibration;
  let addedLocalTokens = 0;
  for (let index = previous.messageCount; index < usage.messageCount; index += 1)
    addedLocalTokens += localTokensOf(messages[index] as Message);
  return learnCalibration(calibration, usage.inputTokens - previous.inputTokens, addedLocalTokens) ?? calibration;
}
