/**
 * Request bodies as sent to a model API: `{ system?, messages, tools?, ... }` (Anthropic
 * Messages, Chat Completions, an AI SDK call's options) and `{ instructions?, input, tools?,
 * ... }` (OpenAI Responses) and `{ systemInstruction?, contents, tools?, ... }` (Gemini
 * `generateContent`). The system prompt (`system`, `instructions`, `systemInstruction`) is what the model
 * reads first, so it becomes the leading canonical system message (the Head compaction keeps);
 * `tools` are billed as input, so they are counted. Every other field (`model`, `max_tokens`,
 * ...) is kept when a new history is written back.
 */
import { InvalidMessageError } from '../../core/errors.js';
import type { MessageFormat } from '../../core/format.js';
import type { Message } from '../../core/types.js';
import { assertMessages } from '../../core/messages/validate-messages.js';
import { TranscriptError } from './transcript.js';
import type { HistoryField, SystemField, TranscriptRequestBody } from './transcript.js';

/** A request body taken apart: where its history is, its system prompt and its tools. */
export interface RequestBodyParts {
  /** The field holding the history. */
  historyField: HistoryField;
  /** The history's items (a string `input` becomes one user item). */
  items: unknown[];
  /** Whether the history was a single string. */
  historyWasString: boolean;
  /** The system prompt's field, when the body has a non-empty one. */
  systemField: SystemField | undefined;
  toolDefinitions: readonly unknown[] | undefined;
}

/** Whether a JSON object is a request body: it has `messages`, `input` (Responses) or `contents` (Gemini). */
export function isRequestBody(value: Readonly<Record<string, unknown>>): boolean {
  return 'messages' in value || 'input' in value || 'contents' in value;
}

/** The system prompt's field of a body whose history is in `historyField`. */
const SYSTEM_FIELDS: Readonly<Record<HistoryField, SystemField>> = {
  messages: 'system',
  input: 'instructions',
  contents: 'systemInstruction',
};

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The system prompt's field of a body whose history is in `historyField` (`messages` -> `system`, ...). */
export function systemFieldOf(historyField: HistoryField): SystemField {
  return SYSTEM_FIELDS[historyField];
}

/**
 * Takes a request body apart. Its messages are not checked here (the format does it).
 *
 * @throws {TranscriptError} when the history is not an array (nor, for `input`, a string), or
 * `tools` is not an array.
 */
export function splitRequestBody(body: Readonly<Record<string, unknown>>): RequestBodyParts {
  const historyField: HistoryField = 'messages' in body ? 'messages' : 'contents' in body ? 'contents' : 'input';
  const history = body[historyField];
  let items: unknown[];
  let historyWasString = false;
  if (historyField === 'input' && typeof history === 'string') {
    // `input: "..."` is shorthand for one user message (an EasyInputMessage item).
    items = [{ role: 'user', content: history }];
    historyWasString = true;
  } else if (Array.isArray(history)) {
    items = history;
  } else {
    const expected =
      historyField === 'messages'
        ? 'an array of messages'
        : historyField === 'contents'
          ? 'an array of contents'
          : 'an array of items or a string';
    throw new TranscriptError(`request body: "${historyField}" must be ${expected}`);
  }
  const { tools } = body;
  if (tools !== undefined && tools !== null && !Array.isArray(tools))
    throw new TranscriptError('request body: "tools" must be an array');
  const systemField = systemFieldOf(historyField);
  return {
    historyField,
    items,
    historyWasString,
    systemField: isBlank(body[systemField]) ? undefined : systemField,
    toolDefinitions: Array.isArray(tools) ? tools : undefined,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `format.toCanonical` on the system messages, its errors naming the body field. */
function convertSystemMessages(field: SystemField, values: readonly unknown[], format: MessageFormat): Message[] {
  try {
    return format.toCanonical(values);
  } catch (error) {
    if (!(error instanceof InvalidMessageError)) throw error;
    throw new TranscriptError(`request body: "${field}": ${error.message.replace(/^messages\[/, `${field}[`)}`, {
      cause: error,
    });
  }
}

/**
 * The canonical messages of a body's system prompt: a string is one system message; Anthropic
 * blocks are one system message holding them; a system message object (an AI SDK
 * `SystemModelMessage`) or an array of them goes through the format.
 *
 * @throws {TranscriptError} naming the field for any other value.
 */
export function readSystemMessages(field: SystemField, value: unknown, format: MessageFormat): Message[] {
  if (typeof value === 'string') return [{ role: 'system', content: value }];
  if (field === 'systemInstruction') return [{ role: 'system', content: readSystemInstruction(value) }];
  if (isObject(value) && 'role' in value) return convertSystemMessages(field, [value], format);
  if (Array.isArray(value) && value.every((entry) => isObject(entry) && 'role' in entry))
    return convertSystemMessages(field, value, format);
  if (Array.isArray(value) && format.name === 'anthropic') {
    const messages = [{ role: 'system', content: value }];
    try {
      assertMessages(messages);
    } catch (error) {
      if (!(error instanceof InvalidMessageError)) throw error;
      throw new TranscriptError(`request body: ${error.message.replace(/^messages\[0\]\.content/, field)}`, {
        cause: error,
      });
    }
    return messages;
  }
  const expected = format.name === 'anthropic' ? 'a string or an array of blocks' : 'a string or system messages';
  throw new TranscriptError(`request body: "${field}" must be ${expected}`);
}

/**
 * The text of a Gemini `systemInstruction`: a content whose parts are text parts.
 *
 * @throws {TranscriptError} naming the field for anything else.
 */
function readSystemInstruction(value: unknown): string {
  const parts = isObject(value) ? value.parts : undefined;
  if (!Array.isArray(parts))
    throw new TranscriptError('request body: "systemInstruction" must be a string or a content with parts');
  return parts
    .map((part: unknown, index) => {
      if (isObject(part) && typeof part.text === 'string') return part.text;
      throw new TranscriptError(`request body: "systemInstruction.parts[${index}]" must be a text part`);
    })
    .join('\n');
}

/** Whether `messages` starts with exactly the objects of `head`. */
function startsWith(messages: readonly Message[], head: readonly Message[]): boolean {
  return head.length <= messages.length && head.every((message, index) => messages[index] === message);
}

/**
 * Puts a new canonical history back into the request body it came from, in its format: the
 * system prompt goes back to its field unchanged when its messages are (a string stays a
 * string, blocks stay blocks), or as the new first system message's text; the rest goes to
 * the history field through `format.fromCanonical`, so unchanged items come back as they were.
 * A history read from a string `input` is written back as that string when it is unchanged.
 */
export function writeRequestBody(
  requestBody: TranscriptRequestBody,
  format: MessageFormat,
  items: readonly unknown[],
  messages: readonly Message[],
): Record<string, unknown> {
  const { body, historyField, system } = requestBody;
  const written: Record<string, unknown> = { ...body };
  let history = messages;
  if (system !== undefined) {
    const first = messages[0];
    if (startsWith(messages, system.messages)) {
      written[system.field] = system.value;
      history = messages.slice(system.messages.length);
    } else if (first?.role === 'system' && system.field === 'systemInstruction' && typeof first.content === 'string') {
      written[system.field] = { parts: [{ text: first.content }] };
      history = messages.slice(1);
    } else if (first?.role === 'system' && (typeof first.content === 'string' || format.name === 'anthropic')) {
      written[system.field] = first.content;
      history = messages.slice(1);
    } else {
      // The system prompt is gone or no longer fits its field: whatever system message is left stays in the history.
      delete written[system.field];
    }
  }
  const converted = format.fromCanonical(history, items);
  written[historyField] =
    requestBody.historyWasString && converted.length === 1 && converted[0] === items[0]
      ? body[historyField]
      : converted;
  return written;
}
