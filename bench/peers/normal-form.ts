/**
 * The bench's normal form of a conversation: a user message holding tool results is split into
 * one message per result (its text, if any, in a message of its own). That is the shape
 * LangChain's `ToolMessage`s and the AI SDK's tool messages come back in, so every system's
 * requests are counted in the same shape and their token figures compare.
 */
import type { ContentBlock, Message } from '../../src/core/types.js';

const normalForms = new WeakMap<Message, Message[]>();

/** `message` in normal form: one message, or several when it mixes tool results with other blocks. */
function normalizeMessage(message: Message): Message[] {
  const known = normalForms.get(message);
  if (known !== undefined) return known;
  let normal: Message[] = [message];
  const blocks = message.content;
  if (
    message.role === 'user' &&
    Array.isArray(blocks) &&
    blocks.length > 1 &&
    blocks.some((block) => block.type === 'tool_result')
  ) {
    normal = [];
    let others: ContentBlock[] = [];
    const flush = (): void => {
      if (others.length > 0) normal.push({ role: 'user', content: others });
      others = [];
    };
    for (const block of blocks) {
      if (block.type !== 'tool_result') {
        others.push(block);
        continue;
      }
      flush();
      normal.push({ role: 'user', content: [block] });
    }
    flush();
  }
  normalForms.set(message, normal);
  return normal;
}

/**
 * `messages` in normal form: each user message mixing tool results with other blocks split
 * into one message per result. Memoized per message object, so an unchanged message keeps
 * its normal form's objects (and their cached token counts) from one request to the next.
 */
export function normalizeMessages(messages: readonly Message[]): Message[] {
  return messages.flatMap(normalizeMessage);
}
