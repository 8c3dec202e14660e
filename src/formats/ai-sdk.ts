/**
 * Vercel AI SDK messages (`ModelMessage` of `ai` 6 and 7) to and from the canonical shape. The
 * shapes are written here structurally: this file imports no SDK.
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
  requireArray,
  requireParts,
  requireRecord,
  requireString,
  stringifyMessageJson,
  textBlock,
  textOfToolContent,
  toolResultBlock,
  toToolInput,
  type Fields,
} from './fields.js';

/** A part of an AI SDK message: `text`, `image`, `file`, `reasoning`, `tool-call`, `tool-result`, ... */
export type AiSdkPart = { type: string; [field: string]: unknown } | { type: string };

/**
 * An AI SDK message, as `ModelMessage` of `ai` 6 and 7 describes it (any message of that type
 * fits). Other fields (`providerOptions`) are kept.
 */
export type AiSdkMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | readonly AiSdkPart[] }
  | { role: 'assistant'; content: string | readonly AiSdkPart[] }
  | { role: 'tool'; content: readonly AiSdkPart[] };

interface ToolResultOutput {
  type: string;
  value?: unknown;
  reason?: string;
}

const USER_PART_TYPES = new Set(['text', 'image', 'file']);
const ASSISTANT_PART_TYPES = new Set([
  'text',
  'file',
  'reasoning',
  'reasoning-file',
  'custom',
  'tool-call',
  'tool-result',
  'tool-approval-request',
]);
const TOOL_PART_TYPES = new Set(['tool-result', 'tool-approval-response']);

/** The text an `execution-denied` output stands for when it gives no reason (the AI SDK's own wording). */
const DENIED_TEXT = 'Tool call execution denied.';

/** The name of a `tool-result` built fresh whose call is not in the history. */
const UNKNOWN_TOOL_NAME = 'unknown';

function checkTextParts(parts: readonly Fields[], index: number, field: string): void {
  for (let position = 0; position < parts.length; position += 1) {
    const part = parts[position]!;
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text !== 'string') {
      throw invalidField(index, `${field}[${position}].text`, 'must be a string', part.text);
    }
  }
}

function readOutput(
  output: unknown,
  index: number,
  field: string,
): { content: string | ContentBlock[]; isError: boolean } {
  if (!isRecord(output) || typeof output.type !== 'string')
    throw invalidField(
      index,
      field,
      'must be a tool output object with a type ("text", "json", "error-text", ...)',
      output,
    );
  switch (output.type) {
    case 'text':
    case 'error-text':
      if (typeof output.value !== 'string')
        throw invalidField(index, `${field}.value`, 'must be a string', output.value);
      return { content: output.value, isError: output.type === 'error-text' };
    case 'json':
    case 'error-json':
      return {
        content: stringifyMessageJson(output.value, `messages[${index}]${field}.value`),
        isError: output.type === 'error-json',
      };
    case 'execution-denied':
      return { content: typeof output.reason === 'string' ? output.reason : DENIED_TEXT, isError: false };
    case 'content': {
      const parts = requireParts(requireArray(output, 'value', index, field), index, `${field}.value`);
      checkTextParts(parts, index, `${field}.value`);
      return { content: parts as unknown as ContentBlock[], isError: false };
    }
    default:
      // An output type of a later major: kept as one block, counted as nothing.
      return { content: [output as unknown as ContentBlock], isError: false };
  }
}

function readAssistantPart(part: Fields): ContentBlock {
  if (part.type === 'reasoning') return { type: 'thinking', thinking: part.text as string };
  if (part.type !== 'tool-call') return part as unknown as ContentBlock;
  const input = typeof part.input === 'string' ? parseToolArguments(part.input) : toToolInput(part.input);
  const block: ToolUseBlock = { type: 'tool_use', id: part.toolCallId as string, name: part.toolName as string, input };
  return block;
}

function toCanonical(message: unknown, index: number): Message {
  const fields = requireRecord(message, index, 'an AI SDK message object');
  const { role, content } = fields;
  switch (role) {
    case 'system':
      return { role: 'system', content: requireString(fields, 'content', index) };
    case 'user':
    case 'assistant': {
      if (typeof content === 'string') return { role, content };
      if (!Array.isArray(content))
        throw invalidField(index, '.content', 'must be a string or an array of parts', content);
      const parts = requireParts(content, index, '.content');
      checkTextParts(parts, index, '.content');
      // A user message's parts are canonical blocks as they are (a text part is a text block).
      if (role === 'user') return { role, content: parts as unknown as ContentBlock[] };
      parts.forEach((part, position) => {
        if (part.type !== 'tool-call') return;
        requireString(part, 'toolCallId', index, `.content[${position}]`);
        requireString(part, 'toolName', index, `.content[${position}]`);
      });
      return { role, content: parts.map(readAssistantPart) };
    }
    case 'tool': {
      const parts = requireParts(requireArray(fields, 'content', index), index, '.content');
      return {
        role: 'user',
        content: parts.map((part, position) => {
          if (part.type !== 'tool-result') return part as unknown as ContentBlock;
          const toolCallId = requireString(part, 'toolCallId', index, `.content[${position}]`);
          const { content: output, isError } = readOutput(part.output, index, `.content[${position}].output`);
          return toolResultBlock(toolCallId, output, isError);
        }),
      };
    }
    default:
      throw invalidField(index, '.role', 'must be "system", "user", "assistant" or "tool"', role);
  }
}

function arePartsOf(content: unknown, types: ReadonlySet<string>): boolean {
  return Array.isArray(content) && content.every((part: unknown) => isRecord(part) && types.has(part.type as string));
}

function matches(message: unknown): boolean {
  if (!isRecord(message) || 'type' in message || 'tool_calls' in message) return false;
  const { role, content } = message;
  switch (role) {
    case 'system':
      return typeof content === 'string';
    case 'user':
      return typeof content === 'string' || arePartsOf(content, USER_PART_TYPES);
    case 'assistant':
      return typeof content === 'string' || arePartsOf(content, ASSISTANT_PART_TYPES);
    case 'tool':
      return (
        arePartsOf(content, TOOL_PART_TYPES) &&
        (content as readonly Fields[]).every(
          (part) => typeof part.toolCallId === 'string' || typeof part.approvalId === 'string',
        )
      );
    default:
      return false;
  }
}

/** A canonical block as an AI SDK part: text and thinking become `text` and `reasoning` parts, anything else is kept. */
function toPart(block: ContentBlock): AiSdkPart {
  const fields = fieldsOf(block);
  if (fields.type === 'text' && typeof fields.text === 'string') return textBlock(fields.text);
  if (fields.type === 'thinking' && typeof fields.thinking === 'string') {
    const part = { type: 'reasoning', text: fields.thinking };
    return part;
  }
  if (fields.type === 'tool_use') {
    const use = block as ToolUseBlock;
    const part = { type: 'tool-call', toolCallId: use.id, toolName: use.name, input: use.input };
    return part;
  }
  return block;
}

/**
 * The tool output for canonical `content`: a string is `text` (`error-text` when the result is
 * an error), blocks are `content` parts.
 */
function toOutput(content: string | readonly ContentBlock[], isError: boolean): ToolResultOutput {
  if (typeof content === 'string') return { type: isError ? 'error-text' : 'text', value: content };
  return { type: 'content', value: content.map(toPart) };
}

function toToolPart(block: ToolResultBlock, context: BuildContext<AiSdkMessage>): AiSdkPart {
  const part = {
    type: 'tool-result',
    toolCallId: block.tool_use_id,
    toolName: context.toolNameOf(block.tool_use_id) ?? UNKNOWN_TOOL_NAME,
    output: toOutput(block.content, block.is_error === true),
  };
  return part;
}

function fromCanonical(message: Message, context: BuildContext<AiSdkMessage>): AiSdkMessage[] {
  const { role, content } = message;
  if (role === 'system') return [{ role, content: typeof content === 'string' ? content : textOfToolContent(content) }];
  if (typeof content === 'string') return [{ role, content }];
  if (role === 'assistant') return [{ role, content: content.map(toPart) }];
  // A user turn: its tool results (and approval answers) make a tool message, the rest a user message.
  const toolParts: AiSdkPart[] = [];
  const userParts: AiSdkPart[] = [];
  for (const block of content) {
    const fields = fieldsOf(block);
    if (fields.type === 'tool_result') toolParts.push(toToolPart(block as ToolResultBlock, context));
    else if (fields.type === 'tool-approval-response') toolParts.push(block);
    else userParts.push(toPart(block));
  }
  const messages: AiSdkMessage[] = [];
  if (toolParts.length > 0) messages.push({ role: 'tool', content: toolParts });
  if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
  return messages;
}

function replaceToolOutputs(original: AiSdkMessage, changes: readonly ToolOutputChange[]): AiSdkMessage | undefined {
  if (original.role !== 'tool') return undefined;
  const content = original.content.slice();
  for (const { blockIndex, block } of changes) {
    const part = content[blockIndex];
    if (part?.type !== 'tool-result') return undefined;
    const replaced = { ...part, output: toOutput(block.content, block.is_error === true) };
    content[blockIndex] = replaced;
  }
  return { ...original, content };
}

const codec: FormatCodec<AiSdkMessage> = { name: 'ai-sdk', matches, toCanonical, fromCanonical, replaceToolOutputs };

/**
 * Vercel AI SDK messages (`ModelMessage` of `ai` 6 and 7: `result.response.messages`, the
 * `messages` of `generateText`/`streamText`, `prepareStep`'s `messages`).
 *
 * - `system`, `user` and `assistant` keep their role; a `tool` message becomes a user message
 *   holding one `tool_result` per `tool-result` part.
 * - `tool-call` parts become `tool_use` blocks (`toolCallId` -> `id`, `toolName` -> `name`);
 *   `reasoning` parts become `thinking` blocks; other parts (`image`, `file`, ...) are kept.
 * - A tool output maps by its type: `text` and `error-text` to their text, `json` and
 *   `error-json` to the JSON text, `content` to its parts as blocks; the `error-*` types set
 *   `is_error`. `execution-denied` becomes its reason.
 *
 * Messages nothing changed come back as the caller's own objects; an offloaded result comes back
 * as a copy of the original part whose `output` is `{ type: 'text', value: reference }`
 * (`error-text` for an error result).
 */
export const aiSdk: TypedMessageFormat<AiSdkMessage> = defineMessageFormat(codec);
