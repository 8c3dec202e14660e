/**
 * What the S3 store needs of `@aws-sdk/client-s3`, by structure only (the package root must load
 * without the SDK): the client's shape, the SDK loaded on first use with the store's timeouts,
 * and the SDK's errors told apart by status and name.
 */
import { importOptionalPeer, MissingDependencyError } from '../core/errors.js';

/**
 * The part of the SDK's `S3Client` this store uses: `send(command)`. An `S3Client` from
 * `@aws-sdk/client-s3` fits, with its middleware, retries and credentials as you configured
 * them; so does any object with this method (a proxy, a test double).
 */
export interface S3ClientLike {
  /** Sends a command built from the SDK's command classes; resolves to its output. */
  send(command: object): Promise<unknown>;
}

/**
 * Settings of the `S3Client` the store constructs when it is given no `client`: the SDK's own
 * `S3ClientConfig`, passed through as is. The usual ones are listed; any other field of
 * `S3ClientConfig` (`maxAttempts`, `requestHandler`, ...) is passed on too. Without a
 * `requestHandler`, the store gives the client one with timeouts
 * ({@link S3_CONNECT_TIMEOUT_MS}, {@link S3_SOCKET_TIMEOUT_MS}): the SDK's own default waits
 * forever on a server that accepts the connection and never answers.
 */
export interface S3StoreClientConfig {
  /** AWS region. @default the SDK's: env `AWS_REGION`, then the shared config files */
  region?: string;
  /** Endpoint of an S3-compatible server (MinIO, R2, a test server). @default AWS's for the region */
  endpoint?: string;
  /** Access keys. @default the SDK's default credential chain (env, files, instance role) */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; most S3-compatible servers need it. @default false */
  forcePathStyle?: boolean;
  /** Any other `S3ClientConfig` field. */
  [option: string]: unknown;
}

const S3_PACKAGE_NAME = '@aws-sdk/client-s3';

/** How long the client made from `config` waits for a connection, per attempt. */
const S3_CONNECT_TIMEOUT_MS = 5_000;

/**
 * How long the client made from `config` lets a connection sit silent, per attempt (the SDK
 * retries up to `maxAttempts`, 3 by default): an idle limit, not a deadline, so a large object
 * that keeps arriving is never cut.
 */
export const S3_SOCKET_TIMEOUT_MS = 10_000;

type CommandClass = new (input: Record<string, unknown>) => object;

/** The part of the SDK module the store uses. */
export interface S3Sdk {
  S3Client: new (config: Record<string, unknown>) => S3ClientLike;
  PutObjectCommand: CommandClass;
  GetObjectCommand: CommandClass;
  HeadObjectCommand: CommandClass;
  ListObjectsV2Command: CommandClass;
  DeleteObjectCommand: CommandClass;
}

/**
 * `config` with a `requestHandler` holding the store's timeouts, unless it has its own. Given as
 * the handler's options (an object the SDK turns into its Node handler, as SDK 3.521 and later
 * do), so the package imports nothing of the SDK's internals.
 */
export function withTimeouts(config: S3StoreClientConfig | undefined): S3StoreClientConfig {
  if (config?.requestHandler !== undefined) return { ...config };
  return {
    ...config,
    requestHandler: { connectionTimeout: S3_CONNECT_TIMEOUT_MS, socketTimeout: S3_SOCKET_TIMEOUT_MS },
  };
}

/** The body of a `GetObject` output, as the SDK's stream mixin gives it in Node. */
interface S3BodyLike {
  transformToByteArray(): Promise<Uint8Array>;
  destroy?(): void;
}

export interface GetObjectOutputLike {
  Body?: S3BodyLike;
  ContentLength?: number;
  ContentRange?: string;
}

export interface HeadObjectOutputLike {
  ContentLength?: number;
  LastModified?: Date;
}

export interface ListObjectsV2OutputLike {
  Contents?: ReadonlyArray<{ Key?: string }>;
  IsTruncated?: boolean;
  NextContinuationToken?: string;
}

const SDK_EXPORTS = [
  'S3Client',
  'PutObjectCommand',
  'GetObjectCommand',
  'HeadObjectCommand',
  'ListObjectsV2Command',
  'DeleteObjectCommand',
] as const;

export async function loadSdk(): Promise<S3Sdk> {
  const sdkModule = await importOptionalPeer(S3_PACKAGE_NAME, () => import('@aws-sdk/client-s3'), 'The S3 store');
  // ESM named exports, or a CommonJS module under `default`
  const candidates = [sdkModule, (sdkModule as { default?: unknown } | null)?.default] as Array<
    Record<string, unknown> | null | undefined
  >;
  const found = candidates.find((candidate) => SDK_EXPORTS.every((name) => typeof candidate?.[name] === 'function'));
  if (found === undefined) {
    throw new MissingDependencyError(
      `${S3_PACKAGE_NAME} was loaded but lacks ${SDK_EXPORTS.join(', ')}; install a supported version: \`npm install ${S3_PACKAGE_NAME}@3\``,
    );
  }
  return found as unknown as S3Sdk;
}

export async function readBody(output: GetObjectOutputLike): Promise<Uint8Array> {
  return output.Body === undefined ? new Uint8Array(0) : await output.Body.transformToByteArray();
}

export function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

/** First byte of a `Content-Range: bytes <first>-<last>/<size>` header; `fallback` without one. */
export function parseRangeStart(contentRange: string | undefined, fallback: number): number {
  const match = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(contentRange?.trim() ?? '');
  return match === null ? (contentRange === undefined ? 0 : fallback) : Number(match[1]);
}

export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function errorNameOf(error: unknown): string | undefined {
  const fields = error as { name?: unknown; Code?: unknown } | null;
  if (typeof fields?.Code === 'string') return fields.Code;
  return typeof fields?.name === 'string' ? fields.name : undefined;
}

/** A 404 for the object (`NoSuchKey`; `NotFound` from `HeadObject`, which has no body), not for the bucket. */
export function isMissingObject(error: unknown): boolean {
  const name = errorNameOf(error);
  if (name === 'NoSuchKey' || name === 'NotFound') return true;
  return httpStatusOf(error) === 404 && name !== 'NoSuchBucket';
}

/** `412 Precondition Failed`: `If-None-Match: *` found an object under the key. */
export function isPreconditionFailed(error: unknown): boolean {
  return httpStatusOf(error) === 412 || errorNameOf(error) === 'PreconditionFailed';
}

/** `409 ConditionalRequestConflict`: another operation on the key was in flight; AWS says to retry. */
export function isConditionalConflict(error: unknown): boolean {
  return (
    errorNameOf(error) === 'ConditionalRequestConflict' ||
    (httpStatusOf(error) === 409 && errorNameOf(error) !== 'NoSuchBucket')
  );
}

/** `416 Range Not Satisfiable` (`InvalidRange`). */
export function isRangeNotSatisfiable(error: unknown): boolean {
  return httpStatusOf(error) === 416 || errorNameOf(error) === 'InvalidRange';
}

export function describeSdkError(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : `${error.name}: ${error.message}`;
  return String(error);
}
