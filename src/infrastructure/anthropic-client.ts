/**
 * An {@link LlmClient} on the Anthropic Messages API, through `@anthropic-ai/sdk` (an optional
 * peer dependency, imported only when this factory constructs a client). Only `import type`
 * may name the SDK here: the package root must load without it.
 */
import { DEFAULT_SUMMARY_MAX_WORDS, DEFAULT_SUMMARY_MODEL } from '../core/defaults.js';
import { computeSummaryMaxTokens } from '../core/compact/summarize-with-llm.js';
import type { LlmClient, LlmSummarizeOptions } from '../core/ports.js';
import type { Message } from '../core/types.js';
import {
  checkMaxRetries,
  checkModel,
  checkNoSettingsWithClient,
  constructSdkClient,
  toClientError,
  type SdkImporter,
} from './llm-client-support.js';

/** Request options the client passes to the SDK (its second argument). */
export interface AnthropicRequestOptionsLike {
  /** Aborts the HTTP request. */
  signal?: AbortSignal;
}

/** A message as the Anthropic API takes it: the history's own messages, without extra fields. */
export interface AnthropicMessageParamLike {
  /** `user` or `assistant`. */
  role: 'user' | 'assistant';
  /**
   * Text, or content blocks in the API's shape (this package's blocks are). Typed `any[]` so
   * that the SDK's own `ContentBlockParam[]` parameter accepts it, whatever the SDK version.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: a structural stand-in for the SDK's block union
  content: string | any[];
}

/** The part of `messages.create`'s body this client sends. */
export interface AnthropicCreateBodyLike {
  /** Model id. */
  model: string;
  /** Upper bound of the reply. */
  max_tokens: number;
  /** One user message holding the prompt. */
  messages: { role: 'user'; content: string }[];
}

/** The part of `messages.countTokens`'s body this client sends. */
export interface AnthropicCountTokensBodyLike {
  /** Model id. */
  model: string;
  /** The messages to count (system messages excluded). */
  messages: AnthropicMessageParamLike[];
  /** The system prompt: the text of the history's system messages. */
  system?: string;
}

/** The part of an Anthropic `Message` reply this client reads. */
export interface AnthropicMessageLike {
  /** Reply blocks; the text of `text` blocks is the summary. */
  content: ReadonlyArray<{ type: string; text?: unknown }>;
}

/**
 * The part of the SDK's `Anthropic` client this package uses. An `Anthropic` instance from
 * `@anthropic-ai/sdk` fits; so does any object with these methods (a proxy, a test double).
 */
export interface AnthropicLike {
  /** The Messages API. */
  messages: {
    /** `POST /v1/messages`. */
    create(body: AnthropicCreateBodyLike, options?: AnthropicRequestOptionsLike): PromiseLike<AnthropicMessageLike>;
    /** `POST /v1/messages/count_tokens`; needed only by {@link AnthropicLlmClient.countTokens}. */
    countTokens?(body: AnthropicCountTokensBodyLike, options?: AnthropicRequestOptionsLike): PromiseLike<{ input_tokens: number }>;
  };
}

/** Options of {@link AnthropicLlmClient.countTokens}. */
export interface AnthropicCountTokensOptions {
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
}

/** An {@link LlmClient} on the Anthropic API that can also ask the API for exact token counts. */
export interface AnthropicLlmClient extends LlmClient {
  /** The `model` it was created with, else `claude-haiku-4-5-20251001` ({@link DEFAULT_SUMMARY_MODEL}). */
  readonly defaultModel: string;
  /**
   * The prompt size of `messages` in tokens, as the API counts them for `model`
   * (`messages.countTokens`, one network call). System messages are sent as the `system`
   * prompt (their texts joined by a blank line); other messages as `{ role, content }`.
   * Never called by `countTokens`/`shouldCompact`, which count locally.
   */
  countTokens(messages: readonly Message[], model: string, options?: AnthropicCountTokensOptions): Promise<number>;
}

/** Options of {@link createAnthropicLlmClient}. */
export interface CreateAnthropicLlmClientOptions {
  /**
   * The client's default model (its `defaultModel`), used by `compactMessages` when neither
   * `summaryModel` nor `SUMMARY_MODEL` names one.
   * @default "claude-haiku-4-5-20251001" ({@link DEFAULT_SUMMARY_MODEL})
   */
  model?: string | undefined;
  /**
   * A client to use as it is, with its own settings (retries included). Without it, one is
   * constructed from `apiKey`, `baseURL` and `maxRetries`.
   * @default undefined (construct one)
   */
  client?: AnthropicLike | undefined;
  /**
   * API key of the constructed client.
   * @default the SDK's default: env `ANTHROPIC_API_KEY`
   */
  apiKey?: string | undefined;
  /**
   * Base URL of the constructed client (a proxy, a gateway, a test server).
   * @default the SDK's default: env `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`
   */
  baseURL?: string | undefined;
  /**
   * The SDK's own retries for the constructed client. 0 leaves compaction's `maxRetries` as
   * the only retry policy, honouring `retry-after` through `retryAfterMs`.
   * @default 0
   */
  maxRetries?: number | undefined;
  /**
   * How the SDK is loaded; tests use it to simulate a missing SDK.
   * @default () => import('@anthropic-ai/sdk')
   */
  importSdk?: SdkImporter | undefined;
}

const PACKAGE_NAME = '@anthropic-ai/sdk';

/**
 * Creates an {@link LlmClient} on the Anthropic Messages API.
 *
 * `summarize(prompt, model, { maxTokens, signal })` sends `prompt` as one user message with
 * `messages.create` (`max_tokens` = `maxTokens`, default {@link computeSummaryMaxTokens} of
 * 1200 words), passes `signal` to the SDK, and resolves to the text of the reply's `text`
 * blocks joined (possibly blank: the summarizer treats blank as a failure). On failure it
 * rejects with the SDK's own error, with a numeric `retryAfterMs` added when the response
 * carried `retry-after-ms` or `retry-after`; an abort rejects with the signal's reason.
 *
 * The SDK is imported only when no `client` is passed. A client this function constructs has
 * the SDK's retries off (`maxRetries: 0`) unless told otherwise; a passed client keeps its
 * settings.
 *
 * Replies are not streamed, so the SDK refuses a `maxTokens` above about 21,000 (its
 * ten-minute rule): summaries up to about 7,000 words.
 *
 * @throws {@link MissingDependencyError} (code `MISSING_DEPENDENCY`) when `@anthropic-ai/sdk`
 * is needed and not installed; {@link InvalidOptionError} when `model` is not a non-empty
 * string, `maxRetries` is not an integer >= 0, or `apiKey`/`baseURL`/`maxRetries` come with
 * `client`.
 *
 * @example
 * ```ts
 * const llmClient = await createAnthropicLlmClient(); // ANTHROPIC_API_KEY from the environment
 * const result = await compactMessages(messages, { llmClient });
 * ```
 */
export async function createAnthropicLlmClient(options: CreateAnthropicLlmClientOptions = {}): Promise<AnthropicLlmClient> {
  checkNoSettingsWithClient(options);
  checkMaxRetries(options.maxRetries);
  checkModel(options.model);
  const client = options.client ?? (await constructClient(options));
  return {
    defaultModel: options.model ?? DEFAULT_SUMMARY_MODEL,
    async summarize(prompt: string, model: string, summarizeOptions: LlmSummarizeOptions = {}): Promise<string> {
      const { signal } = summarizeOptions;
      const maxTokens = summarizeOptions.maxTokens ?? computeSummaryMaxTokens(DEFAULT_SUMMARY_MAX_WORDS);
      try {
        const reply = await client.messages.create(
          { model, max_tokens: maxTokens, messages: [{ role: 'user', content: prompt }] },
          signal === undefined ? undefined : { signal },
        );
        return joinTextBlocks(reply.content);
      } catch (error) {
        throw toClientError(error, signal);
      }
    },
    async countTokens(messages: readonly Message[], model: string, countOptions: AnthropicCountTokensOptions = {}): Promise<number> {
      const countTokens = client.messages.countTokens;
      if (typeof countTokens !== 'function') {
        throw new TypeError('countTokens needs a client with messages.countTokens (an Anthropic SDK client)');
      }
      const { signal } = countOptions;
      try {
        const result = await countTokens.call(client.messages, toCountTokensBody(messages, model), signal === undefined ? undefined : { signal });
        return result.input_tokens;
      } catch (error) {
        throw toClientError(error, signal);
      }
    },
  };
}

function constructClient(options: CreateAnthropicLlmClientOptions): Promise<AnthropicLike> {
  const sdk = { packageName: PACKAGE_NAME, className: 'Anthropic', importer: options.importSdk ?? importAnthropicSdk, purpose: 'The Anthropic LLM client' };
  return constructSdkClient<AnthropicLike>(sdk, options);
}

function importAnthropicSdk(): Promise<unknown> {
  return import('@anthropic-ai/sdk');
}

function joinTextBlocks(content: AnthropicMessageLike['content'] | undefined): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
}

function toCountTokensBody(messages: readonly Message[], model: string): AnthropicCountTokensBodyLike {
  const system: string[] = [];
  const params: AnthropicMessageParamLike[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      system.push(typeof message.content === 'string' ? message.content : textOf(message.content));
    } else {
      params.push({ role: message.role, content: message.content });
    }
  }
  return system.length > 0 ? { model, messages: params, system: system.join('\n\n') } : { model, messages: params };
}

function textOf(blocks: readonly unknown[]): string {
  return blocks
    .map((block) => (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text ?? '') : ''))
    .filter((text) => text !== '')
    .join('\n');
}
