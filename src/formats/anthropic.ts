/**
 * The Anthropic Messages format: the canonical shape itself, so both directions hand back the
 * very same message objects.
 */
import type { Message } from '../core/types.js';
import type { TypedMessageFormat } from './define-format.js';
import { assertCanonicalMessage } from './fields.js';

const ROLES = new Set(['system', 'user', 'assistant']);

/** Block types that only other formats use: a history holding one is not Anthropic-shaped. */
const FOREIGN_BLOCK_TYPES = new Set([
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'tool-approval-response',
  'reasoning',
  'file',
  'image_url',
  'input_audio',
  'refusal',
  'input_text',
  'output_text',
  'input_image',
  'input_file',
]);

/** Whether `message` has the Anthropic shape: a known role and string or array content. */
function isAnthropicMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role) || 'tool_calls' in message || 'type' in message) return false;
  if (typeof content === 'string') return true;
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return false;
    const type = (block as { type?: unknown }).type;
    if (typeof type !== 'string' || FOREIGN_BLOCK_TYPES.has(type)) return false;
  }
  return true;
}

/**
 * The Anthropic Messages format (`MessageParam`): the package's own shape. Conversion is the
 * identity, so every message object comes back as it went in; `toCanonical` only checks that
 * each message has a known role and string or array content.
 */
export const anthropic: TypedMessageFormat<Message> = Object.freeze({
  name: 'anthropic',
  detect(messages: readonly unknown[]): boolean {
    return messages.length > 0 && messages.every(isAnthropicMessage);
  },
  toCanonical(messages: readonly Message[]): Message[] {
    for (let index = 0; index < messages.length; index += 1)
      assertCanonicalMessage(messages[index], index, 'an Anthropic message object');
    return messages.slice();
  },
  fromCanonical<T extends Message = Message>(canonical: readonly Message[]): T[] {
    // Canonical messages are Anthropic messages: the caller's own objects come back as they are.
    return canonical.slice() as T[];
  },
});
