/**
 * The Gemini API as the proxy manages it: `POST /v1beta/models/<model>:generateContent` and
 * `:streamGenerateContent` (server-sent events with `?alt=sse`, else one JSON array written as it
 * grows), its error shape, and where its answers say how many input tokens a request took.
 */

/** The label of the Gemini route in events, logs and metrics: one for every model and both methods. */
export const GEMINI_ROUTE_PATH = '/v1beta/models/*:generateContent' as const;

/** The usage field of a Gemini answer (and of each event of its stream). */
export const GEMINI_USAGE_FIELD = 'usageMetadata';

/** A model's `generateContent` or `streamGenerateContent` path, in any API version Gemini serves. */
const GENERATE_PATH = /^\/(?:v1|v1beta|v1alpha)\/models\/[^/:]+:(?:generateContent|streamGenerateContent)$/;

/** Whether `path` (without its query) is a model's `generateContent` or `streamGenerateContent`. */
export function isGeminiGeneratePath(path: string): boolean {
  return GENERATE_PATH.test(path);
}

/** Whether `path` belongs to the Gemini API at all (models, files, cached contents, ...). */
export function isGeminiPath(path: string): boolean {
  return path.startsWith('/v1beta/') || path.startsWith('/v1alpha/') || /^\/v1\/models\/[^/]+:/.test(path);
}

/** The input figures of a Gemini answer. */
export interface GeminiUsage {
  /** Every input token: `promptTokenCount`, which counts the cached ones too. */
  inputTokens?: number;
  /** Input tokens served from the context cache: `cachedContentTokenCount`. */
  cacheReadInputTokens?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * The usage of one Gemini answer, one event of its stream, or the JSON array a stream without
 * `alt=sse` is (its last element holding figures wins); `undefined` when it holds none.
 */
export function readGeminiUsage(payload: unknown): GeminiUsage | undefined {
  if (Array.isArray(payload)) {
    for (let index = payload.length - 1; index >= 0; index -= 1) {
      const usage = readGeminiUsage(payload[index]);
      if (usage !== undefined) return usage;
    }
    return undefined;
  }
  if (!isRecord(payload) || !isRecord(payload[GEMINI_USAGE_FIELD])) return undefined;
  const metadata = payload[GEMINI_USAGE_FIELD];
  const usage: GeminiUsage = {};
  if (isCount(metadata.promptTokenCount)) usage.inputTokens = metadata.promptTokenCount;
  if (isCount(metadata.cachedContentTokenCount)) usage.cacheReadInputTokens = metadata.cachedContentTokenCount;
  return Object.keys(usage).length === 0 ? undefined : usage;
}

/** The `status` Google's APIs give each HTTP status the proxy answers with. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  413: 'INVALID_ARGUMENT',
  502: 'UNAVAILABLE',
};

/** An error body in Google's shape (`{ error: { code, message, status } }`), as the Gemini SDKs read it. */
export function formatGeminiErrorBody(httpStatus: number, message: string): string {
  return JSON.stringify({ error: { code: httpStatus, message, status: GOOGLE_STATUS[httpStatus] ?? 'UNKNOWN' } });
}
