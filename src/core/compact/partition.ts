/**
 * Partition: the Head is the leading run of `system` messages, kept as is;
 * the Rest is everything after it, all of it compacted.
 */
import type { Message } from '../types.js';

/** The two regions of a history. */
export interface PartitionResult {
  /** The leading `system` messages (the system prompt), kept verbatim. */
  head: Message[];
  /** Every message after the Head: what compaction summarizes. */
  rest: Message[];
}

/**
 * Splits a history into Head (leading `system` messages) and Rest (everything after).
 * No system message → empty Head; only system messages → empty Rest; empty → both empty.
 * Pure: returns new arrays holding the same message objects.
 *
 * @example
 * ```ts
 * partitionMessages([system, user, assistant]); // { head: [system], rest: [user, assistant] }
 * ```
 */
export function partitionMessages(messages: readonly Message[]): PartitionResult {
  let headLength = 0;
  while (headLength < messages.length && messages[headLength]?.role === 'system') headLength += 1;
  return { head: messages.slice(0, headLength), rest: messages.slice(headLength) };
}
