/**
 * Gemini API contents (`Content`: a `role` of `user` or `model` and `parts`) to and from the
 * canonical shape. The shapes are written here structurally: this file imports no SDK.
 *
 * Gemini's function calls usually carry no id, so pairing is positional, as the API's own rule
 * is: the function responses of a `user` content answer the calls of the content just before
 * it. Both sides get the same derived id (`gemini_<index of the calling content>_<n>_<name>`,
 * `n` counting the calls of that name), so no id is ever invented in the caller's messages:
 * derived ids stay in the canonical history, and what the caller sent (an id or none) is what
 * comes back.
 */
import type { ContentBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock } from '../core/types.js';
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
  requireRecord,
  stringifyMessageJson,
  textOfToolContent,
  toolResultBlock,
  type Fields,
} from './fields.js';

/**
 * A part of a Gemini content: `text` (a thought when `thought` is true), `functionCall`,
 * `functionResponse`, or any other part (`inlineData`, `fileData`, `executableCode`,
 * `codeExecutionResult`, ...), kept as it is, with every field (`thoughtSignature`, fields not
 * known yet). The `@google/genai` SDK's `Part` fits.
 */
export interface GeminiPart {
  /** Text the part holds: a canonical text block (a thinking block when `thought` is true). */
  text?: string | undefined;
  /** The text is the model's thought summary. */
  thought?: boolean | undefined;
  /** The signature Gemini puts on a turn's thoughts or first call, sent back as it came. */
  thoughtSignature?: string | undefined;
  /** A call of one of the agent's functions: a canonical `tool_use` (`args` is its input). */
  functionCall?:
    { name?: string | undefined; args?: Record<string, unknown> | undefined; id?: string | undefined } | undefined;
  /** A function's answer: a canonical `tool_result` (a single string field such as `output` or `error` is its text). */
  functionResponse?:
    { name?: string | undefined; response?: Record<string, unknown> | undefined; id?: string | undefined } | undefined;
  /** Inline media bytes: carried through untouched. */
  inlineData?: unknown;
  /** A file's URI: carried through untouched. */
  fileData?: unknown;
  /** Code the model ran with its code-execution tool: carried through untouched. */
  executableCode?: unknown;
  /** The output of that code: carried through untouched. */
  codeExecutionResult?: unknown;
  /** Video clipping settings of a media part: carried through untouched. */
  videoMetadata?: unknown;
  /** The media resolution asked for a media part: carried through untouched. */
  mediaResolution?: unknown;
}

/** A Gemini API content, as the `@google/genai` SDK's `Content` describes it (any value of that type fits). */
export interface GeminiContent {
  /** `user` (the default) or `model`; the older `function` role is read as `user`. */
  role?: string | undefined;
  /** The content's parts, in order: each becomes one canonical block. */
  parts?: GeminiPart[] | undefined;
}

const FORMAT = 'gemini';

/** The field of a canonical block holding the Gemini part it came from, where the block alone cannot rebuild it. */
const PART_FIELD = 'gemini_part';
/** The field of a canonical `tool_result` naming the key of a response's single string value, when not `output` or `error`. */
const OUTPUT_KEY_FIELD = 'gemini_output_key';
/** Set on a canonical `tool_result` whose content is the JSON text of the whole response. */
const JSON_FIELD = 'gemini_json';

const USER_ROLES = new Set([undefined, 'user', 'function']);

/** The id both a call and the response answering it get: positional, as Gemini pairs them. */
function derivedId(callingIndex: number, name: string, occurrence: number): string {
  return `gemini_${callingIndex}_${occurrence}_${name}`;
}

/** The tool name a derived id holds, `undefined` for any other id. */
function nameOfDerivedId(id: string): string | undefined {
  return /^gemini_\d+_\d+_(.+)$/.exec(id)?.[1];
}

/** Counts occurrences by name, for positional ids. */
function createCounter(): (name: string) => number {
  const counts = new Map<string, number>();
  return (name) => {
    const count = counts.get(name) ?? 0;
    counts.set(name, count + 1);
    return count;
  };
}

/**
 * `fields` with the value of `name` hollowed out (`null`): what a canonical block keeps of a part
 * besides what it holds itself, the key left in place so a part built again has the same key order.
 */
function hollow(fields: Fields, name: string): Record<string, unknown> {
  return { ...fields, [name]: null };
}

/** The response's only field when it is a string (`{ output: "..." }`, `{ error: "..." }`), else `undefined`. */
function singleStringField(response: Fields): [key: string, value: string] | undefined {
  const keys = Object.keys(response);
  if (keys.length !== 1) return undefined;
  const value = response[keys[0]!];
  return typeof value === 'string' ? [keys[0]!, value] : undefined;
}

function readText(part: Fields, index: number, field: string): ContentBlock {
  if (typeof part.text !== 'string') throw invalidField(index, `${field}.text`, 'must be a string', part.text);
  const rest = Object.keys(part).some((key) => key !== 'text');
  if (part.thought === true) {
    return { type: 'thinking', thinking: part.text, [PART_FIELD]: hollow(part, 'text') } as ContentBlock;
  }
  const block: TextBlock = { type: 'text', text: part.text };
  return rest ? ({ ...block, [PART_FIELD]: hollow(part, 'text') } as ContentBlock) : block;
}

function readCall(part: Fields, index: number, field: string, id: (name: string) => string): ToolUseBlock {
  const call = part.functionCall;
  if (!isRecord(call)) throw invalidField(index, `${field}.functionCall`, 'must be an object', call);
  if (typeof call.name !== 'string')
    throw invalidField(index, `${field}.functionCall.name`, 'must be a string', call.name);
  if (call.args !== undefined && call.args !== null && !isRecord(call.args))
    throw invalidField(index, `${field}.functionCall.args`, 'must be an object', call.args);
  const block: ToolUseBlock = {
    type: 'tool_use',
    id: id(call.name),
    name: call.name,
    input: isRecord(call.args) ? (call.args as Record<string, unknown>) : {},
  };
  const keepsMore =
    Object.keys(part).length > 1 ||
    !('args' in call) ||
    Object.keys(call).some((key) => key !== 'name' && key !== 'args');
  return keepsMore
    ? ({
        ...block,
        [PART_FIELD]: { ...part, functionCall: 'args' in call ? hollow(call, 'args') : call },
      } as ToolUseBlock)
    : block;
}

function readResponse(part: Fields, index: number, field: string, id: (name: string) => string): ToolResultBlock {
  const answer = part.functionResponse;
  if (!isRecord(answer)) throw invalidField(index, `${field}.functionResponse`, 'must be an object', answer);
  if (typeof answer.name !== 'string')
    throw invalidField(index, `${field}.functionResponse.name`, 'must be a string', answer.name);
  const response = answer.response ?? {};
  if (!isRecord(response))
    throw invalidField(index, `${field}.functionResponse.response`, 'must be an object', answer.response);
  const single = singleStringField(response);
  const block: Record<string, unknown> = {
    ...(single
      ? toolResultBlock(id(answer.name), single[1], single[0] === 'error')
      : toolResultBlock(
          id(answer.name),
          stringifyMessageJson(response, `messages[${index}]${field}.functionResponse.response`),
          false,
        )),
  };
  if (single === undefined) block[JSON_FIELD] = true;
  else if (single[0] !== 'output' && single[0] !== 'error') block[OUTPUT_KEY_FIELD] = single[0];
  const keepsMore =
    Object.keys(part).length > 1 || Object.keys(answer).some((key) => key !== 'name' && key !== 'response');
  // the response itself is the block's content: the kept part never holds it twice
  if (keepsMore) block[PART_FIELD] = { ...part, functionResponse: hollow(answer, 'response') };
  return block as unknown as ToolResultBlock;
}

/** The name of a part's kind for an opaque block: its first field (`inlineData`, `executableCode`, ...). */
function kindOf(part: Fields): string {
  return Object.keys(part).find((key) => key !== 'thoughtSignature' && key !== 'thought') ?? 'part';
}

function toCanonical(message: unknown, index: number): Message {
  const content = requireRecord(message, index, 'a Gemini content object');
  const { role, parts } = content;
  if (!USER_ROLES.has(role as string | undefined) && role !== 'model')
    throw invalidField(index, '.role', 'must be "user" or "model"', role);
  if (parts !== undefined && !Array.isArray(parts))
    throw invalidField(index, '.parts', 'must be an array of parts', parts);
  const calls = createCounter();
  const responses = createCounter();
  const blocks = ((parts ?? []) as readonly unknown[]).map((part, position): ContentBlock => {
    const field = `.parts[${position}]`;
    if (!isRecord(part)) throw invalidField(index, field, 'must be a part object', part);
    if ('functionCall' in part) return readCall(part, index, field, (name) => derivedId(index, name, calls(name)));
    if ('functionResponse' in part)
      return readResponse(part, index, field, (name) => derivedId(index - 1, name, responses(name)));
    if ('text' in part) return readText(part, index, field);
    return { type: `${FORMAT}:${kindOf(part)}`, part } as ContentBlock;
  });
  return { role: role === 'model' ? 'assistant' : 'user', content: blocks };
}

function matches(message: unknown): boolean {
  if (!isRecord(message) || 'content' in message || !Array.isArray(message.parts)) return false;
  return (
    (USER_ROLES.has(message.role as string | undefined) || message.role === 'model') && message.parts.every(isRecord)
  );
}

/** The part a canonical block came from, without what the block holds, or `{}`. */
function keptPart(fields: Fields): Fields {
  const part = fields[PART_FIELD];
  return isRecord(part) ? part : {};
}

/** The `response` of a function response holding `content`, keyed as the original was. */
function buildResponse(block: Fields, content: string | readonly ContentBlock[]): Record<string, unknown> {
  const text = textOfToolContent(content);
  if (block.is_error === true) return { error: text };
  if (block[JSON_FIELD] === true) {
    // a response nothing changed comes back as the object it was
    try {
      const parsed: unknown = JSON.parse(text);
      if (isRecord(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // the content is no longer the response's JSON (a reference text): it becomes the output
    }
  }
  const key = typeof block[OUTPUT_KEY_FIELD] === 'string' ? block[OUTPUT_KEY_FIELD] : 'output';
  return { [key]: text };
}

function buildPart(block: ContentBlock, context: BuildContext<GeminiContent>): GeminiPart | undefined {
  const fields = fieldsOf(block);
  const kept = keptPart(fields);
  switch (fields.type) {
    case 'text':
      return { ...kept, text: fields.text as string };
    case 'thinking':
      // Gemini takes back only the thoughts it wrote, with their signature
      return isRecord(fields[PART_FIELD]) ? { ...kept, text: fields.thinking as string } : undefined;
    case 'redacted_thinking':
      return undefined;
    case 'tool_use': {
      const use = block as ToolUseBlock;
      const call = isRecord(kept.functionCall) ? kept.functionCall : undefined;
      const input = use.input ?? {};
      // a call that came without `args` goes back without them while it still has none
      const args = call !== undefined && !('args' in call) && Object.keys(input).length === 0 ? {} : { args: input };
      return { ...kept, functionCall: { ...call, name: use.name, ...args } };
    }
    case 'tool_result': {
      const result = block as ToolResultBlock;
      const answer = isRecord(kept.functionResponse) ? kept.functionResponse : {};
      const name =
        (typeof answer.name === 'string' ? answer.name : undefined) ??
        context.toolNameOf(result.tool_use_id) ??
        nameOfDerivedId(result.tool_use_id) ??
        'tool';
      return { ...kept, functionResponse: { ...answer, name, response: buildResponse(fields, result.content) } };
    }
    default: {
      if (typeof fields.type === 'string' && fields.type.startsWith(`${FORMAT}:`) && isRecord(fields.part))
        return fields.part as GeminiPart;
      // a block of another format has no Gemini part: it goes as it is, for the caller to see
      return block as unknown as GeminiPart;
    }
  }
}

function fromCanonical(message: Message, context: BuildContext<GeminiContent>): GeminiContent[] {
  const role = message.role === 'assistant' ? 'model' : 'user';
  if (typeof message.content === 'string') return [{ role, parts: [{ text: message.content }] }];
  const parts: GeminiPart[] = [];
  for (const block of message.content) {
    const part = buildPart(block, context);
    if (part !== undefined) parts.push(part);
  }
  return [{ role, parts }];
}

function replaceToolOutputs(original: GeminiContent, changes: readonly ToolOutputChange[]): GeminiContent | undefined {
  const parts = original.parts === undefined ? undefined : [...original.parts];
  if (parts === undefined) return undefined;
  for (const { blockIndex, block } of changes) {
    const part = parts[blockIndex];
    if (part === undefined || !isRecord(part.functionResponse)) return undefined;
    const response = isRecord(part.functionResponse.response) ? part.functionResponse.response : {};
    const single = singleStringField(response);
    const text = textOfToolContent(block.content);
    const key =
      block.is_error === true ? 'error' : single !== undefined && single[0] !== 'error' ? single[0] : 'output';
    parts[blockIndex] = { ...part, functionResponse: { ...part.functionResponse, response: { [key]: text } } };
  }
  return { ...original, parts };
}

const codec: FormatCodec<GeminiContent> = {
  name: FORMAT,
  matches,
  toCanonical,
  fromCanonical,
  replaceToolOutputs,
};

/**
 * Gemini API contents (`Content` of `@google/genai`: the `contents` of a `generateContent` request).
 *
 * - `role: 'model'` becomes a canonical `assistant` message; `user` (or no role) a `user` message.
 *   `systemInstruction` is a field of the request, not a content: a request body's reader takes
 *   it as the system prompt.
 * - Each part becomes one block, in order: `text` a text block (a `thought` part a thinking
 *   block), `functionCall` a `tool_use` (`args` -> `input`), `functionResponse` a `tool_result`
 *   (a response of one string field, `{ output }` or `{ error }`, gives that text, `error` an
 *   error result; any other response its JSON text); every other part (`inlineData`, `fileData`,
 *   `executableCode`, `codeExecutionResult`, ...) a block of type `gemini:<field>` that keeps it.
 * - Calls and responses are paired by position, as Gemini pairs them: the responses of a content
 *   answer the calls of the content before it, by name and order. Their canonical ids are derived
 *   from that position; the caller's own ids (or their absence) are what comes back.
 *
 * Contents nothing changed come back as the caller's own objects; an offloaded function response
 * comes back as a copy of the original whose `response` is `{ output: <reference text> }` (its
 * own key kept when it had one string field), every other field (`id`, `thoughtSignature`, ...) kept.
 */
export const gemini: TypedMessageFormat<GeminiContent> = defineMessageFormat(codec);
