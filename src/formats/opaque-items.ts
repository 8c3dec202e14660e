/**
 * Items a format has but the canonical model has no place for (reasoning, compaction, hosted
 * tool calls, ...): each travels as an assistant message holding one block that keeps the item
 * as it is, so a message built fresh from it is the very same item.
 */
import type { ContentBlock, Message } from '../core/types.js';
import { fieldsOf } from './fields.js';

/** The canonical block holding an item of `format` whose type is `kind`, e.g. `openai-responses:reasoning`. */
interface OpaqueItemBlock {
  type: string;
  item: unknown;
}

/** An assistant message holding `item` as one block of type `<format>:<kind>`. */
export function wrapItem(format: string, kind: string, item: unknown): Message {
  const block: OpaqueItemBlock = { type: `${format}:${kind}`, item };
  return { role: 'assistant', content: [block] };
}

/** The item held by `block` when it is an opaque block of `format`, else `undefined`. */
export function unwrapItem(format: string, block: ContentBlock): unknown {
  const fields = fieldsOf(block);
  return typeof fields.type === 'string' && fields.type.startsWith(`${format}:`) && 'item' in fields
    ? fields.item
    : undefined;
}
