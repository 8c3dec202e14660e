/**
 * OpenAI Chat Completions messages (`ChatCompletionMessageParam`) to and from the canonical
 * shape. The shapes are written here structurally: this file imports no SDK.
 */
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from '../core/types.js';
import {
  defineMessageFormat,
  type BuildContext,
  type FormatCodec,
  type ToolOutputChange,
  type TypedMessageFormat,
} from './define-format.js';
import {
  fieldsOf,
  invalidField,
  isRecord,
  parseToolArguments,
  requireParts,
  requireRecord,
  requireString,
  stringifyMessageJson,
  textBlock,
  toolResultBlock,
  type Fields,
} from './fields.js';

/**
 * A content part of a Chat Completions message: `text`, `image_url`, `input_audio`, `file`,
 * `refusal`. The second member lets the SDK's part interfaces fit, the first any object literal.
 */
export type OpenAIChatContentPart = { type: string; [field: string]: unknown } | { type: string };

/** A tool call of an assistant message: a function call (`arguments` is a JSON string) or a custom tool call. */
export type OpenAIChatToolCall =
  | { id: string; type: string; function?: { name: string; arguments: string } | undefined; [field: string]: unknown }
  | { id: string; type: string; function?: { name: string; arguments: string } | undefined };

/**
 * A Chat Completions message, as the OpenAI SDK's `ChatCompletionMessageParam` describes it
 * (any message of that type fits). Other fields (`name`, `refusal`, `audio`, ...) are kept.
 */
export type OpenAIChatMessage =
  | { role: 'system' | 'developer'; content: string | readonly OpenAIChatContentPart[] }
  | { role: 'user'; content: string | readonly OpenAIChatContentPart[] }
  | {
      role: 'assistant';
      content?: string | readonly OpenAIChatContentPart[] | null | undefined;
      tool_calls?: readonly OpenAIChatToolCall[] | undefined;
    }
  | { role: 'tool'; content: string | readonly OpenAIChatContentPart[]; tool_call_id: string }
  | { role: 'function'; content: string | null; name: string };

/** Type of the canonical block holding a legacy `function` message as it is. */
const FUNCTION_MESSAGE_BLOCK = 'openai-chat:function';
/** Type of the canonical block holding a tool call that is not a function call (a custom tool) as it is. */
const TOOL_CALL_BLOCK = 'openai-chat:tool_call';

const PART_TYPES = new Set(['text', 'image_url', 'input_audio', 'file', 'refusal']);

/** Canonical blocks of a parts array: the parts themselves (a chat `text` part is a canonical text block). */
function readParts(parts: readonly unknown[], index: number, field: string): ContentBlock[] {
  const checked = requireParts(parts, index, field);
  for (let part = 0; part < checked.length; part += 1) {
    const fields = checked[part]!;
    if (fields.type === 'text' && typeof fields.text !== 'string')
      throw invalidField(index, `${field}[${part}].text`, 'must be a string', fields.text);
  }
  // Shared, not copied: nothing in the package changes a block in place.
  return checked as unknown as ContentBlock[];
}

function readContent(message: Fields, index: number): string | ContentBlock[] {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return readParts(content, index, '.content');
  throw invalidField(index, '.content', 'must be a string or an array of content parts', content);
}

function readToolCall(call: unknown, index: number, position: number): ContentBlock {
  const field = `.tool_calls[${position}]`;
  if (!isRecord(call)) throw invalidField(index, field, 'must be a tool call object', call);
  const id = requireString(call, 'id', index, field);
  if (call.type !== 'function' && call.type !== undefined) return { type: TOOL_CALL_BLOCK, tool_call: call };
  const fn = call.function;
  if (!isRecord(fn)) throw invalidField(index, `${field}.function`, 'must be an object with name and arguments', fn);
  const name = requireString(fn, 'name', index, `${field}.function`);
  const args = requireString(fn, 'arguments', index, `${field}.function`);
  return { type: 'tool_use', id, name, input: parseToolArguments(args) } satisfies ToolUseBlock;
}

function readAssistant(message: Fields, index: number): Message {
  const { content, tool_calls: toolCalls } = message;
  let blocks: ContentBlock[];
  if (content === null || content === undefined) blocks = [];
  else if (typeof content === 'string') {
    if (toolCalls === undefined || (Array.isArray(toolCalls) && toolCalls.length === 0))
      return { role: 'assistant', content };
    blocks = content === '' ? [] : [textBlock(content)];
  } else if (Array.isArray(content)) {
    blocks = readParts(content, index, '.content');
    if (toolCalls === undefined) return { role: 'assistant', content: blocks };
    blocks = blocks.slice();
  } else throw invalidField(index, '.content', 'must be a string, an array of content parts or null', content);
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) throw invalidField(index, '.tool_calls', 'must be an array', toolCalls);
    toolCalls.forEach((call, position) => blocks.push(readToolCall(call, index, position)));
  }
  return { role: 'assistant', content: blocks };
}

function toCanonical(message: unknown, index: number): Message {
  const fields = requireRecord(message, index, 'an OpenAI chat message object');
  switch (fields.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: readContent(fields, index) };
    case 'user':
      return { role: 'user', content: readContent(fields, index) };
    case 'assistant':
      return readAssistant(fields, index);
    case 'tool':
      return {
        role: 'user',
        content: [toolResultBlock(requireString(fields, 'tool_call_id', index), readContent(fields, index), false)],
      };
    case 'function':
      return { role: 'user', content: [{ type: FUNCTION_MESSAGE_BLOCK, message: fields }] };
    default:
      throw invalidField(
        index,
        '.role',
        'must be "system", "developer", "user", "assistant", "tool" or "function"',
        fields.role,
      );
  }
}

function arePartsChat(content: unknown): boolean {
  if (typeof content === 'string') return true;
  if (!Array.isArray(content)) return false;
  return content.every((part: unknown) => isRecord(part) && typeof part.type === 'string' && PART_TYPES.has(part.type));
}

function matches(message: unknown): boolean {
  if (!isRecord(message) || 'type' in message) return false;
  switch (message.role) {
    case 'system':
    case 'developer':
    case 'user':
      return arePartsChat(message.content);
    case 'assistant':
      return (
        (message.content === null || message.content === undefined || arePartsChat(message.content)) &&
        (message.tool_calls === undefined ||
          (Array.isArray(message.tool_calls) &&
            message.tool_calls.every((call: unknown) => isRecord(call) && typeof call.id === 'string')))
      );
    case 'tool':
      return typeof message.tool_call_id === 'string' && arePartsChat(message.content);
    case 'function':
      return typeof message.name === 'string';
    default:
      return false;
  }
}

/** A canonical block as a chat content part: text blocks lose canonical-only fields (`cache_control`), others go as they are. */
function toPart(block: ContentBlock): OpenAIChatContentPart {
  const fields = fieldsOf(block);
  return fields.type === 'text' && typeof fields.text === 'string' ? textBlock(fields.text) : block;
}

function toToolContent(content: string | readonly ContentBlock[]): string | OpenAIChatContentPart[] {
  return typeof content === 'string' ? content : content.map(toPart);
}

function buildAssistant(blocks: readonly ContentBlock[], index: number): OpenAIChatMessage {
  const parts: OpenAIChatContentPart[] = [];
  const toolCalls: OpenAIChatToolCall[] = [];
  for (const [position, block] of blocks.entries()) {
    const fields = fieldsOf(block);
    if (fields.type === 'tool_use') {
      const use = block as ToolUseBlock;
      const args = stringifyMessageJson(use.input ?? {}, `messages[${index}].content[${position}].input`);
      toolCalls.push({ id: use.id, type: 'function', function: { name: use.name, arguments: args } });
    } else if (fields.type === TOOL_CALL_BLOCK) toolCalls.push(fields.tool_call as OpenAIChatToolCall);
    // Chat Completions takes no reasoning back: thinking is dropped from a message built fresh.
    else if (fields.type !== 'thinking' && fields.type !== 'redacted_thinking') parts.push(toPart(block));
  }
  const single = parts.length === 1 ? fieldsOf(parts[0] as ContentBlock) : undefined;
  let content: string | OpenAIChatContentPart[] | null;
  if (parts.length === 0) content = toolCalls.length > 0 ? null : '';
  else if (single?.type === 'text' && typeof single.text === 'string') content = single.text;
  else content = parts;
  return toolCalls.length > 0 ? { role: 'assistant', content, tool_calls: toolCalls } : { role: 'assistant', content };
}

/** A user message: its tool results as `tool` messages first (they must follow the calls), then the rest. */
function buildUser(blocks: readonly ContentBlock[]): OpenAIChatMessage[] {
  const messages: OpenAIChatMessage[] = [];
  const rest: OpenAIChatContentPart[] = [];
  for (const block of blocks) {
    const fields = fieldsOf(block);
    if (fields.type === 'tool_result') {
      const result = block as ToolResultBlock;
      messages.push({ role: 'tool', tool_call_id: result.tool_use_id, content: toToolContent(result.content) });
    } else if (fields.type === FUNCTION_MESSAGE_BLOCK) messages.push(fields.message as OpenAIChatMessage);
    else rest.push(toPart(block));
  }
  if (rest.length > 0) messages.push({ role: 'user', content: rest });
  return messages;
}

function fromCanonical(message: Message, context: BuildContext<OpenAIChatMessage>): OpenAIChatMessage[] {
  const { role, content } = message;
  if (role === 'assistant')
    return [buildAssistant(typeof content === 'string' ? [textBlock(content)] : content, context.index)];
  if (typeof content === 'string') return [{ role, content }];
  if (role === 'system') return [{ role: 'system', content: content.map(toPart) }];
  return buildUser(content);
}

function replaceToolOutputs(
  original: OpenAIChatMessage,
  changes: readonly ToolOutputChange[],
  _context: BuildContext<OpenAIChatMessage>,
): OpenAIChatMessage | undefined {
  const change = changes[0];
  if (original.role !== 'tool' || change === undefined) return undefined;
  return { ...original, content: toToolContent(change.block.content) };
}

const codec: FormatCodec<OpenAIChatMessage> = {
  name: 'openai-chat',
  matches,
  toCanonical,
  fromCanonical,
  replaceToolOutputs,
};

/**
 * OpenAI Chat Completions messages (`ChatCompletionMessageParam`, openai 4 to 6).
 *
 * - `system` and `developer` messages become canonical `system` messages; `user` stays `user`.
 * - An assistant message's `tool_calls` become `tool_use` blocks after its text (`arguments`, a
 *   JSON string, is parsed; arguments that do not parse give `input: {}`).
 * - A `tool` message becomes a user message holding one `tool_result` (`tool_call_id` ->
 *   `tool_use_id`); its tool name comes from the matching call when needed.
 * - Content parts (`text`, `image_url`, `input_audio`, `file`, `refusal`) are kept as blocks.
 *
 * Messages nothing changed come back as the caller's own objects; an offloaded tool message comes
 * back as a copy of the original whose `content` is the reference text.
 */
export const openaiChat: TypedMessageFormat<OpenAIChatMessage> = defineMessageFormat(codec);
