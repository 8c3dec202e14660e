/**
 * An {@link LlmClient} on OpenAI chat completions, through `openai` (an optional peer
 * dependency, imported only when this factory constructs a client). Works with any
 * OpenAI-compatible server (vLLM, Ollama, LM Studio, gateways) through `baseURL`. Only
 * `import type` may name the SDK here: the package root must load without it.
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { LlmClient, LlmSummarizeOptions, LlmUsage } from '../core/ports.js';
import {
  checkClientOptions,
  resolveReplyMaxTokens,
  resolveSdkClient,
  sendRequest,
  type SdkImporter,
} from './llm-client-support.js';

/** Request options the client passes to the SDK (its second argument). */
export interface OpenAIRequestOptionsLike {
  /** Aborts the HTTP request. */
  signal?: AbortSignal;
}

/** The part of a chat completion request this client sends. */
export interface OpenAIChatCreateBodyLike {
  /** Model id. */
  model: string;
  /** One user message holding the prompt. */
  messages: { role: 'user'; content: string }[];
  /** Reply bound, for servers that take the classic field. */
  max_tokens?: number;
  /** Reply bound, for OpenAI's reasoning models. */
  max_completion_tokens?: number;
}

/** The part of a chat completion reply this client reads. */
export interface OpenAIChatCompletionLike {
  /** The choices; the first one's message content is the summary. */
  choices: ReadonlyArray<{ message?: { content?: unknown } | null | undefined }>;
  /**
   * Token usage, reported through `onUsage`: `prompt_tokens` (cached ones included),
   * `completion_tokens`, and `prompt_tokens_details.cached_tokens` (what the prompt cache served).
   */
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
}

type OpenAIUsageLike = NonNullable<OpenAIChatCompletionLike['usage']>;

/**
 * The part of the SDK's `OpenAI` client this package uses. An `OpenAI` instance from `openai`
 * fits; so does any object with this method.
 */
export interface OpenAILike {
  /** Chat completions. */
  chat: {
    /** `POST /chat/completions`. */
    completions: {
      /** Creates a (non-streamed) chat completion. */
      create(body: OpenAIChatCreateBodyLike, options?: OpenAIRequestOptionsLike): PromiseLike<OpenAIChatCompletionLike>;
    };
  };
}

/** The {@link LlmClient} {@link createOpenAILlmClient} returns. */
export interface OpenAILlmClient extends LlmClient {
  /** The `model` it was created with, else `null`: no default model (compaction then requires `summaryModel` or `SUMMARY_MODEL`). */
  readonly defaultModel: string | null;
}

/** Which request field carries the reply bound. */
export type OpenAIMaxTokensParameter = 'max_tokens' | 'max_completion_tokens';

/** Options of {@link createOpenAILlmClient}. */
export interface CreateOpenAILlmClientOptions {
  /**
   * The client's default model (its `defaultModel`), used by `compactMessages` when neither
   * `summaryModel` nor `SUMMARY_MODEL` names one, e.g. `'gpt-4.1-mini'` or `'qwen2.5:14b'`.
   * @default undefined (no default model: `defaultModel` is `null`, and compaction requires `summaryModel` or `SUMMARY_MODEL`)
   */
  model?: string | undefined;
  /**
   * A client to use as it is, with its own settings (retries included). Without it, one is
   * constructed from `apiKey`, `baseURL` and `maxRetries`.
   * @default undefined (construct one)
   */
  client?: OpenAILike | undefined;
  /**
   * API key of the constructed client. Local servers usually accept any value.
   * @default the SDK's default: env `OPENAI_API_KEY` (the SDK throws when neither is set)
   */
  apiKey?: string | undefined;
  /**
   * Base URL of the constructed client, e.g. `http://localhost:11434/v1` for Ollama or
   * `http://localhost:8000/v1` for vLLM.
   * @default the SDK's default: env `OPENAI_BASE_URL`, else `https://api.openai.com/v1`
   */
  baseURL?: string | undefined;
  /**
   * The SDK's own retries for the constructed client. 0 leaves compaction's `maxRetries` as
   * the only retry policy, honouring `retry-after` through `retryAfterMs`.
   * @default 0
   */
  maxRetries?: number | undefined;
  /**
   * The request field that bounds the reply. `max_tokens` is what OpenAI-compatible servers
   * (vLLM, Ollama, LM Studio) and OpenAI's non-reasoning models accept; OpenAI's reasoning
   * models (o-series, GPT-5) require `max_completion_tokens`, which also counts their hidden
   * reasoning, so give them a larger `maxTokens`.
   * @default 'max_tokens'
   */
  maxTokensParameter?: OpenAIMaxTokensParameter | undefined;
  /**
   * How the SDK is loaded; tests use it to simulate a missing SDK.
   * @default () => import('openai')
   */
  importSdk?: SdkImporter | undefined;
}

const PACKAGE_NAME = 'openai';

/**
 * Creates an {@link LlmClient} on OpenAI chat completions, for OpenAI or any compatible server.
 * There is no default model (OpenAI-compatible servers serve different models): `summarize`'s
 * `model` argument names it, and the client's `defaultModel` is `null`, so `compactMessages`
 * takes `summaryModel` or `SUMMARY_MODEL` and rejects with `InvalidOptionError` (before
 * writing anything) when neither is set — it never sends a Claude model to an OpenAI server.
 * Pass `model` to give the client a default of your own.
 *
 * `summarize(prompt, model, { maxTokens, signal })` sends `prompt` as one user message
 * (`max_tokens`, or `max_completion_tokens` per `maxTokensParameter`, = `maxTokens`, default
 * {@link computeSummaryMaxTokens} of 1200 words), passes `signal` to the SDK, and resolves to
 * the first choice's message content (possibly blank: the summarizer treats blank as a
 * failure), reporting the reply's `usage` through `onUsage`. On failure it rejects with the SDK's own error, with a numeric `retryAfterMs` added
 * when the response carried `retry-after-ms` or `retry-after`; an abort rejects with the
 * signal's reason.
 *
 * The SDK is imported only when no `client` is passed.
 *
 * @throws {@link MissingDependencyError} (code `MISSING_DEPENDENCY`) when `openai` is needed
 * and not installed; {@link InvalidOptionError} for a bad `model`, `maxRetries` or
 * `maxTokensParameter`, or `apiKey`/`baseURL`/`maxRetries` given with `client`.
 *
 * @example
 * ```ts
 * const llmClient = await createOpenAILlmClient({ baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' });
 * const result = await compactMessages(messages, { llmClient, summaryModel: 'qwen2.5:14b' });
 * // or: createOpenAILlmClient({ ..., model: 'qwen2.5:14b' }), then no summaryModel is needed
 * ```
 */
export async function createOpenAILlmClient(options: CreateOpenAILlmClientOptions = {}): Promise<OpenAILlmClient> {
  checkClientOptions(options);
  const parameter = options.maxTokensParameter ?? 'max_tokens';
  if (parameter !== 'max_tokens' && parameter !== 'max_completion_tokens') {
    throw new InvalidOptionError(
      `maxTokensParameter must be "max_tokens" or "max_completion_tokens", got ${describeValue(parameter)}`,
    );
  }
  const client = await resolveSdkClient(options, SDK);
  return {
    defaultModel: options.model ?? null,
    async summarize(prompt: string, model: string, summarizeOptions: LlmSummarizeOptions = {}): Promise<string> {
      const body: OpenAIChatCreateBodyLike = { model, messages: [{ role: 'user', content: prompt }] };
      body[parameter] = resolveReplyMaxTokens(summarizeOptions);
      const completion = await sendRequest(
        (sdkOptions) => client.chat.completions.create(body, sdkOptions),
        summarizeOptions,
        toLlmUsage,
      );
      return readContent(completion.choices?.[0]?.message?.content);
    },
  };
}

/** OpenAI's prompt tokens include the cached ones; the cache has no write charge. */
function toLlmUsage(usage: OpenAIUsageLike): LlmUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
    cacheReadInputTokens: cached,
    cacheCreationInputTokens: 0,
    outputTokens: usage.completion_tokens ?? 0,
    requestCount: 1,
  };
}

const SDK = {
  packageName: PACKAGE_NAME,
  className: 'OpenAI',
  importer: () => import('openai'),
  purpose: 'The OpenAI LLM client',
};

/** A message's content: a string, or (some compatible servers) a list of text parts. */
function readContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}
