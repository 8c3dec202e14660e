/**
 * LangChain.js messages to and from the canonical shape, duck-typed: `BaseMessage` instances
 * (`HumanMessage`, `AIMessage`, `SystemMessage`, `ToolMessage`, ...), their serialized forms
 * (`{ lc: 1, type: 'constructor', id, kwargs }` and `{ type, data }`) and plain message-likes
 * (`{ type: 'human', content }`). This file imports nothing from LangChain: the classes of
 * messages built fresh come from the caller ({@link createLangchainFormat}) or from the history.
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
  requireParts,
  requireRecord,
  requireString,
  textBlock,
  toolResultBlock,
  toToolInput,
  type Fields,
} from './fields.js';
import { unwrapItem, wrapItem } from './opaque-items.js';

/**
 * A LangChain.js message: a `BaseMessage` instance (any fits), its serialized form, or a plain
 * message-like object with a `type` (`'human'`, `'ai'`, `'system'`, `'tool'`, ...).
 */
export interface LangChainMessage {
  readonly type?: string | undefined;
  content?: unknown;
  _getType?(): string;
  getType?(): string;
}

/** A LangChain message class (`HumanMessage`, ...): constructed with one fields object. */
export type LangChainMessageClass = abstract new (...args: never[]) => object;

/** The classes {@link createLangchainFormat} builds fresh messages with, from `@langchain/core/messages`. */
export interface LangChainMessageClasses {
  HumanMessage: LangChainMessageClass;
  AIMessage: LangChainMessageClass;
  SystemMessage: LangChainMessageClass;
  ToolMessage: LangChainMessageClass;
}

/** Options of {@link createLangchainFormat}. */
export interface LangchainFormatOptions {
  /**
   * The message classes of the caller's `@langchain/core`, used for messages built fresh (a
   * compaction's summary, a restored file). Without them, a fresh message is an instance of the
   * class of a message of the same kind in the original history, or else a plain message-like
   * object (`{ type: 'human', content }`), which LangChain accepts wherever it takes messages.
   */
  messageClasses?: LangChainMessageClasses;
}

const FORMAT = 'langchain';

/** The kinds of message LangChain knows, as `_getType()` returns them. */
const KINDS = new Set(['human', 'ai', 'system', 'developer', 'tool', 'generic', 'function', 'remove']);

/** Serialized class name -> kind. */
const CLASS_KINDS: Readonly<Record<string, string>> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  ChatMessage: 'generic',
  ChatMessageChunk: 'generic',
  FunctionMessage: 'function',
  FunctionMessageChunk: 'function',
  RemoveMessage: 'remove',
};

/** How a message is written: an instance, LangChain's two serialized forms, or a plain object. */
type Shape = 'instance' | 'serialized' | 'stored' | 'plain';

interface Reading {
  kind: string;
  /** The message's own fields (`content`, `tool_calls`, ...): the kwargs or data of a serialized form. */
  fields: Fields;
  shape: Shape;
}

/** Fields of an instance that belong to LangChain's serialization, not to the message. */
const INTERNAL_FIELDS = new Set(['lc_serializable', 'lc_kwargs', 'lc_namespace', 'lc_direct_tool_output', 'type']);

function read(message: Fields): Reading | undefined {
  if (message.lc === 1 && message.type === 'constructor' && Array.isArray(message.id) && isRecord(message.kwargs)) {
    const name = message.id.at(-1);
    const kind = typeof name === 'string' ? CLASS_KINDS[name] : undefined;
    return kind === undefined ? undefined : { kind, fields: message.kwargs, shape: 'serialized' };
  }
  if (
    typeof message.type === 'string' &&
    KINDS.has(message.type) &&
    isRecord(message.data) &&
    !('content' in message)
  ) {
    return { kind: message.type, fields: message.data, shape: 'stored' };
  }
  const getType = typeof message._getType === 'function' ? message._getType : message.getType;
  if (typeof getType === 'function') {
    const kind: unknown = getType.call(message);
    return typeof kind === 'string' ? { kind, fields: message, shape: 'instance' } : undefined;
  }
  if (typeof message.type === 'string' && KINDS.has(message.type))
    return { kind: message.type, fields: message, shape: 'plain' };
  return undefined;
}

function readContent(fields: Fields, index: number): string | ContentBlock[] {
  const { content } = fields;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = requireParts(content, index, '.content');
    parts.forEach((part, position) => {
      if (part.type === 'text' && typeof part.text !== 'string')
        throw invalidField(index, `.content[${position}].text`, 'must be a string', part.text);
    });
    // Shared, not copied: LangChain's text, tool_use and thinking parts are canonical blocks as they are.
    return parts as unknown as ContentBlock[];
  }
  throw invalidField(index, '.content', 'must be a string or an array of content parts', content);
}

function readAssistant(fields: Fields, index: number): Message {
  const content = readContent(fields, index);
  const toolCalls = fields.tool_calls;
  if (toolCalls === undefined || toolCalls === null || (Array.isArray(toolCalls) && toolCalls.length === 0))
    return { role: 'assistant', content };
  if (!Array.isArray(toolCalls)) throw invalidField(index, '.tool_calls', 'must be an array', toolCalls);
  const blocks: ContentBlock[] =
    typeof content === 'string' ? (content === '' ? [] : [textBlock(content)]) : content.slice();
  // A provider's native tool_use parts (ChatAnthropic) already stand for some of the calls.
  const present = new Set(
    blocks
      .map((block) => fieldsOf(block))
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.id),
  );
  toolCalls.forEach((call: unknown, position) => {
    const field = `.tool_calls[${position}]`;
    if (!isRecord(call)) throw invalidField(index, field, 'must be a tool call object ({ id, name, args })', call);
    const id = requireString(call, 'id', index, field);
    if (present.has(id)) return;
    const use: ToolUseBlock = {
      type: 'tool_use',
      id,
      name: requireString(call, 'name', index, field),
      input: toToolInput(call.args),
    };
    blocks.push(use);
  });
  return { role: 'assistant', content: blocks };
}

function toCanonical(message: unknown, index: number): Message {
  const reading = read(requireRecord(message, index, 'a LangChain message'));
  if (reading === undefined) {
    throw invalidField(
      index,
      '',
      'must be a LangChain message (a BaseMessage, its serialized form, or an object whose type is "human", "ai", "system", "tool", ...)',
      message,
    );
  }
  const { kind, fields } = reading;
  switch (kind) {
    case 'human':
      return { role: 'user', content: readContent(fields, index) };
    case 'system':
    case 'developer':
      return { role: 'system', content: readContent(fields, index) };
    case 'ai':
      return readAssistant(fields, index);
    case 'tool':
      return {
        role: 'user',
        content: [
          toolResultBlock(
            requireString(fields, 'tool_call_id', index),
            readContent(fields, index),
            fields.status === 'error',
          ),
        ],
      };
    case 'generic': {
      const role =
        fields.role === 'assistant' || fields.role === 'ai'
          ? 'assistant'
          : fields.role === 'system'
            ? 'system'
            : 'user';
      return { role, content: readContent(fields, index) };
    }
    default:
      return wrapItem(FORMAT, kind, message);
  }
}

function matches(message: unknown): boolean {
  return isRecord(message) && read(message) !== undefined;
}

/** The fields of an instance as its class's constructor takes them. */
function ownFields(message: Fields): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(message))
    if (!INTERNAL_FIELDS.has(key) && message[key] !== undefined) fields[key] = message[key];
  return fields;
}

function construct(Class: LangChainMessageClass, fields: Record<string, unknown>): LangChainMessage {
  return new (Class as unknown as new (fields: Record<string, unknown>) => LangChainMessage)(fields);
}

/** Canonical content as LangChain content: a string as it is, blocks as parts (text blocks lose canonical-only fields). */
function toContent(content: string | readonly ContentBlock[]): string | ContentBlock[] {
  if (typeof content === 'string') return content;
  return content.map((block) => {
    const fields = fieldsOf(block);
    return fields.type === 'text' && typeof fields.text === 'string' && 'cache_control' in fields
      ? textBlock(fields.text)
      : block;
  });
}

function replaceToolOutputs(
  original: LangChainMessage,
  changes: readonly ToolOutputChange[],
): LangChainMessage | undefined {
  const change = changes[0];
  const reading = read(original as Fields);
  if (change === undefined || reading?.kind !== 'tool') return undefined;
  const content = toContent(change.block.content);
  switch (reading.shape) {
    case 'instance':
      // The same class as the original, so the caller's agent state holds what it always holds.
      return construct((original as { constructor: LangChainMessageClass }).constructor, {
        ...ownFields(reading.fields),
        content,
      });
    case 'serialized':
      return { ...original, kwargs: { ...reading.fields, content } } as LangChainMessage;
    case 'stored':
      return { ...original, data: { ...reading.fields, content } } as LangChainMessage;
    default:
      return { ...original, content };
  }
}

type ClassName = keyof LangChainMessageClasses;

const KIND_OF_CLASS: Readonly<Record<ClassName, string>> = {
  HumanMessage: 'human',
  AIMessage: 'ai',
  SystemMessage: 'system',
  ToolMessage: 'tool',
};

/** Builds messages of a kind: with the given class, a class borrowed from the history, or as a plain message-like. */
function createBuilder(classes: LangChainMessageClasses | undefined) {
  return (
    name: ClassName,
    fields: Record<string, unknown>,
    context: BuildContext<LangChainMessage>,
  ): LangChainMessage => {
    const kind = KIND_OF_CLASS[name];
    const Class = classes?.[name] ?? findClass(kind, context.original);
    return Class === undefined ? { type: kind, ...fields } : construct(Class, fields);
  };
}

function findClass(kind: string, original: readonly LangChainMessage[] | undefined): LangChainMessageClass | undefined {
  for (const message of original ?? []) {
    if (!isRecord(message)) continue;
    const reading = read(message);
    if (
      reading?.shape === 'instance' &&
      reading.kind === kind &&
      typeof message.constructor === 'function' &&
      message.constructor !== Object
    ) {
      return message.constructor as LangChainMessageClass;
    }
  }
  return undefined;
}

function createFromCanonical(classes: LangChainMessageClasses | undefined) {
  const build = createBuilder(classes);
  return (message: Message, context: BuildContext<LangChainMessage>): LangChainMessage[] => {
    const { role, content } = message;
    if (role === 'system') return [build('SystemMessage', { content: toContent(content) }, context)];
    if (typeof content === 'string')
      return [build(role === 'user' ? 'HumanMessage' : 'AIMessage', { content }, context)];
    const messages: LangChainMessage[] = [];
    if (role === 'assistant') {
      const parts: ContentBlock[] = [];
      const toolCalls: Array<Record<string, unknown>> = [];
      for (const block of content) {
        const item = unwrapItem(FORMAT, block);
        if (item !== undefined) messages.push(item as LangChainMessage);
        else if (fieldsOf(block).type === 'tool_use') {
          const use = block as ToolUseBlock;
          toolCalls.push({ type: 'tool_call', id: use.id, name: use.name, args: use.input });
        } else parts.push(block);
      }
      if (parts.length > 0 || toolCalls.length > 0) {
        const single = parts.length === 1 ? fieldsOf(parts[0]!) : undefined;
        const text =
          parts.length === 0
            ? ''
            : single?.type === 'text' && typeof single.text === 'string'
              ? single.text
              : undefined;
        const fields: Record<string, unknown> = { content: text ?? toContent(parts) };
        if (toolCalls.length > 0) fields.tool_calls = toolCalls;
        messages.unshift(build('AIMessage', fields, context));
      }
      return messages;
    }
    // A user turn: each tool result a ToolMessage (they must follow the calls), then the rest.
    const rest: ContentBlock[] = [];
    for (const block of content) {
      const item = unwrapItem(FORMAT, block);
      if (item !== undefined) messages.push(item as LangChainMessage);
      else if (fieldsOf(block).type === 'tool_result') {
        const result = block as ToolResultBlock;
        const fields: Record<string, unknown> = {
          content: toContent(result.content),
          tool_call_id: result.tool_use_id,
        };
        const name = context.toolNameOf(result.tool_use_id);
        if (name !== undefined) fields.name = name;
        if (result.is_error === true) fields.status = 'error';
        messages.push(build('ToolMessage', fields, context));
      } else rest.push(block);
    }
    if (rest.length > 0) messages.push(build('HumanMessage', { content: toContent(rest) }, context));
    return messages;
  };
}

/**
 * A LangChain.js message format that builds fresh messages with your own `@langchain/core`
 * classes. Messages nothing changed come back as your own objects, and an offloaded `ToolMessage`
 * comes back as a new instance of the original's own class in any case; the classes only decide
 * what a message built from scratch (a compaction's summary) is.
 *
 * @example
 * ```ts
 * import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
 * const langchain = createLangchainFormat({ messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage } });
 * ```
 */
export function createLangchainFormat(options: LangchainFormatOptions = {}): TypedMessageFormat<LangChainMessage> {
  const codec: FormatCodec<LangChainMessage> = {
    name: FORMAT,
    matches,
    toCanonical,
    fromCanonical: createFromCanonical(options.messageClasses),
    replaceToolOutputs,
  };
  return defineMessageFormat(codec);
}

/**
 * LangChain.js messages (`BaseMessage` instances, their serialized forms, plain message-likes).
 *
 * - `human` -> `user`, `system` and `developer` -> `system`, `ai` -> `assistant`; a `generic`
 *   message (`ChatMessage`) by its `role`.
 * - An `AIMessage`'s `tool_calls` become `tool_use` blocks after its content (calls already
 *   present as native `tool_use` parts are not repeated).
 * - A `ToolMessage` becomes a user message holding one `tool_result` (`tool_call_id` ->
 *   `tool_use_id`; `status: 'error'` -> `is_error`).
 * - Other kinds (`function`, `remove`) become an assistant message holding one block of type
 *   `langchain:<kind>` that keeps the message; it converts back to that very message.
 *
 * Messages nothing changed come back as the caller's own objects; an offloaded `ToolMessage`
 * comes back as a new instance of the original's class with every field but `content` kept.
 * Messages built fresh use the class of a message of the same kind found in the history, else
 * plain message-likes; use {@link createLangchainFormat} to give the classes.
 */
export const langchain: TypedMessageFormat<LangChainMessage> = createLangchainFormat();
