/**
 * Detection of item-list histories (the Responses API's input items and the OpenAI Agents SDK's
 * items): the two share a layout (messages with a role, tool calls and results as items of their
 * own type, any other item type kept as it is) and differ in names, which an {@link ItemShape}
 * gives.
 */
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../core/types.js';
import { fieldsOf, invalidField, isRecord, requireParts, textBlock, type Fields } from './fields.js';
import { unwrapItem } from './opaque-items.js';

/** Text part types both item formats use; a `text` part of the Agents SDK already is a text block. */
const TEXT_PART_TYPES = new Set(['input_text', 'output_text']);

/** The names one item-list format uses. */
export interface ItemShape {
  /** Roles a message item may have. */
  readonly roles: ReadonlySet<string>;
  /** Content part types a message may hold. */
  readonly partTypes: ReadonlySet<string>;
  /** Item types other than messages. */
  readonly itemTypes: ReadonlySet<string>;
  /** The tool call and tool result item types, e.g. `function_call` and `function_call_output`. */
  readonly callTypes: readonly [call: string, result: string];
  /** The field holding the call id on both: `call_id` or `callId`. */
  readonly callIdField: string;
  /** How an error names the allowed roles: `"user", "assistant" or "system"`. */
  readonly rolesText: string;
}

/** Canonical blocks of parts: text parts become text blocks, the rest are kept as they are. */
export function readItemParts(parts: readonly unknown[], index: number, field: string): ContentBlock[] {
  return requireParts(parts, index, field).map((part, position) => {
    if (!TEXT_PART_TYPES.has(part.type as string)) return part as unknown as ContentBlock;
    if (typeof part.text !== 'string')
      throw invalidField(index, `${field}[${position}].text`, 'must be a string', part.text);
    return textBlock(part.text);
  });
}

/** The canonical message of a message item; a `developer` message is a system message. */
export function readItemMessage(item: Fields, index: number, shape: ItemShape): Message {
  const { role, content } = item;
  if (typeof role !== 'string' || !shape.roles.has(role))
    throw invalidField(index, '.role', `must be ${shape.rolesText}`, role);
  const canonicalRole = role === 'developer' ? 'system' : (role as Message['role']);
  if (typeof content === 'string') return { role: canonicalRole, content };
  if (Array.isArray(content)) return { role: canonicalRole, content: readItemParts(content, index, '.content') };
  throw invalidField(index, '.content', 'must be a string or an array of content parts', content);
}

/** Whether `message` is an item of the format `shape` describes. */
export function matchesItem(message: unknown, shape: ItemShape): boolean {
  if (!isRecord(message)) return false;
  const { type } = message;
  if (type === 'message' || ((type === undefined || type === null) && 'role' in message)) {
    if (typeof message.role !== 'string' || !shape.roles.has(message.role)) return false;
    const { content } = message;
    return (
      typeof content === 'string' ||
      (Array.isArray(content) &&
        content.every((part: unknown) => isRecord(part) && shape.partTypes.has(part.type as string)))
    );
  }
  if (type === shape.callTypes[0] || type === shape.callTypes[1]) return typeof message[shape.callIdField] === 'string';
  return typeof type === 'string' && shape.itemTypes.has(type);
}

/** How one item format builds its items from canonical blocks. */
export interface ItemBuilders<I> {
  /** A message item of a run of consecutive content blocks (text, images, ...). */
  message(run: ContentBlock[]): I;
  /** A tool call item; `position` is the block's index in the message's content. */
  call(use: ToolUseBlock, position: number): I;
  /** A tool result item. */
  result(result: ToolResultBlock): I;
}

/**
 * The items of one canonical message's blocks, in order: an opaque block gives back the item it
 * holds, a `tool_use` a call, a `tool_result` a result, and each run of other blocks between them
 * one message item. Thinking built fresh is dropped: reasoning goes back only as the opaque
 * items it came from.
 */
export function buildItemsOfBlocks<I>(
  format: string,
  content: readonly ContentBlock[],
  builders: ItemBuilders<I>,
): I[] {
  const items: I[] = [];
  let run: ContentBlock[] = [];
  const flush = (): void => {
    if (run.length > 0) items.push(builders.message(run));
    run = [];
  };
  for (const [position, block] of content.entries()) {
    const { type } = fieldsOf(block);
    const item = unwrapItem(format, block);
    if (item !== undefined) {
      flush();
      items.push(item as I);
    } else if (type === 'tool_use') {
      flush();
      items.push(builders.call(block as ToolUseBlock, position));
    } else if (type === 'tool_result') {
      flush();
      items.push(builders.result(block as ToolResultBlock));
    } else if (type !== 'thinking' && type !== 'redacted_thinking') {
      run.push(block);
    }
  }
  flush();
  return items;
}
