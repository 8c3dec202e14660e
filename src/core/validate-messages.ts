/**
 * Shape checks for message histories. Only what the package relies on is checked; unknown
 * block types and fields pass (DESIGN §2).
 */
import { describeValue, InvalidMessageError } from './errors.js';
import type { Message } from './types.js';

const ROLES = new Set(['system', 'user', 'assistant']);

/**
 * Throws {@link InvalidMessageError} (code `INVALID_MESSAGE`) with the path of the first bad
 * field: not an object, a `role` outside system/user/assistant, `content` neither string nor
 * array, a block that is not an object with a string `type`, a `tool_result` without a string
 * `tool_use_id` or with content neither string nor array, a `tool_use` without a string `id`
 * and `name`.
 */
export function assertMessage(message: unknown, path: string): asserts message is Message {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidMessageError(path, `expected a message object, got ${describeValue(message)}`);
  }
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new InvalidMessageError(`${path}.role`, `expected "system", "user" or "assistant", got ${describeValue(role)}`);
  }
  if (typeof content === 'string') return;
  if (!Array.isArray(content)) {
    throw new InvalidMessageError(`${path}.content`, `expected a string or an array of blocks, got ${describeValue(content)}`);
  }
  content.forEach((block: unknown, index) => assertBlock(block, `${path}.content[${index}]`));
}

function assertBlock(block: unknown, path: string): void {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    throw new InvalidMessageError(path, `expected a content block object, got ${describeValue(block)}`);
  }
  const fields = block as Record<string, unknown>;
  if (typeof fields.type !== 'string') {
    throw new InvalidMessageError(`${path}.type`, `expected a string, got ${describeValue(fields.type)}`);
  }
  if (fields.type === 'tool_result') {
    if (typeof fields.tool_use_id !== 'string') {
      throw new InvalidMessageError(`${path}.tool_use_id`, `expected a string, got ${describeValue(fields.tool_use_id)}`);
    }
    const content = fields.content;
    // The API allows a tool_result without content; it counts as an empty string.
    if (content !== undefined && typeof content !== 'string' && !Array.isArray(content)) {
      throw new InvalidMessageError(`${path}.content`, `expected a string or an array of blocks, got ${describeValue(content)}`);
    }
  } else if (fields.type === 'tool_use') {
    if (typeof fields.id !== 'string') {
      throw new InvalidMessageError(`${path}.id`, `expected a string, got ${describeValue(fields.id)}`);
    }
    if (typeof fields.name !== 'string') {
      throw new InvalidMessageError(`${path}.name`, `expected a string, got ${describeValue(fields.name)}`);
    }
  }
}

/** Throws {@link InvalidMessageError} unless `messages` is an array of valid messages. */
export function assertMessages(messages: unknown, path = 'messages'): asserts messages is Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(path, `expected an array of messages, got ${describeValue(messages)}`);
  }
  messages.forEach((message: unknown, index) => assertMessage(message, `${path}[${index}]`));
}
