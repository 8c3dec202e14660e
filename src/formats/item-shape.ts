/**
 * Detection of item-list histories (the Responses API's input items and the OpenAI Agents SDK's
 * items): the two share a layout (messages with a role, tool calls and results as items of their
 * own type, any other item type kept as it is) and differ in names, which an {@link ItemShape}
 * gives.
 */
import { isRecord } from './fields.js';

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
}

/** Whether `message` is an item of the format `shape` describes. */
export function matchesItem(message: unknown, shape: ItemShape): boolean {
  if (!isRecord(message)) return false;
  const { type } = message;
  if (type === 'message' || ((type === undefined || type === null) && 'role' in message)) {
    if (typeof message.role !== 'string' || !shape.roles.has(message.role)) return false;
    const { content } = message;
    return typeof content === 'string' || (Array.isArray(content) && content.every((part: unknown) => isRecord(part) && shape.partTypes.has(part.type as string)));
  }
  if (type === shape.callTypes[0] || type === shape.callTypes[1]) return typeof message[shape.callIdField] === 'string';
  return typeof type === 'string' && shape.itemTypes.has(type);
}
