/**
 * `--summarizer upstream`: the summary is asked of the upstream the request was going to, with
 * the request's own credentials and model, in the request's own API. For Anthropic it repeats
 * the request (model, system, tools, thinking) with the conversation as its messages and one
 * more user message asking for the summary, so the provider's prompt cache serves the
 * conversation (what `summaryMode: 'reuse-prefix'` does). For OpenAI it sends the package's
 * summary prompt to the same endpoint.
 *
 * Every summary request fits the window: its input, counted locally and scaled by a margin for
 * the provider's own count, plus the reply's ceiling, stays within 98% of it. An Anthropic
 * request repeated whole when that fits; otherwise the conversation goes as the summary prompt,
 * its long parts cut and, when that is not enough, in parts, each carrying the summary so far.
 * A refusal of the request as it was (a 4xx other than 408, 409 or 429) is final: it is not
 * retried, and compaction falls back to the extractive summarizer.
 */
import { AUTH_HEADER } from './auth.js';
import type { LlmClient, LlmSummarizeOptions, SummarizerOptions, TokenCounter } from '../core/ports.js';
import type { Message } from '../core/types.js';
import {
  createAnthropicLlmClient,
  type AnthropicLike,
  type AnthropicMessageLike,
} from '../infrastructure/anthropic-client.js';
import { defaultTokenCounter } from '../infrastructure/tokenizer.js';
import { upstreamUrl } from './forward.js';
import type { ProxyRoute } from './routes.js';
import { SESSION_HEADER } from './session-id.js';
import {
  buildSummaryInstruction,
  computeMinSummaryInputTokens,
  computeSummaryMaxTokens,
  createLlmSummarizer,
} from '../summarize.js';

/** The request a summary is asked for: where it was going, with which headers and body. */
export interface UpstreamRequest {
  route: ProxyRoute;
  upstream: URL;
  /** The client's raw headers (credentials among them); used for this one call, never kept. */
  rawHeaders: readonly string[];
  /** The request body as the client sent it. */
  body: Readonly<Record<string, unknown>>;
  /** The model's context window in tokens (the proxy's `contextTokenLimit`): each summary request fits it. */
  windowTokens: number;
}

/** Share of the window a summary request takes at most, the reply's ceiling included. */
const SUMMARY_REQUEST_WINDOW_SHARE = 0.98;

/**
 * Provider tokens per local (o200k) token assumed for a summary request. Anthropic's tokenizer
 * counts about 1.5 times what o200k counts of the same text; an OpenAI model's counts o200k's
 * or a little more (older encodings, message framing).
 */
const SUMMARY_COUNT_MARGINS: Readonly<Record<ProxyRoute['provider'], number>> = {
  anthropic: 1.5,
  openai: 1.1,
  gemini: 1.1,
};

/** Local tokens kept free for what wraps the summary prompt in a request body (role, keys). */
const REQUEST_FRAMING_TOKENS = 64;

/** The system prompt goes with a summary prompt only while it takes at most this share of the room. */
const MAX_SYSTEM_SHARE = 0.25;

/** Headers of the client's request that do not apply to a request the proxy makes itself. */
const DROPPED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
  'content-type',
  SESSION_HEADER,
  AUTH_HEADER,
]);

function summaryHeaders(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (!DROPPED_HEADERS.has(name)) headers.append(name, rawHeaders[index + 1] as string);
  }
  headers.set('content-type', 'application/json');
  return headers;
}

/**
 * An upstream answer that is not a success: its status, `retry-after` for the retry policy, and
 * whether the same request could succeed later (`retryable`: not after a refusal of the
 * request itself, a 4xx other than 408, 409 and 429).
 */
class UpstreamSummaryError extends Error {
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  readonly retryable: boolean;

  constructor(status: number, retryAfterSeconds: string | null) {
    super(`the upstream answered ${status} to the summary request`);
    this.name = 'UpstreamSummaryError';
    this.status = status;
    this.retryable = status < 400 || status >= 500 || status === 408 || status === 409 || status === 429;
    const seconds = retryAfterSeconds === null ? Number.NaN : Number(retryAfterSeconds);
    this.retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
  }
}

async function postJson(request: UpstreamRequest, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
  const url = upstreamUrl(request.upstream, request.route.path);
  const response = await fetch(url, {
    method: 'POST',
    headers: summaryHeaders(request.rawHeaders),
    body: JSON.stringify(body),
    ...(signal !== undefined && { signal }),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new UpstreamSummaryError(response.status, response.headers.get('retry-after'));
  }
  return response.json() as Promise<unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a Responses body (`output[].content[].text` of `output_text` parts), or of a chat completion. */
function readOpenAIText(reply: unknown): string {
  if (!isRecord(reply)) return '';
  if (Array.isArray(reply.choices)) {
    const message = (reply.choices[0] as { message?: { content?: unknown } } | undefined)?.message;
    return typeof message?.content === 'string' ? message.content : '';
  }
  const texts: string[] = [];
  for (const item of Array.isArray(reply.output) ? reply.output : []) {
    for (const part of isRecord(item) && Array.isArray(item.content) ? item.content : []) {
      if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
    }
  }
  return texts.join('');
}

/** A summary request the window cannot hold at all: asking again would not help. */
class SummaryWindowError extends Error {
  readonly retryable = false;

  constructor(message: string) {
    super(message);
    this.name = 'SummaryWindowError';
  }
}

/** An LLM client on an OpenAI endpoint (Responses or Chat Completions) with the request's credentials. */
function createOpenAIClient(request: UpstreamRequest): LlmClient {
  return {
    defaultModel: null,
    async summarize(prompt: string, model: string, options: LlmSummarizeOptions = {}): Promise<string> {
      const body =
        request.route.path === '/v1/responses'
          ? {
              model,
              input: prompt,
              store: false,
              ...(options.maxTokens !== undefined && { max_output_tokens: options.maxTokens }),
            }
          : {
              model,
              messages: [{ role: 'user', content: prompt }],
              ...(options.maxTokens !== undefined && { max_completion_tokens: options.maxTokens }),
            };
      return readOpenAIText(await postJson(request, body, options.signal));
    },
  };
}

/** An LLM client on the Anthropic Messages endpoint: the summary prompt as one user message, after the request's system prompt when given. */
function createAnthropicPromptClient(request: UpstreamRequest, system: unknown): LlmClient {
  return {
    defaultModel: null,
    async summarize(prompt: string, model: string, options: LlmSummarizeOptions = {}): Promise<string> {
      const body = {
        model,
        max_tokens: options.maxTokens,
        ...(system !== undefined && { system }),
        messages: [{ role: 'user', content: prompt }],
      };
      const reply = await postJson(request, body, options.signal);
      const content = isRecord(reply) && Array.isArray(reply.content) ? reply.content : [];
      return content
        .map((block) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
        .join('');
    },
  };
}

/** The Anthropic SDK surface the package's client needs, over the request's upstream and credentials. */
function createAnthropicTransport(request: UpstreamRequest): AnthropicLike {
  return {
    messages: {
      create: async (body, options) => (await postJson(request, body, options?.signal)) as AnthropicMessageLike,
    },
  };
}

/** Local tokens of `values` (each as JSON), or `undefined` as soon as they pass `limit`: a history far over it is not tokenized whole. */
function countUpTo(values: readonly unknown[], limit: number, counter: TokenCounter): number | undefined {
  let total = 0;
  for (const value of values) {
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    total += counter.count(text);
    if (total > limit) return undefined;
  }
  return total;
}

/** `budget_tokens` of an enabled extended-thinking setting: the API counts it in `max_tokens`. */
function thinkingBudgetOf(thinking: unknown): number {
  if (!isRecord(thinking) || thinking.type !== 'enabled') return 0;
  const budget = thinking.budget_tokens;
  return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : 0;
}

/**
 * The summarizer of the summary prompt, each prompt within the local tokens that fit the
 * window once scaled by the provider's margin, with the reply's ceiling and `reservedLocal`
 * (a system prompt sent along) taken out.
 *
 * @throws {SummaryWindowError} when the window leaves no room for the shortest summary prompt.
 */
function summarizeInParts(
  request: UpstreamRequest,
  client: LlmClient,
  messages: readonly Message[],
  options: SummarizerOptions,
  reservedLocal: number,
): Promise<string> {
  const margin = SUMMARY_COUNT_MARGINS[request.route.provider];
  const maxTokens = computeSummaryMaxTokens(options.maxWords);
  const budget = Math.floor(request.windowTokens * SUMMARY_REQUEST_WINDOW_SHARE);
  const inputMaxTokens = Math.floor((budget - maxTokens) / margin) - reservedLocal - REQUEST_FRAMING_TOKENS;
  const minimum = computeMinSummaryInputTokens(options.maxWords, defaultTokenCounter);
  if (inputMaxTokens < minimum) {
    return Promise.reject(
      new SummaryWindowError(
        `a window of ${request.windowTokens} tokens leaves ${Math.max(0, inputMaxTokens)} tokens (counted locally) for a summary prompt after the reply's ${maxTokens}; it needs at least ${minimum}`,
      ),
    );
  }
  const summarizer = createLlmSummarizer(client, {
    model: String(request.body.model),
    inputMaxTokens,
    maxTokens,
    tokenCounter: defaultTokenCounter,
    tokenCounterEncoding: 'o200k_base',
    // other sessions of the proxy keep running while a long message is counted
    yieldToLoop: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  return summarizer.summarize(messages, options);
}

async function summarizeWithAnthropic(
  request: UpstreamRequest,
  messages: readonly Message[],
  options: SummarizerOptions,
): Promise<string> {
  const { model, system, tools, tool_choice: toolChoice, thinking } = request.body;
  const instruction = buildSummaryInstruction({ maxWords: options.maxWords });
  const maxTokens = computeSummaryMaxTokens(options.maxWords);
  const margin = SUMMARY_COUNT_MARGINS.anthropic;
  const budget = Math.floor(request.windowTokens * SUMMARY_REQUEST_WINDOW_SHARE);
  const room = Math.floor((budget - maxTokens - thinkingBudgetOf(thinking)) / margin) - REQUEST_FRAMING_TOKENS;
  const whole = countUpTo(
    [
      system,
      tools,
      toolChoice,
      thinking,
      ...messages.map((message) => ({ role: message.role, content: message.content })),
      instruction,
    ],
    room,
    defaultTokenCounter,
  );
  if (whole === undefined) {
    // the conversation as the summary prompt, after the system prompt while it leaves room
    const systemLocal = countUpTo([system], Math.floor(room * MAX_SYSTEM_SHARE), defaultTokenCounter);
    const sent = systemLocal === undefined ? undefined : system;
    return summarizeInParts(request, createAnthropicPromptClient(request, sent), messages, options, systemLocal ?? 0);
  }
  const client = await createAnthropicLlmClient({ client: createAnthropicTransport(request) });
  return client.summarizeConversation(
    {
      model: String(model),
      ...(system !== undefined && { system: system as string | unknown[] }),
      ...(Array.isArray(tools) && { tools }),
      ...(toolChoice !== undefined && { tool_choice: toolChoice }),
      ...(thinking !== undefined && { thinking }),
      messages,
      instruction,
    },
    {
      maxTokens,
      ...(options.signal !== undefined && { signal: options.signal }),
    },
  );
}

/**
 * Asks the upstream `request` was going to for the summary of `messages`, with its credentials
 * and model, each request within {@link SUMMARY_REQUEST_WINDOW_SHARE} of `request.windowTokens`.
 *
 * @throws when there is no request (a compaction outside one), for a Gemini request (`retryable:
 * false`: the extractive summary is written instead), when the window cannot hold a
 * summary request (`retryable: false`), or with the upstream's refusal (`retryable: false` for
 * a 4xx other than 408, 409 and 429).
 */
export function summarizeUpstream(
  request: UpstreamRequest | undefined,
  messages: readonly Message[],
  options: SummarizerOptions,
): Promise<string> {
  if (request === undefined) return Promise.reject(new Error('no request to ask the summary with'));
  if (request.route.provider === 'anthropic') return summarizeWithAnthropic(request, messages, options);
  if (request.route.provider === 'gemini') {
    // the manager then writes the extractive summary: asking again would not help
    const error = new Error('the upstream summarizer asks Anthropic and OpenAI APIs, not the Gemini API');
    return Promise.reject(Object.assign(error, { retryable: false }));
  }
  return summarizeInParts(request, createOpenAIClient(request), messages, options, 0);
}
