/**
 * Small checks and conversions every adapter shares: reading a field of an unknown message with
 * a clear error, and the JSON arguments string of a tool call.
 */
import { describeValue, InvalidMessageError } from '../core/errors.js';
import type { ContentBlock, Message, TextBlock, ToolResultBlock } from '../core/types.js';
import { assertJsonLike } from '../core/messages/validate-messages.js';

/** A plain record, as read from an unknown message. */
export type Fields = Readonly<Record<string, unknown>>;

/** Whether `value` is a non-null object that is not an array. */
export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An {@link InvalidMessageError} for `messages[index]` plus `field`, saying what was expected and what came. */
export function invalidField(index: number, field: string, expected: string, value: unknown): InvalidMessageError {
  return new InvalidMessageError(`messages[${index}]${field}`, `${expected}, got ${describeValue(value)}`);
}

const CANONICAL_ROLES = new Set(['system', 'user', 'assistant']);

/**
 * `INVALID_MESSAGE` naming the index and field unless `message` is a canonical message at its
 * top level: a role of system, user or assistant, and string or array content. `what` names
 * the object expected (`a message object`).
 */
export function assertCanonicalMessage(
  message: unknown,
  index: number,
  what = 'a message object',
): asserts message is Message {
  if (!isRecord(message)) throw invalidField(index, '', `must be ${what}`, message);
  if (typeof message.role !== 'string' || !CANONICAL_ROLES.has(message.role)) {
    throw invalidField(index, '.role', 'must be "system", "user" or "assistant"', message.role);
  }
  if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
    throw invalidField(index, '.content', 'must be a string or an array of blocks', message.content);
  }
}

/** `message` as a record, or `INVALID_MESSAGE` naming its index. */
export function requireRecord(message: unknown, index: number, what: string): Fields {
  if (!isRecord(message)) throw invalidField(index, '', `must be ${what}`, message);
  return message;
}

/** The string at `fields[key]`, or `INVALID_MESSAGE` naming the field. */
export function requireString(fields: Fields, key: string, index: number, prefix = ''): string {
  const value = fields[key];
  if (typeof value !== 'string') throw invalidField(index, `${prefix}.${key}`, 'must be a string', value);
  return value;
}

/** The array at `fields[key]`, or `INVALID_MESSAGE` naming the field. */
export function requireArray(fields: Fields, key: string, index: number, prefix = ''): readonly unknown[] {
  const value = fields[key];
  if (!Array.isArray(value)) throw invalidField(index, `${prefix}.${key}`, 'must be an array', value);
  return value;
}

/** Checks that every element of a parts array is an object with a string `type`. */
export function requireParts(parts: readonly unknown[], index: number, field: string): readonly Fields[] {
  for (let part = 0; part < parts.length; part += 1) {
    const value = parts[part];
    if (!isRecord(value) || typeof value.type !== 'string') {
      throw invalidField(index, `${field}[${part}]`, 'must be a content part object with a string type', value);
    }
  }
  return parts as readonly Fields[];
}

/**
 * The canonical `input` of a tool call whose arguments are a JSON string. Arguments that do not
 * parse, or parse to something other than an object, give `{}`: the canonical model needs an
 * object, and the caller's own message (kept whenever it is passed back) still holds the text.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The JSON text of a value a message holds (a tool's JSON output, a tool call's input), as
 * `JSON.stringify` writes it (`null` for `undefined`). What JSON cannot hold (a cycle, a
 * `BigInt`, nesting deeper than a thousand levels) is `INVALID_MESSAGE` naming where, under
 * `path` (`messages[3].content[0].output.value`), never the engine's own `TypeError` or stack overflow.
 */
export function stringifyMessageJson(value: unknown, path: string): string {
  assertJsonLike(value, path);
  return JSON.stringify(value) ?? 'null';
}

/** The canonical `input` of a tool call whose input is any value: an object as it is, anything else `{}`. */
export function toToolInput(value: unknown): Record<string, unknown> {
  return isRecord(value) ? (value as Record<string, unknown>) : {};
}

export function textBlock(text: string): TextBlock {
  return { type: 'text', text };
}

/** A canonical `tool_result` block; `is_error` only when set. */
export function toolResultBlock(
  toolUseId: string,
  content: string | ContentBlock[],
  isError: boolean,
): ToolResultBlock {
  return isError
    ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true }
    : { type: 'tool_result', tool_use_id: toolUseId, content };
}

/** Reads a canonical block's fields without narrowing the block union. */
export function fieldsOf(block: ContentBlock): Fields {
  return block as unknown as Fields;
}

/** The text of a canonical `tool_result` content: a string as it is, the text blocks joined. */
export function textOfToolContent(content: string | readonly ContentBlock[]): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of content) {
    const fields = fieldsOf(block);
    if (fields.type === 'text' && typeof fields.text === 'string') text += fields.text;
  }
  return text;
}
