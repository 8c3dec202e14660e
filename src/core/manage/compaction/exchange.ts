/**
 * The exchange in flight: what a compaction inside `prepare` keeps verbatim after the summary,
 * so a request never ends with the summary's acknowledgement and the model keeps what it just
 * asked for. It is the last message when it is the user's, and when that message answers tool
 * calls, the assistant message that made them (a call and its result are never split). A
 * history that ends with the assistant's own message is the caller's to continue: nothing is
 * kept apart then.
 */
import { isToolResultBlock, isToolUseBlock, type Message } from '../../types.js';

/**
 * Where the exchange in flight starts in `messages`: the last message when it is the user's, or
 * the assistant message holding the calls it answers (the earliest, when it answers several).
 * Everything from there on is kept. `messages.length` when the history (after the first
 * `headLength`) does not end with a user message.
 */
export function findExchangeStart(messages: readonly Message[], headLength: number): number {
  const user = messages.length - 1;
  if (user < headLength || messages[user]?.role !== 'user') return messages.length;
  const content = (messages[user] as Message).content;
  if (typeof content === 'string') return user;
  const answered = new Set<string>();
  for (const block of content) if (isToolResultBlock(block)) answered.add(block.tool_use_id);
  let start = user;
  for (let index = user - 1; index >= headLength && answered.size > 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (isToolUseBlock(block) && answered.delete(block.id)) start = index;
    }
  }
  return start;
}
