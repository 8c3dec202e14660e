/**
 * `--summarizer upstream`: the summary is asked of the upstream the request was going to, with
 * the request's own credentials and model, in the request's own API. For Anthropic it repeats
 * the request (model, system, tools, thinking) with the conversation as its messages and one
 * more user message asking for the summary, so the provider's prompt cache serves the
 * conversation (what `summaryMode: 'reuse-prefix'` does). For OpenAI it sends the package's
 * summary prompt to the same endpoint.
 */
import { computeSummaryMaxTokens, createLlmSummarizer } from '../core/compact/summarize-with-llm.js';
import { buildSummaryInstruction } from '../core/compact/summary-prompt.js';
import type { LlmClient, LlmSummarizeOptions, SummarizerOptions } from '../core/ports.js';
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

/** The request a summary is asked for: where it was going, with which headers and body. */
export interface UpstreamRequest {
  route: ProxyRoute;
  upstream: URL;
  /** The client's raw headers (credentials among them); used for this one call, never kept. */
  rawHeaders: readonly string[];
  /** The request body as the client sent it. */
  body: Readonly<Record<string, unknown>>;
}

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

/** An upstream answer that is not a success: its status, and `retry-after` for the retry policy. */
class UpstreamSummaryError extends Error {
  readonly status: number;
  readonly retryAfterMs: number | undefined;

  constructor(status: number, retryAfterSeconds: string | null) {
    super(`the upstream answered ${status} to the summary request`);
    this.name = 'UpstreamSummaryError';
    this.status = status;
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

/** The Anthropic SDK surface the package's client needs, over the request's upstream and credentials. */
function createAnthropicTransport(request: UpstreamRequest): AnthropicLike {
  return {
    messages: {
      create: async (body, options) => (await postJson(request, body, options?.signal)) as AnthropicMessageLike,
    },
  };
}

async function summarizeWithAnthropic(
  request: UpstreamRequest,
  messages: readonly Message[],
  options: SummarizerOptions,
): Promise<string> {
  const client = await createAnthropicLlmClient({ client: createAnthropicTransport(request) });
  const { model, system, tools, tool_choice: toolChoice, thinking } = request.body;
  return client.summarizeConversation(
    {
      model: String(model),
      ...(system !== undefined && { system: system as string | unknown[] }),
      ...(Array.isArray(tools) && { tools }),
      ...(toolChoice !== undefined && { tool_choice: toolChoice }),
      ...(thinking !== undefined && { thinking }),
      messages,
      instruction: buildSummaryInstruction({ maxWords: options.maxWords }),
    },
    {
      maxTokens: computeSummaryMaxTokens(options.maxWords),
      ...(options.signal !== undefined && { signal: options.signal }),
    },
  );
}

/**
 * Asks the upstream `request` was going to for the summary of `messages`, with its credentials
 * and model.
 *
 * @throws when there is no request (a compaction outside one).
 */
export function summarizeUpstream(
  request: UpstreamRequest | undefined,
  messages: readonly Message[],
  options: SummarizerOptions,
): Promise<string> {
  if (request === undefined) return Promise.reject(new Error('no request to ask the summary with'));
  if (request.route.provider === 'anthropic') return summarizeWithAnthropic(request, messages, options);
  const summarizer = createLlmSummarizer(createOpenAIClient(request), {
    model: String(request.body.model),
    tokenCounter: defaultTokenCounter,
    tokenCounterEncoding: 'o200k_base',
  });
  return summarizer.summarize(messages, options);
}
