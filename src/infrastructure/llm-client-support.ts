/**
 * What the Anthropic and OpenAI clients share: loading an optional SDK lazily, reading a
 * provider's `retry-after` into `retryAfterMs` for the compaction retry, and the abort rule.
 */
import { describeValue, importOptionalPeer, InvalidOptionError, MissingDependencyError, type SdkImporter } from '../core/errors.js';

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
export function pickSdkConstructor<T>(sdkModule: unknown, namedExport: string, packageName: string): new (options: Record<string, unknown>) => T {
  const candidates = [
    (sdkModule as { default?: unknown } | null)?.default,
    (sdkModule as Record<string, unknown> | null)?.[namedExport],
    ((sdkModule as { default?: unknown } | null)?.default as Record<string, unknown> | undefined)?.[namedExport],
  ];
  const found = candidates.find((candidate) => typeof candidate === 'function');
  if (found === undefined) {
    throw new MissingDependencyError(`${packageName} was loaded but exports no ${namedExport} client class; install a supported version: \`npm install ${packageName}\``);
  }
  return found as new (options: Record<string, unknown>) => T;
}

/** What a client factory needs to construct an SDK client itself. */
export interface SdkClientSettings {
  /** Key of the constructed client; the SDK's own default when absent. */
  apiKey?: string | undefined;
  /** Base URL of the constructed client; the SDK's own default when absent. */
  baseURL?: string | undefined;
  /** The SDK's own retries; 0 when absent, so compaction's retry is the only policy. */
  maxRetries?: number | undefined;
}

/**
 * Imports an optional SDK and constructs its client from the settings given, with the SDK's
 * retries off unless told otherwise. Shared by the Anthropic and OpenAI factories.
 */
export async function constructSdkClient<T>(
  sdk: { packageName: string; className: string; importer: SdkImporter; purpose: string },
  settings: SdkClientSettings,
): Promise<T> {
  const sdkModule = await importOptionalPeer(sdk.packageName, sdk.importer, sdk.purpose);
  const Client = pickSdkConstructor<T>(sdkModule, sdk.className, sdk.packageName);
  const options: Record<string, unknown> = { maxRetries: settings.maxRetries ?? 0 };
  if (settings.apiKey !== undefined) options.apiKey = settings.apiKey;
  if (settings.baseURL !== undefined) options.baseURL = settings.baseURL;
  return new Client(options);
}

/** Checks `maxRetries` (an integer >= 0) when given. */
export function checkMaxRetries(value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
    throw new InvalidOptionError(`maxRetries must be an integer >= 0, got ${describeValue(value)}`);
  }
}

/** Checks a client's default `model` (a non-empty string) when given. */
export function checkModel(value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
    throw new InvalidOptionError(`model must be a non-empty string, got ${describeValue(value)}`);
  }
}

/** Rejects settings for a client we would construct when the caller passed their own client. */
export function checkNoSettingsWithClient(options: { client?: unknown; apiKey?: unknown; baseURL?: unknown; maxRetries?: unknown }): void {
  if (options.client === undefined) return;
  const given = (['apiKey', 'baseURL', 'maxRetries'] as const).filter((name) => options[name] !== undefined);
  if (given.length > 0) {
    throw new InvalidOptionError(
      `${given.join(', ')} configure${given.length === 1 ? 's' : ''} the client this function constructs and cannot be combined with client; configure the client you pass instead`,
    );
  }
}

/**
 * Milliseconds a response's headers ask to wait: `retry-after-ms` (milliseconds), else
 * `retry-after` (seconds, or an HTTP date). `undefined` when neither holds a usable value.
 * Accepts a fetch `Headers` object or a plain record (older SDK versions).
 */
export function readRetryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
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
export function toClientError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted === true) return signal.reason;
  if (typeof error !== 'object' || error === null) return error;
  const retryAfterMs = readRetryAfterMs((error as { headers?: unknown }).headers);
  if (retryAfterMs === undefined) return error;
  try {
    Object.defineProperty(error, 'retryAfterMs', { value: retryAfterMs, enumerable: true, configurable: true, writable: true });
    return error;
  } catch {
    const message = error instanceof Error ? error.message : String(error);
    return Object.assign(new Error(message, { cause: error }), { retryAfterMs });
  }
}
