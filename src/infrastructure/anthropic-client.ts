/**
 * An {@link LlmClient} on the Anthropic Messages API, through `@anthropic-ai/sdk` (an optional
 * peer dependency, imported only when this factory constructs a client). Only `import type`
 * may name the SDK here: the package root must load without it.
 */
import { DEFAULT_SUMMARY_MODEL } from '../core/options/defaults.js';
import type { ConversationSummaryRequest, LlmClient, LlmSummarizeOptions, LlmUsage } from '../core/ports.js';
import type { Message } from '../core/types.js';
import {
  checkClientOptions,
  resolveReplyMaxTokens,
  resolveSdkClient,
  sendRequest,
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
  /**
   * One user message holding the prompt; or, for a summary that reuses the prompt cache, the
   * conversation's messages followed by one user message asking for the summary.
   */
  messages: AnthropicMessageParamLike[];
  // The fields below are typed `any` so that the SDK's own parameter types accept them, whatever
  // the SDK version: they are the caller's values, passed through as given.
  /** The conversation's system prompt (a summary that reuses the prompt cache only). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  system?: string | any[];
  /** The conversation's tools (a summary that reuses the prompt cache only). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  tools?: any[];
  /** The conversation's `tool_choice` (a summary that reuses the prompt cache only). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  tool_choice?: any;
  /** The conversation's `thinking` setting (a summary that reuses the prompt cache only). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  thinking?: any;
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
  /** Token usage, reported through `onUsage`. */
  usage?: AnthropicUsageLike | null;
}

/** The part of an Anthropic `usage` object this client reads. */
export interface AnthropicUsageLike {
  /** Input tokens neither read from nor written to the prompt cache. */
  input_tokens?: number | null;
  /** Input tokens read from the prompt cache. */
  cache_read_input_tokens?: number | null;
  /** Input tokens written to the prompt cache. */
  cache_creation_input_tokens?: number | null;
  /** Output tokens. */
  output_tokens?: number | null;
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
    countTokens?(
      body: AnthropicCountTokensBodyLike,
      options?: AnthropicRequestOptionsLike,
    ): PromiseLike<{ input_tokens: number }>;
  };
}

/** Options of {@link AnthropicLlmClient.countTokens}. */
export interface AnthropicCountTokensOptions {
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
}

/**
 * An {@link LlmClient} on the Anthropic API that can also ask the API for exact token counts,
 * and summarize a conversation with its own request, so that the prompt cache serves it.
 */
export interface AnthropicLlmClient extends LlmClient {
  /** The `model` it was created with, else `claude-haiku-4-5-20251001` ({@link DEFAULT_SUMMARY_MODEL}). */
  readonly defaultModel: string;
  /**
   * Sends the conversation's own request and one more user message: `model`, `system`, `tools`,
   * `tool_choice` and `thinking` as given; the messages as `{ role, content }` with a
   * `cache_control: { type: 'ephemeral' }` breakpoint on the last block of the last message (a
   * string content becomes one text block; thinking blocks cannot carry one, so it goes on the
   * last other block; a block that has one keeps it); then `{ role: 'user', content:
   * instruction }`. `max_tokens` is `maxTokens`, plus `thinking.budget_tokens` when thinking is
   * enabled. Resolves to the text of the reply's `text` blocks, like `summarize`, and reports
   * the reply's `usage` through `onUsage`.
   */
  summarizeConversation(request: ConversationSummaryRequest, options?: LlmSummarizeOptions): Promise<string>;
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
 * The SDK is imported only when no `client` is passed.
 *
 * `summarizeConversation(request, options)` sends the conversation's own request plus one user
 * message, with a prompt-cache breakpoint after the conversation (`summaryMode:
 * 'reuse-prefix'`). Both methods report the reply's `usage` through `options.onUsage`.
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
export async function createAnthropicLlmClient(
  options: CreateAnthropicLlmClientOptions = {},
): Promise<AnthropicLlmClient> {
  checkClientOptions(options);
  const client = await resolveSdkClient(options, SDK);
  const send = async (body: AnthropicCreateBodyLike, requestOptions: LlmSummarizeOptions): Promise<string> => {
    const reply = await sendRequest(
      (sdkOptions) => client.messages.create(body, sdkOptions),
      requestOptions,
      toLlmUsage,
    );
    return joinTextBlocks(reply.content);
  };
  return {
    defaultModel: options.model ?? DEFAULT_SUMMARY_MODEL,
    summarize(prompt: string, model: string, summarizeOptions: LlmSummarizeOptions = {}): Promise<string> {
      return send(
        { model, max_tokens: resolveReplyMaxTokens(summarizeOptions), messages: [{ role: 'user', content: prompt }] },
        summarizeOptions,
      );
    },
    summarizeConversation(
      request: ConversationSummaryRequest,
      summarizeOptions: LlmSummarizeOptions = {},
    ): Promise<string> {
      return send(toConversationBody(request, resolveReplyMaxTokens(summarizeOptions)), summarizeOptions);
    },
    async countTokens(
      messages: readonly Message[],
      model: string,
      countOptions: AnthropicCountTokensOptions = {},
    ): Promise<number> {
      const countTokens = client.messages.countTokens;
      if (typeof countTokens !== 'function') {
        throw new TypeError('countTokens needs a client with messages.countTokens (an Anthropic SDK client)');
      }
      const body = toCountTokensBody(messages, model);
      return (await sendRequest((sdkOptions) => countTokens.call(client.messages, body, sdkOptions), countOptions))
        .input_tokens;
    },
  };
}

const SDK = {
  packageName: PACKAGE_NAME,
  className: 'Anthropic',
  importer: () => import('@anthropic-ai/sdk'),
  purpose: 'The Anthropic LLM client',
};

function joinTextBlocks(content: AnthropicMessageLike['content'] | undefined): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('');
}

function toLlmUsage(usage: AnthropicUsageLike): LlmUsage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    requestCount: 1,
  };
}

/** The conversation's request with its breakpoint, then the instruction (see {@link AnthropicLlmClient.summarizeConversation}). */
function toConversationBody(request: ConversationSummaryRequest, maxTokens: number): AnthropicCreateBodyLike {
  const { model, system, tools, tool_choice: toolChoice, thinking, messages, instruction } = request;
  const body: AnthropicCreateBodyLike = { model, max_tokens: maxTokens + thinkingBudget(thinking), messages: [] };
  // the order of the API's cache prefix: tools, system, messages
  if (system !== undefined) body.system = typeof system === 'string' ? system : [...system];
  if (tools !== undefined) body.tools = [...tools];
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (thinking !== undefined) body.thinking = thinking;
  const params: AnthropicMessageParamLike[] = messages.map((message) => ({
    role: message.role as 'user' | 'assistant',
    content: message.content,
  }));
  const last = params.at(-1);
  if (last !== undefined) params[params.length - 1] = withCacheBreakpoint(last);
  body.messages = [...params, { role: 'user', content: instruction }];
  return body;
}

/** With extended thinking on, `max_tokens` covers the thinking budget as well as the reply. */
function thinkingBudget(thinking: unknown): number {
  if (typeof thinking !== 'object' || thinking === null) return 0;
  const { type, budget_tokens: budget } = thinking as { type?: unknown; budget_tokens?: unknown };
  return type === 'enabled' && typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : 0;
}

const BREAKPOINT = { type: 'ephemeral' } as const;

/** A copy of `message` with a cache breakpoint on its last block that can carry one (thinking blocks cannot). */
function withCacheBreakpoint(message: AnthropicMessageParamLike): AnthropicMessageParamLike {
  if (typeof message.content === 'string') {
    return { role: message.role, content: [{ type: 'text', text: message.content, cache_control: BREAKPOINT }] };
  }
  const blocks: unknown[] = message.content;
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index];
    if (typeof block !== 'object' || block === null) continue;
    const { type, cache_control: existing } = block as { type?: unknown; cache_control?: unknown };
    if (type === 'thinking' || type === 'redacted_thinking') continue;
    if (existing !== undefined && existing !== null) return message;
    const content = [...blocks];
    content[index] = { ...block, cache_control: BREAKPOINT };
    return { role: message.role, content };
  }
  return message;
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
    .map((block) =>
      typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text'
        ? String((block as { text?: unknown }).text ?? '')
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}
