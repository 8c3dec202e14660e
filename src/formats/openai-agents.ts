/**
 * OpenAI Agents SDK items (`AgentInputItem` of `@openai/agents`) to and from the canonical shape.
 * They differ from the Responses API's items (`callId`, `function_call_result` with `name`,
 * `status` and a structured `output`), hence an adapter of their own. This file imports no SDK.
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
  isRecord,
  parseToolArguments,
  requireRecord,
  requireString,
  stringifyMessageJson,
  textOfToolContent,
  toolResultBlock,
} from './fields.js';
import { wrapItem } from './opaque-items.js';

/** A content part of an Agents SDK message or tool output: `input_text`, `output_text`, `input_image`, `text`, `image`, ... */
export type OpenAIAgentsContentPart = { type: string; [field: string]: unknown } | { type: string };

/**
 * An item of an Agents SDK history, as `AgentInputItem` describes it (any item of that type
 * fits): a message, a `function_call`, a `function_call_result`, or any other item (reasoning,
 * hosted and computer tool calls, ...), which is kept as it is.
 */
export type OpenAIAgentsItem =
  | {
      type?: 'message' | undefined;
      role: 'user' | 'assistant' | 'system';
      content: string | readonly OpenAIAgentsContentPart[];
    }
  | { type: 'function_call'; callId: string; name: string; arguments: string }
  | {
      type: 'function_call_result';
      callId: string;
      name: string;
      status: string;
      output: string | OpenAIAgentsContentPart | readonly OpenAIAgentsContentPart[];
    }
  | { type: string };

const FORMAT = 'openai-agents';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system']);
const PART_TYPES = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'audio', 'image', 'refusal']);

/** Item types of the Agents SDK other than messages, for detection. */
const ITEM_TYPES = new Set([
  'function_call',
  'function_call_result',
  'hosted_tool_call',
  'computer_call',
  'computer_call_result',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'reasoning',
  'compaction',
  'unknown',
  'tool_search_call',
  'tool_search_output',
  'program',
  'program_output',
]);

const SHAPE: ItemShape = {
  roles: MESSAGE_ROLES,
  partTypes: PART_TYPES,
  itemTypes: ITEM_TYPES,
  callTypes: ['function_call', 'function_call_result'],
  callIdField: 'callId',
  rolesText: '"user", "assistant" or "system"',
};

function readOutput(output: unknown, index: number): string | ContentBlock[] {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return readItemParts(output, index, '.output');
  if (isRecord(output) && typeof output.type === 'string') {
    if (output.type === 'text') {
      if (typeof output.text !== 'string') throw invalidField(index, '.output.text', 'must be a string', output.text);
      // The SDK wraps every string a tool returns as { type: 'text', text }: read it as the
      // string it was, so an offloaded file holds the text (pageable by line), not its JSON.
      // The way back rebuilds the wrapper on the original (toOutput).
      return output.text;
    }
    // Any other single structured output (an image, a file): one block, kept as it is.
    return [output as unknown as ContentBlock];
  }
  throw invalidField(
    index,
    '.output',
    'must be a string, an output object ({ type: "text", text }, ...) or an array of content parts',
    output,
  );
}

function toCanonical(message: unknown, index: number): Message {
  const item = requireRecord(message, index, 'an OpenAI Agents SDK item object');
  const { type } = item;
  if (type === 'message' || (type === undefined && 'role' in item)) return readItemMessage(item, index, SHAPE);
  if (type === 'function_call') {
    const block: ToolUseBlock = {
      type: 'tool_use',
      id: requireString(item, 'callId', index),
      name: requireString(item, 'name', index),
      input: parseToolArguments(requireString(item, 'arguments', index)),
    };
    return { role: 'assistant', content: [block] };
  }
  if (type === 'function_call_result') {
    return {
      role: 'user',
      content: [toolResultBlock(requireString(item, 'callId', index), readOutput(item.output, index), false)],
    };
  }
  if (typeof type === 'string') return wrapItem(FORMAT, type, item);
  throw invalidField(
    index,
    '.type',
    'must be an item type ("message", "function_call", "function_call_result", ...) or a message with a role',
    type,
  );
}

function matches(message: unknown): boolean {
  return matchesItem(message, SHAPE);
}

/** A canonical block as a part: a text block becomes `textType`, anything else is kept. */
function toPart(block: ContentBlock, textType: 'input_text' | 'output_text'): OpenAIAgentsContentPart {
  const fields = fieldsOf(block);
  if (fields.type !== 'text' || typeof fields.text !== 'string') return block;
  const part = { type: textType, text: fields.text };
  return part;
}

/**
 * A tool output for canonical `content` in the shape of `previous` (the original output): text
 * stays a string, a single `{ type: 'text' }` output stays one, parts stay parts.
 */
function toOutput(
  content: string | readonly ContentBlock[],
  previous: unknown,
): string | OpenAIAgentsContentPart | OpenAIAgentsContentPart[] {
  if (typeof content === 'string') {
    if (!isRecord(previous) || previous.type !== 'text') return content;
    const part = { ...previous, type: 'text', text: content };
    return part;
  }
  if (content.length === 1 && !Array.isArray(previous) && isRecord(previous)) return content[0]!;
  return content.map((block) => toPart(block, 'input_text'));
}

/** An assistant message item: the SDK wants `status` and an array of parts. */
function assistantItem(parts: OpenAIAgentsContentPart[]): OpenAIAgentsItem {
  const item = { role: 'assistant' as const, status: 'completed', content: parts };
  return item;
}

function buildItems(message: Message, context: BuildContext<OpenAIAgentsItem>): OpenAIAgentsItem[] {
  const { role, content } = message;
  if (typeof content === 'string')
    return [
      role === 'assistant'
        ? assistantItem([{ type: 'output_text', text: content } as OpenAIAgentsContentPart])
        : { role, content },
    ];
  return buildItemsOfBlocks<OpenAIAgentsItem>(FORMAT, content, {
    message: (run) => {
      if (role === 'system') return { role, content: textOfToolContent(run) };
      if (role === 'assistant') return assistantItem(run.map((block) => toPart(block, 'output_text')));
      return { role, content: run.map((block) => toPart(block, 'input_text')) };
    },
    call: (use, position) => ({
      type: 'function_call',
      callId: use.id,
      name: use.name,
      arguments: stringifyMessageJson(use.input ?? {}, `messages[${context.index}].content[${position}].input`),
    }),
    result: (result) => {
      const name = context.toolNameOf(result.tool_use_id) ?? UNKNOWN_TOOL_NAME;
      return {
        type: 'function_call_result',
        callId: result.tool_use_id,
        name,
        status: 'completed',
        output: toOutput(result.content, undefined),
      };
    },
  });
}

/** The `name` of a `function_call_result` built fresh whose call is not in the history. */
const UNKNOWN_TOOL_NAME = 'unknown';

function replaceToolOutputs(
  original: OpenAIAgentsItem,
  changes: readonly ToolOutputChange[],
): OpenAIAgentsItem | undefined {
  const change = changes[0];
  if (original.type !== 'function_call_result' || change === undefined) return undefined;
  const result = original as Extract<OpenAIAgentsItem, { type: 'function_call_result' }>;
  return { ...result, output: toOutput(change.block.content, result.output) };
}

const codec: FormatCodec<OpenAIAgentsItem> = {
  name: FORMAT,
  matches,
  toCanonical,
  fromCanonical: buildItems,
  replaceToolOutputs,
};

/**
 * OpenAI Agents SDK items (`AgentInputItem` of `@openai/agents`: what `run()` takes as input,
 * `result.history`, and a `Session`'s items).
 *
 * - Messages keep their role; `input_text` and `output_text` parts become text blocks, other
 *   parts are kept as blocks.
 * - `function_call` becomes an assistant message with one `tool_use` (`callId` -> `id`,
 *   `arguments` parsed); `function_call_result` a user message with one `tool_result` whose
 *   content is the `output` (a string, or the structured output as blocks).
 * - Every other item (`reasoning`, `compaction`, hosted, computer and shell tool calls,
 *   `unknown`) becomes an assistant message holding one block of type `openai-agents:<item type>`
 *   that keeps the item; it converts back to that very item.
 *
 * Items nothing changed come back as the caller's own objects; an offloaded
 * `function_call_result` comes back as a copy of the original (`name`, `status`, `providerData`
 * kept) whose `output` is the reference text (a string, or `{ type: 'text', text }` when the
 * original output was one).
 */
export const openaiAgents: TypedMessageFormat<OpenAIAgentsItem> = defineMessageFormat(codec);
