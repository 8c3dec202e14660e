/**
 * Tool names of `tool_result` blocks. A result carries only its `tool_use_id`; the name is on
 * the matching `tool_use` the assistant sent before it (used by `excludeTools`).
 */
import { isToolUseBlock, type Message } from '../types.js';

/** Adds the `tool_use` blocks of one message to `names` (id → tool name); a later call of an id wins. */
export function recordToolNames(message: Message, names: Map<string, string>): void {
  if (typeof message.content === 'string') return;
  for (const block of message.content) {
    if (isToolUseBlock(block)) names.set(block.id, block.name);
  }
}

/** Maps each `tool_use` id in `messages` to its tool name; for a repeated id, the latest call wins. */
export function mapToolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) recordToolNames(message, names);
  return names;
}
