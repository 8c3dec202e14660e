/**
 * What the Anthropic and OpenAI clients share: loading an optional SDK lazily, reading a
 * provider's `retry-after` into `retryAfterMs` for the compaction retry, and the abort rule.
 */
import { computeSummaryMaxTokens } from '../core/compact/summary/summarize-with-llm.js';
import { DEFAULT_SUMMARY_MAX_WORDS } from '../core/options/defaults.js';
import {
  describeValue,
  importOptionalPeer,
  InvalidOptionError,
  MissingDependencyError,
  type SdkImporter,
} from '../core/errors.js';
import type { LlmSummarizeOptions, LlmUsage } from '../core/ports.js';

export type { SdkImporter };

/** An error that says how long to wait before trying again, as the compaction retry reads it. */
export interface RetryAfterError extends Error {
  /** Milliseconds the provider asked to wait (from `retry-after-ms` or `retry-after`). */
  retryAfterMs: number;
}

/**
 * The SDK's client class from its module: the default export (ESM), the named export, or the
 * module itself (CommonJS interop).
 */
function pickSdkConstructor<T>(
  sdkModule: unknown,
  namedExport: string,
  packageName: string,
): new (options: Record<string, unknown>) => T {
  const candidates = [
    (sdkModule as { default?: unknown } | null)?.default,
    (sdkModule as Record<string, unknown> | null)?.[namedExport],
    ((sdkModule as { default?: unknown } | null)?.default as Record<string, unknown> | undefined)?.[namedExport],
  ];
  const found = candidates.find((candidate) => typeof candidate === 'function');
  if (found === undefined) {
    throw new MissingDependencyError(
      `${packageName} was loaded but exports no ${namedExport} client class; install a supported version: \`npm install ${packageName}\``,
    );
  }
  return found as new (options: Record<string, unknown>) => T;
}

/** What a client factory needs to construct an SDK client itself. */
interface SdkClientSettings {
  /** Key of the constructed client; the SDK's own default when absent. */
  apiKey?: string | undefined;
  /** Base URL of the constructed client; the SDK's own default when absent. */
  baseURL?: string | undefined;
  /** The SDK's own retries; 0 when absent, so compaction's retry is the only policy. */
  maxRetries?: number | undefined;
}

/** The options both client factories take besides their own. */
export interface SdkClientOptions<T> extends SdkClientSettings {
  model?: string | undefined;
  /** A client to use as it is; none of the settings may come with it. */
  client?: T | undefined;
  importSdk?: SdkImporter | undefined;
}

/** The SDK a factory constructs its client from when it is given none. */
export interface SdkDescription {
  /** The npm package. */
  packageName: string;
  /** The client class it exports. */
  className: string;
  /** Loads the package when the options bring no `importSdk`. */
  importer: SdkImporter;
  /** What needs it, for the missing-dependency message. */
  purpose: string;
}

/**
 * Checks the options every client factory takes (`model`, `maxRetries`, no SDK settings beside
 * `client`), before anything is loaded.
 */
export function checkClientOptions(options: SdkClientOptions<unknown>): void {
  checkNoSettingsWithClient(options);
  checkMaxRetries(options.maxRetries);
  checkModel(options.model);
}

function checkMaxRetries(value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
    throw new InvalidOptionError(`maxRetries must be an integer >= 0, got ${describeValue(value)}`);
  }
}

function checkModel(value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
    throw new InvalidOptionError(`model must be a non-empty string, got ${describeValue(value)}`);
  }
}

/** Rejects settings for a client we would construct when the caller passed their own client. */
function checkNoSettingsWithClient(options: {
  client?: unknown;
  apiKey?: unknown;
  baseURL?: unknown;
  maxRetries?: unknown;
}): void {
  if (options.client === undefined) return;
  const given = (['apiKey', 'baseURL', 'maxRetries'] as const).filter((name) => options[name] !== undefined);
  if (given.length > 0) {
    throw new InvalidOptionError(
      `${given.join(', ')} configure${given.length === 1 ? 's' : ''} the client this function constructs and cannot be combined with client; configure the client you pass instead`,
    );
  }
}

/**
 * The caller's client as it is, else one constructed from the settings: the SDK imported now,
 * its retries off unless `maxRetries` says otherwise.
 */
export async function resolveSdkClient<T>(options: SdkClientOptions<T>, sdk: SdkDescription): Promise<T> {
  if (options.client !== undefined) return options.client;
  const sdkModule = await importOptionalPeer(sdk.packageName, options.importSdk ?? sdk.importer, sdk.purpose);
  const Client = pickSdkConstructor<T>(sdkModule, sdk.className, sdk.packageName);
  const settings: Record<string, unknown> = { maxRetries: options.maxRetries ?? 0 };
  if (options.apiKey !== undefined) settings.apiKey = options.apiKey;
  if (options.baseURL !== undefined) settings.baseURL = options.baseURL;
  return new Client(settings);
}

/** The reply bound of one summary request: `maxTokens`, else what a summary of the default length needs. */
export function resolveReplyMaxTokens(options: LlmSummarizeOptions): number {
  return options.maxTokens ?? computeSummaryMaxTokens(DEFAULT_SUMMARY_MAX_WORDS);
}

type UsageOf<R> = R extends { usage?: infer U } ? NonNullable<U> : never;

/**
 * Sends one request with the call's signal and returns the reply; a failure rejects as
 * {@link toClientError} makes it, and the reply's `usage`, when it has one, goes to `onUsage`
 * through `toUsage`.
 */
export async function sendRequest<R extends object>(
  request: (requestOptions: { signal: AbortSignal } | undefined) => PromiseLike<R>,
  options: { signal?: AbortSignal | undefined; onUsage?: ((usage: LlmUsage) => void) | undefined },
  toUsage?: (usage: UsageOf<R>) => LlmUsage,
): Promise<R> {
  const { signal, onUsage } = options;
  let reply: R;
  try {
    reply = await request(signal === undefined ? undefined : { signal });
  } catch (error) {
    throw toClientError(error, signal);
  }
  const usage = (reply as { usage?: unknown }).usage;
  if (onUsage !== undefined && toUsage !== undefined && typeof usage === 'object' && usage !== null)
    onUsage(toUsage(usage as UsageOf<R>));
  return reply;
}

/**
 * Milliseconds a response's headers ask to wait: `retry-after-ms` (milliseconds), else
 * `retry-after` (seconds, or an HTTP date). `undefined` when neither holds a usable value.
 * Accepts a fetch `Headers` object or a plain record (older SDK versions).
 */
function readRetryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(readHeader(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = readHeader(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function readHeader(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === 'function') {
    const value: unknown = getter.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * What a client rethrows for a failed request:
 * - the signal's reason when the caller aborted (so an abort is never mistaken for a provider
 *   failure, and is not retried);
 * - the SDK's own error, with a numeric `retryAfterMs` added when its response headers asked
 *   for a delay (a frozen error is wrapped instead, keeping it as `cause`);
 * - any other error unchanged.
 */
function toClientError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true) return signal.reason;
  if (typeof error !== 'object' || error === null) return error;
  const retryAfterMs = readRetryAfterMs((error as { headers?: unknown }).headers);
  if (retryAfterMs === undefined) return error;
  try {
    Object.defineProperty(error, 'retryAfterMs', {
      value: retryAfterMs,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    return error;
  } catch {
    const message = error instanceof Error ? error.message : String(error);
    return Object.assign(new Error(message, { cause: error }), { retryAfterMs });
  }
}
