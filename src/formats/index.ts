/**
 * The built-in message formats, by name, and the two lookups the public layer and the CLI use:
 * {@link resolveFormat} (a `format` option to its adapter) and {@link detectFormat} (which
 * format a history is in).
 */
import { describeValue, InvalidMessageError, InvalidOptionError } from '../core/errors.js';
import type { FormatName, MessageFormat } from '../core/format.js';
import { aiSdk } from './ai-sdk.js';
import { anthropic } from './anthropic.js';
import { gemini } from './gemini.js';
import { langchain } from './langchain.js';
import { openaiAgents } from './openai-agents.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';

export type { TypedMessageFormat } from './define-format.js';
export type { AiSdkMessage, AiSdkPart } from './ai-sdk.js';
export type { GeminiContent, GeminiPart } from './gemini.js';
export { createLangchainFormat } from './langchain.js';
export type {
  LangChainMessage,
  LangChainMessageClass,
  LangChainMessageClasses,
  LangchainFormatOptions,
} from './langchain.js';
export type { OpenAIAgentsContentPart, OpenAIAgentsItem } from './openai-agents.js';
export type { OpenAIChatContentPart, OpenAIChatMessage, OpenAIChatToolCall } from './openai-chat.js';
export type { OpenAIResponsesContentPart, OpenAIResponsesItem } from './openai-responses.js';

/**
 * The built-in message formats. Each converts a history in one API's shape to the package's
 * canonical shape (the Anthropic Messages shape) and back, keeping the caller's own objects for
 * messages nothing changed.
 *
 * @example
 * ```ts
 * const canonical = formats.openaiChat.toCanonical(history);
 * const { messages } = await offloadToolResults(canonical, { outputDir });
 * const smaller = formats.openaiChat.fromCanonical(messages, history);
 * ```
 */
export const formats = Object.freeze({
  /** Anthropic Messages (`MessageParam`): the canonical shape itself. */
  anthropic,
  /** OpenAI Chat Completions messages (`ChatCompletionMessageParam`). */
  openaiChat,
  /** OpenAI Responses API input items (`ResponseInputItem`). */
  openaiResponses,
  /** OpenAI Agents SDK items (`AgentInputItem`). */
  openaiAgents,
  /** Vercel AI SDK messages (`ModelMessage`, ai 6 and 7). */
  aiSdk,
  /** LangChain.js messages (`BaseMessage` instances or their serialized form). */
  langchain,
  /** Gemini API contents (`Content` of `@google/genai`). */
  gemini,
});

const FORMATS_BY_NAME: ReadonlyMap<string, MessageFormat> = new Map(
  Object.values(formats).map((format) => [format.name, format]),
);

/** The names `format` accepts, for error messages. */
const FORMAT_NAMES = [...FORMATS_BY_NAME.keys()].map((name) => `"${name}"`).join(', ');

/**
 * The adapter for a `format` option: a built-in name, or an adapter object of your own.
 *
 * @param format - a {@link FormatName}, a {@link MessageFormat}, or `undefined` for `'anthropic'`.
 * @param field - the option's name, used in the error message.
 * @throws `INVALID_OPTION` for an unknown name, or an object without `toCanonical`,
 * `fromCanonical` and `detect` functions.
 */
export function resolveFormat(format: FormatName | MessageFormat | undefined, field = 'format'): MessageFormat {
  if (format === undefined) return anthropic;
  const found = typeof format === 'string' ? FORMATS_BY_NAME.get(format) : undefined;
  if (found !== undefined) return found;
  // An unknown name is refused here too, with the list of names.
  if (typeof format !== 'object' || format === null) {
    throw new InvalidOptionError(
      `${field} must be one of ${FORMAT_NAMES} or a format adapter, got ${describeValue(format)}`,
    );
  }
  for (const method of ['toCanonical', 'fromCanonical', 'detect'] as const) {
    if (typeof (format as unknown as Record<string, unknown>)[method] !== 'function') {
      throw new InvalidOptionError(
        `${field} must be a format adapter with toCanonical, fromCanonical and detect functions, got an object whose ${method} is ${describeValue((format as unknown as Record<string, unknown>)[method])}`,
      );
    }
  }
  return format;
}

/**
 * Which built-in format `messages` is in, or `undefined` when no format fits (or the history is
 * empty). A history every message of which fits several formats (plain text turns, say) is
 * taken as the first of: anthropic, openai-chat, ai-sdk, openai-responses, openai-agents,
 * langchain, gemini.
 *
 * @throws `INVALID_MESSAGE` when the messages fit formats but no single one fits them all (a
 * history mixing formats), naming the first message that breaks with the ones before it.
 */
export function detectFormat(messages: readonly unknown[]): MessageFormat | undefined {
  if (messages.length === 0) return undefined;
  const candidates = Object.values(formats) as Array<MessageFormat>;
  let remaining = candidates;
  for (let index = 0; index < messages.length; index += 1) {
    const fitting = candidates.filter((format) => format.detect([messages[index]]));
    if (fitting.length === 0) return undefined;
    const kept = remaining.filter((format) => fitting.includes(format));
    if (kept.length === 0) {
      throw new InvalidMessageError(
        `messages[${index}]`,
        `mixes message formats: this message is ${fitting.map((format) => format.name).join(' or ')}, the messages before it are ${remaining.map((format) => format.name).join(' or ')}`,
      );
    }
    remaining = kept;
  }
  return remaining[0];
}
