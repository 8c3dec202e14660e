/**
 * OpenAI Responses API input items (`ResponseInputItem`) to and from the canonical shape. The
 * shapes are written here structurally: this file imports no SDK.
 */
import type { ContentBlock, Message, ToolUseBlock } from '../core/types.js';
import {
  defineMessageFormat,
  type BuildContext,
  type FormatCodec,
  type ToolOutputChange,
  type TypedMessageFormat,
} from './define-format.js';
import { buildItemsOfBlocks, matchesItem, readItemMessage, readItemParts, type ItemShape } from './item-shape.js';
import {
  fieldsOf,
  invalidField,
  parseToolArguments,
  requireRecord,
  requireString,
  stringifyMessageJson,
  toolResultBlock,
} from './fields.js';
import { wrapItem } from './opaque-items.js';

/** A content part of a Responses message or tool output: `input_text`, `output_text`, `input_image`, `input_file`, `refusal`, ... */
export type OpenAIResponsesContentPart = { type: string; [field: string]: unknown } | { type: string };

/**
 * A Responses API input item, as the OpenAI SDK's `ResponseInputItem` describes it (any item of
 * that type fits): a message, a `function_call`, a `function_call_output`, or any other item
 * (reasoning, compaction, hosted tool calls, ...), which is kept as it is.
 */
export type OpenAIResponsesItem =
  | {
      type?: 'message' | undefined;
      role: 'user' | 'assistant' | 'system' | 'developer';
      content: string | readonly OpenAIResponsesContentPart[];
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | readonly OpenAIResponsesContentPart[] }
  | { type?: string | null | undefined; id?: string | null | undefined };

const FORMAT = 'openai-responses';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const PART_TYPES = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'input_audio', 'refusal']);

/** Item types of the Responses API other than messages, for detection. */
const ITEM_TYPES = new Set([
  'function_call',
  'function_call_output',
  'reasoning',
  'compaction',
  'item_reference',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'web_search_call',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'tool_search_call',
  'tool_search_output',
]);

const SHAPE: ItemShape = {
  roles: MESSAGE_ROLES,
  partTypes: PART_TYPES,
  itemTypes: ITEM_TYPES,
  callTypes: ['function_call', 'function_call_output'],
  callIdField: 'call_id',
  rolesText: '"user", "assistant", "system" or "developer"',
};

function toCanonical(message: unknown, index: number): Message {
  const item = requireRecord(message, index, 'a Responses API input item object');
  const { type } = item;
  if (type === 'message' || ((type === undefined || type === null) && 'role' in item))
    return readItemMessage(item, index, SHAPE);
  if (type === 'function_call') {
    const block: ToolUseBlock = {
      type: 'tool_use',
      id: requireString(item, 'call_id', index),
      name: requireString(item, 'name', index),
      input: parseToolArguments(requireString(item, 'arguments', index)),
    };
    return { role: 'assistant', content: [block] };
  }
  if (type === 'function_call_output') {
    const callId = requireString(item, 'call_id', index);
    const { output } = item;
    if (typeof output === 'string') return { role: 'user', content: [toolResultBlock(callId, output, false)] };
    if (Array.isArray(output))
      return { role: 'user', content: [toolResultBlock(callId, readItemParts(output, index, '.output'), false)] };
    throw invalidField(index, '.output', 'must be a string or an array of content parts', output);
  }
  if (typeof type === 'string') return wrapItem(FORMAT, type, item);
  if ((type === undefined || type === null) && typeof item.id === 'string')
    return wrapItem(FORMAT, 'item_reference', item);
  throw invalidField(
    index,
    '.type',
    'must be an item type ("message", "function_call", "function_call_output", ...) or a message with a role',
    type,
  );
}

function matches(message: unknown): boolean {
  return matchesItem(message, SHAPE);
}

/** A canonical block as a Responses content part of a message of `role` (or of a tool output). */
function toPart(block: ContentBlock, textType: 'input_text' | 'output_text'): OpenAIResponsesContentPart {
  const fields = fieldsOf(block);
  if (fields.type !== 'text' || typeof fields.text !== 'string') return block;
  return textType === 'output_text'
    ? ({ type: 'output_text', text: fields.text, annotations: [] } as OpenAIResponsesContentPart)
    : ({ type: 'input_text', text: fields.text } as OpenAIResponsesContentPart);
}

function toOutput(content: string | readonly ContentBlock[]): string | OpenAIResponsesContentPart[] {
  return typeof content === 'string' ? content : content.map((block) => toPart(block, 'input_text'));
}

/** Items for a canonical message built fresh, in block order: a run of plain blocks makes one message. */
function buildItems(message: Message, context: BuildContext<OpenAIResponsesItem>): OpenAIResponsesItem[] {
  const { role, content } = message;
  if (typeof content === 'string') return [{ role, content }];
  return buildItemsOfBlocks<OpenAIResponsesItem>(FORMAT, content, {
    message: (run) => {
      const single = run.length === 1 ? fieldsOf(run[0]!) : undefined;
      const textType = role === 'assistant' ? 'output_text' : 'input_text';
      return {
        role,
        content:
          single?.type === 'text' && typeof single.text === 'string'
            ? single.text
            : run.map((block) => toPart(block, textType)),
      };
    },
    call: (use, position) => ({
      type: 'function_call',
      call_id: use.id,
      name: use.name,
      arguments: stringifyMessageJson(use.input ?? {}, `messages[${context.index}].content[${position}].input`),
    }),
    result: (result) => ({
      type: 'function_call_output',
      call_id: result.tool_use_id,
      output: toOutput(result.content),
    }),
  });
}

function replaceToolOutputs(
  original: OpenAIResponsesItem,
  changes: readonly ToolOutputChange[],
): OpenAIResponsesItem | undefined {
  const change = changes[0];
  if (original.type !== 'function_call_output' || change === undefined) return undefined;
  return {
    ...(original as Extract<OpenAIResponsesItem, { type: 'function_call_output' }>),
    output: toOutput(change.block.content),
  };
}

const codec: FormatCodec<OpenAIResponsesItem> = {
  name: FORMAT,
  matches,
  toCanonical,
  fromCanonical: buildItems,
  replaceToolOutputs,
};

/**
 * OpenAI Responses API input items (`ResponseInputItem`, and the output items of a response
 * passed back as input).
 *
 * - A `message` item keeps its role (`developer` becomes canonical `system`); `input_text` and
 *   `output_text` parts become text blocks, other parts (`input_image`, `input_file`, ...) are
 *   kept as blocks.
 * - `function_call` becomes an assistant message with one `tool_use` (`call_id` -> `id`,
 *   `arguments` parsed); `function_call_output` a user message with one `tool_result`.
 * - Every other item (`reasoning`, `compaction`, hosted tool calls, `item_reference`, types not
 *   known yet) becomes an assistant message holding one block of type
 *   `openai-responses:<item type>` that keeps the item; it converts back to that very item.
 *
 * Items nothing changed come back as the caller's own objects; an offloaded
 * `function_call_output` comes back as a copy of the original whose `output` is the reference text.
 */
export const openaiResponses: TypedMessageFormat<OpenAIResponsesItem> = defineMessageFormat(codec);
