/**
 * Partition: the Head is the leading run of `system` messages, or, when the history holds a
 * provider's own compaction block, everything through the newest message holding one; it is
 * kept as is. The Rest is everything after it, all of it compacted.
 */
import { findProviderCompactionHead } from '../messages/provider-compaction.js';
import { isToolResultBlock, type Message } from '../types.js';

/** The two regions of a history. */
export interface PartitionResult {
  /** The leading `system` messages (the system prompt), or everything through a provider's compaction: kept verbatim. */
  head: Message[];
  /** Every message after the Head: what compaction summarizes. */
  rest: Message[];
}

/** Whether `message` answers tool calls. */
function holdsToolResults(message: Message | undefined): boolean {
  return message !== undefined && Array.isArray(message.content) && message.content.some(isToolResultBlock);
}

/**
 * Splits a history into Head (leading `system` messages) and Rest (everything after). A
 * provider's compaction (Anthropic's `compaction` block, a Responses `compaction` item) ends the
 * Head: no summary spans what the provider compacted already. The results of calls made in the
 * Head (or before the history) stay with it: a summary never stands between a call and its result.
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
  const provider = findProviderCompactionHead(messages);
  if (provider !== undefined) headLength = Math.max(headLength, provider.index + 1);
  // results right after the Head answer calls the Head made, or calls made before this history began
  if (holdsToolResults(messages[headLength])) headLength += 1;
  return { head: messages.slice(0, headLength), rest: messages.slice(headLength) };
}
