/**
 * The four model APIs the proxy manages: which path each one is, the message format of its
 * history, how it reports an error, and where its responses say how many input tokens the
 * request took. Every other path is passed through untouched.
 */
import type { MessageFormat } from '../core/format.js';
import type { LastUsage } from '../core/text/tokens.js';
import { anthropic } from '../formats/anthropic.js';
import { gemini } from '../formats/gemini.js';
import { openaiChat } from '../formats/openai-chat.js';
import { openaiResponses } from '../formats/openai-responses.js';
import {
  formatGeminiErrorBody,
  GEMINI_ROUTE_PATH,
  GEMINI_USAGE_FIELD,
  isGeminiGeneratePath,
  isGeminiPath,
  readGeminiUsage,
} from './gemini-route.js';

/** Who defines an API: its error shape, its usage fields, the calibration of token estimates. */
export type ProxyProvider = 'anthropic' | 'openai' | 'gemini';

/** The paths the proxy manages (Gemini's as one label for every model and both methods). */
export type ProxyRoutePath =
  | '/v1/messages'
  | '/v1/responses'
  | '/v1/chat/completions'
  /** Gemini's `generateContent` and `streamGenerateContent`, of any model. */
  | '/v1beta/models/*:generateContent';

/** The kinds of error the proxy answers itself. */
export type ProxyErrorKind = 'invalid-request' | 'unauthorized' | 'too-large' | 'bad-gateway';

/** The input tokens a response reported for its request. */
export interface UsageFigures {
  /** Input tokens not read from the prompt cache (Anthropic), or all input tokens (OpenAI, Gemini). */
  inputTokens: number;
  /** Anthropic, Gemini: input tokens read from the prompt cache. */
  cacheReadInputTokens?: number | undefined;
  /** Anthropic: input tokens written to the prompt cache. */
  cacheCreationInputTokens?: number | undefined;
}

/** One managed API. */
export interface ProxyRoute {
  path: ProxyRoutePath;
  provider: ProxyProvider;
  /** The format of the history in the request body (`messages`, `input` or `contents`). */
  format: MessageFormat;
  /** The field of a response (or of a streamed event) holding its usage, when not `usage`. */
  usageField?: string;
  /**
   * The usage in a JSON response body, or in one event of a streamed response (`undefined` when
   * it holds none). Figures of later events override earlier ones field by field.
   */
  readUsage(payload: unknown): Partial<UsageFigures> | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields of `usage` that are token counts (finite numbers >= 0), renamed. */
function pickCounts(
  usage: unknown,
  names: Readonly<Partial<Record<keyof UsageFigures, string>>>,
): Partial<UsageFigures> | undefined {
  if (!isRecord(usage)) return undefined;
  const figures: Partial<UsageFigures> = {};
  for (const [figure, field] of Object.entries(names) as [keyof UsageFigures, string][]) {
    const value = usage[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) figures[figure] = value;
  }
  return Object.keys(figures).length === 0 ? undefined : figures;
}

const ANTHROPIC_USAGE = {
  inputTokens: 'input_tokens',
  cacheReadInputTokens: 'cache_read_input_tokens',
  cacheCreationInputTokens: 'cache_creation_input_tokens',
} as const;
const RESPONSES_USAGE = { inputTokens: 'input_tokens' } as const;
const CHAT_USAGE = { inputTokens: 'prompt_tokens' } as const;

const ROUTES: readonly ProxyRoute[] = [
  {
    path: '/v1/messages',
    provider: 'anthropic',
    format: anthropic,
    // a Message body, or the stream's `message_start` (its message's usage) and `message_delta` (final figures)
    readUsage(payload) {
      if (!isRecord(payload)) return undefined;
      if (payload.type === 'message_start' && isRecord(payload.message))
        return pickCounts(payload.message.usage, ANTHROPIC_USAGE);
      return pickCounts(payload.usage, ANTHROPIC_USAGE);
    },
  },
  {
    path: '/v1/responses',
    provider: 'openai',
    format: openaiResponses,
    // a Response body, or the stream's `response.completed` (also `.incomplete`) event holding it
    readUsage(payload) {
      if (!isRecord(payload)) return undefined;
      if (isRecord(payload.response)) return pickCounts(payload.response.usage, RESPONSES_USAGE);
      return pickCounts(payload.usage, RESPONSES_USAGE);
    },
  },
  {
    path: '/v1/chat/completions',
    provider: 'openai',
    format: openaiChat,
    // a completion body, or the stream's last chunk (`stream_options: { include_usage: true }`)
    readUsage: (payload) => (isRecord(payload) ? pickCounts(payload.usage, CHAT_USAGE) : undefined),
  },
  {
    path: GEMINI_ROUTE_PATH,
    provider: 'gemini',
    format: gemini,
    usageField: GEMINI_USAGE_FIELD,
    // an answer, an event of an `alt=sse` stream, or the JSON array of a stream without it
    readUsage: readGeminiUsage,
  },
];

/**
 * The managed route of a request, or `undefined` to pass it through. Only `POST` is managed; the
 * query is ignored (`?beta=true`, `?alt=sse`); any Gemini model's `generateContent` and
 * `streamGenerateContent` are the one Gemini route.
 */
export function matchRoute(method: string | undefined, url: string | undefined): ProxyRoute | undefined {
  if (method !== 'POST' || url === undefined) return undefined;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const routePath = isGeminiGeneratePath(path) ? GEMINI_ROUTE_PATH : path;
  return ROUTES.find((route) => route.path === routePath);
}

/** Anthropic's token count of a Messages body: answered for the history the proxy would send. */
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

/**
 * The Messages route when `url` is a `POST` of {@link COUNT_TOKENS_PATH} (its body is a Messages
 * body without the reply's settings), else `undefined`. The query is ignored.
 */
export function matchCountTokens(method: string | undefined, url: string): ProxyRoute | undefined {
  if (method !== 'POST' || url.split('?', 1)[0] !== COUNT_TOKENS_PATH) return undefined;
  return ROUTES.find((route) => route.path === '/v1/messages');
}

/**
 * Whose error shape a request expects, for a route the proxy does not manage: Anthropic when
 * the path is under `/v1/messages` or the request carries an `anthropic-version` header; Gemini
 * on a Gemini path or with an `x-goog-api-key` header; OpenAI when it carries only an
 * `authorization` header (the OpenAI SDKs' bearer key); Anthropic otherwise (Claude Code's
 * connectivity check carries no header at all).
 */
export function guessProvider(url: string | undefined, headers: Readonly<Record<string, unknown>>): ProxyProvider {
  if (url?.startsWith('/v1/messages') === true || headers['anthropic-version'] !== undefined) return 'anthropic';
  if (headers['x-goog-api-key'] !== undefined || isGeminiPath((url ?? '').split('?', 1)[0] as string)) return 'gemini';
  return headers.authorization !== undefined ? 'openai' : 'anthropic';
}

/** Model APIs the proxy passes through but does not manage, each said once in the log. */
export type UnmanagedApi = 'azure-openai';

/** The API a path belongs to, as far as the path alone says. */
function providerOfPath(path: string): ProxyProvider | UnmanagedApi | undefined {
  // `/api/...` is Anthropic's own (Claude Code's connectivity check and account calls)
  if (path === '/v1/messages' || path.startsWith('/v1/messages/') || path.startsWith('/api/')) return 'anthropic';
  if (/^\/v1\/(?:responses|chat\/completions)(?:\/|$)/.test(path)) return 'openai';
  if (isGeminiPath(path)) return 'gemini';
  if (path.startsWith('/openai/deployments/')) return 'azure-openai';
  return undefined;
}

/** A model API the proxy passes through without managing it, or `undefined`. */
export function matchUnmanagedApi(url: string): UnmanagedApi | undefined {
  const provider = providerOfPath(url.split('?', 1)[0] as string);
  return provider === 'azure-openai' ? provider : undefined;
}

/** Where a request goes without `upstream`, or why it cannot go anywhere. */
export type Attribution =
  | { provider: ProxyProvider }
  /** The request cannot be attributed: `reason` says what it carries; `shape` is its error shape. */
  | { provider?: undefined; reason: string; shape: ProxyProvider };

function header(headers: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : undefined;
}

/**
 * The provider a request is sent to when the proxy has no `upstream`: the one its path names
 * (`/v1/messages` and `/api/` Anthropic, `/v1/responses` and `/v1/chat/completions` OpenAI,
 * `/v1beta/...` and `/v1/models/<model>:...` Gemini), else the one its headers name
 * (`anthropic-version` or `x-api-key` Anthropic, `x-goog-api-key` or a `key=` query Gemini, a
 * bearer key OpenAI); a request with no credential at all goes to Anthropic (Claude Code's
 * connectivity check). A credential is never sent to another provider than its own: a request
 * is not attributed when it carries a key of a provider with no default upstream (Azure's
 * `api-key`) or is on such a provider's path, carries a Gemini credential on another
 * provider's path or an Anthropic one on an OpenAI or Gemini path, or a bearer `sk-ant-` key
 * (Anthropic's) with nothing else naming Anthropic.
 */
export function attributeProvider(url: string, headers: Readonly<Record<string, unknown>>): Attribution {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const byPath = providerOfPath(path);
  if (header(headers, 'api-key') !== undefined || byPath === 'azure-openai')
    return { reason: 'an Azure OpenAI request (an api-key header or an /openai/deployments/ path)', shape: 'openai' };
  const bearer = /^\s*bearer\s+(\S+)/i.exec(header(headers, 'authorization') ?? '')?.[1];
  const namesAnthropic =
    header(headers, 'anthropic-version') !== undefined || header(headers, 'x-api-key') !== undefined;
  const namesGemini = header(headers, 'x-goog-api-key') !== undefined || query.has('key');
  if (byPath === 'gemini') {
    if (namesAnthropic || bearer?.startsWith('sk-ant-') === true)
      return { reason: 'an Anthropic credential on a Gemini path', shape: 'gemini' };
    return { provider: 'gemini' };
  }
  if (namesGemini) {
    return byPath === undefined && !namesAnthropic
      ? { provider: 'gemini' }
      : {
          reason: "a Gemini credential (an x-goog-api-key header or a key= query) on another provider's request",
          shape: byPath ?? 'anthropic',
        };
  }
  if (byPath === 'anthropic') return { provider: 'anthropic' };
  if (byPath === 'openai') {
    if (namesAnthropic || bearer?.startsWith('sk-ant-') === true)
      return { reason: 'an Anthropic credential on an OpenAI path', shape: 'openai' };
    return { provider: 'openai' };
  }
  if (namesAnthropic) return { provider: 'anthropic' };
  if (bearer?.startsWith('sk-ant-') === true)
    return { reason: "a bearer sk-ant- key (Anthropic's) without an anthropic-version header", shape: 'anthropic' };
  return { provider: header(headers, 'authorization') !== undefined ? 'openai' : 'anthropic' };
}

const ANTHROPIC_ERROR_TYPES: Readonly<Record<ProxyErrorKind, string>> = {
  'invalid-request': 'invalid_request_error',
  unauthorized: 'authentication_error',
  'too-large': 'request_too_large',
  'bad-gateway': 'api_error',
};

const OPENAI_ERROR_TYPES: Readonly<Record<ProxyErrorKind, string>> = {
  'invalid-request': 'invalid_request_error',
  unauthorized: 'invalid_request_error',
  'too-large': 'invalid_request_error',
  'bad-gateway': 'server_error',
};

/** The HTTP status of each kind of error. */
export const ERROR_STATUS: Readonly<Record<ProxyErrorKind, number>> = {
  'invalid-request': 400,
  unauthorized: 401,
  'too-large': 413,
  'bad-gateway': 502,
};

/** An error body in the provider's own shape, so the client's SDK reports it as it would the provider's. */
export function formatErrorBody(provider: ProxyProvider, kind: ProxyErrorKind, message: string): string {
  if (provider === 'gemini') return formatGeminiErrorBody(ERROR_STATUS[kind], message);
  if (provider === 'anthropic')
    return JSON.stringify({ type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[kind], message } });
  return JSON.stringify({ error: { message, type: OPENAI_ERROR_TYPES[kind], param: null, code: null } });
}

/**
 * The next request's `lastUsage` from what a response reported: Anthropic's three input figures
 * as the manager reads them, else the total (OpenAI's, Gemini's, cached tokens included).
 * `messageCount` is the number of history items the request sent.
 */
export function toLastUsage(provider: ProxyProvider, figures: UsageFigures, messageCount: number): LastUsage {
  if (provider !== 'anthropic') return { inputTokens: figures.inputTokens, messageCount };
  return {
    input_tokens: figures.inputTokens,
    cache_read_input_tokens: figures.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: figures.cacheCreationInputTokens ?? 0,
    messageCount,
  };
}
