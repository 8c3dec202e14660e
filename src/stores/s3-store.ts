/**
 * A {@link ContentStore} on Amazon S3 (or any server speaking its protocol), through
 * `@aws-sdk/client-s3`, an optional peer dependency imported on first use. Only structural
 * types name the SDK here: the package root must load without it.
 *
 * The SDK's shape, loading and error kinds are in s3-sdk.ts; this file is the store's behaviour.
 */
import {
  describeValue,
  InvalidOptionError,
  MissingDependencyError,
  ReadFailedError,
  WriteFailedError,
} from '../core/errors.js';
import type { ByteRange, ContentStore, Logger, PutOutcome, StoredEntry } from '../core/ports.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  findStoreKeyProblem,
  resolveByteRange,
} from '../core/store/store-keys.js';
import { joinParts } from '../core/text/text.js';
import { decodeUtf8Range } from '../core/text/utf8.js';
import {
  describeSdkError,
  httpStatusOf,
  equalBytes,
  isConditionalConflict,
  isMissingObject,
  isPreconditionFailed,
  isRangeNotSatisfiable,
  loadSdk,
  parseRangeStart,
  readBody,
  withTimeouts,
  type GetObjectOutputLike,
  type HeadObjectOutputLike,
  type ListObjectsV2OutputLike,
  type S3ClientLike,
  type S3Sdk,
  type S3StoreClientConfig,
} from './s3-sdk.js';

export type { S3ClientLike, S3StoreClientConfig } from './s3-sdk.js';
export { S3_SOCKET_TIMEOUT_MS } from './s3-sdk.js';

/** Options of {@link createS3Store}. */
export interface S3StoreOptions {
  /**
   * Your `S3Client` (or anything with its `send`). Cannot be combined with `config`. Its own
   * settings decide how long a request to a silent server waits (the SDK's default handler
   * has no timeout: give it a `requestHandler` with `connectionTimeout` and `socketTimeout`).
   * @default an `S3Client` constructed from `config` on first use
   */
  client?: S3ClientLike;
  /**
   * Settings of the `S3Client` the store constructs on first use when no `client` is given.
   * @default `{}`: the SDK resolves region and credentials from the environment
   */
  config?: S3StoreClientConfig;
  /** The bucket, which must exist; the store never creates it. */
  bucket: string;
  /**
   * Key prefix of every object the store writes, reads, lists and deletes (`''` for the bucket
   * root). A trailing `/` is optional. Keeping the default means pruning can never reach objects
   * this package did not write.
   * @default {@link DEFAULT_S3_STORE_PREFIX} (`'agent-context-offload'`)
   */
  prefix?: string;
  /**
   * Where a retried conditional write is reported (S3 answered `409 ConditionalRequestConflict`).
   * @default `console.warn`
   */
  logger?: Logger;
}

/** A {@link ContentStore} over an S3 bucket, from {@link createS3Store}. */
export interface S3Store extends ContentStore {
  readonly kind: 's3';
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix, without a trailing `/` (`''` for the bucket root). */
  readonly prefix: string;
  holds(key: string, content: string): Promise<boolean>;
  /**
   * Releases the `S3Client` the store constructed from `config` (its sockets); a later call
   * constructs a new one. Does nothing for a `client` you passed, which stays yours.
   */
  close(): Promise<void>;
}

/** The key prefix a store uses unless {@link S3StoreOptions.prefix} says otherwise. */
export const DEFAULT_S3_STORE_PREFIX = 'agent-context-offload';

/**
 * Conditional puts tried per `putIfAbsent` when S3 answers `409 ConditionalRequestConflict`
 * (a conflicting operation was in flight on the key), or when the object behind a `412` was
 * deleted before it could be read.
 */
const MAX_CONDITIONAL_PUT_ATTEMPTS = 3;

/** Pause before retrying a conflicted conditional put, times the attempt number. */
const CONFLICT_RETRY_DELAY_MS = 25;

const encoder = new TextEncoder();
// ignoreBOM: a value starting with U+FEFF keeps it (the default decoder would drop it)
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Creates a {@link ContentStore} on an S3 bucket, under `prefix`. `kind` is `'s3'`; references
 * are `s3://<bucket>/<prefix>/<key>`.
 *
 * - `putIfAbsent`: `PutObject` with `If-None-Match: *`. S3 answers `412 Precondition Failed`
 *   when an object is there; the store then reads it (`GetObject`) and compares bytes:
 *   `'identical'` or `'exists'`. A `409 ConditionalRequestConflict` (a conflicting write or
 *   delete was in flight) is retried, as AWS documents, up to 3 attempts. Content given as parts
 *   is joined first: a `PutObject` needs its length up front.
 * - `put`: an unconditional `PutObject`. `get`: `GetObject`, with a `Range` header for a byte
 *   range. `stat`: `HeadObject`. `list`: `ListObjectsV2`, every page. `delete`: `DeleteObject`.
 *   `holds`: `HeadObject` for the size, then `GetObject` only when the size matches.
 *
 * Keys are checked before any request. The SDK is imported on the first operation, not here;
 * the commands always come from it, also with your own `client`.
 *
 * Write-once holds where the server honours `If-None-Match: *` on `PutObject`, as AWS S3
 * documents it; check an S3-compatible server before relying on it (s3rver, for one, ignores the
 * header and overwrites). A server that answers `501 Not Implemented` fails the put with
 * `WRITE_FAILED` saying so; one that ignores the header silently loses write-once.
 *
 * @throws {InvalidOptionError} for a missing or empty `bucket`, a bad `prefix`, `client` without
 *   `send`, or both `client` and `config`.
 * @throws {MissingDependencyError} (rejected by the first operation) when `@aws-sdk/client-s3`
 *   is not installed.
 * @throws {WriteFailedError} (rejected by `putIfAbsent`, `put`, `delete`) and
 *   {@link ReadFailedError} (by `get`, `stat`, `list`, `holds`) with the SDK's error as `cause`.
 * @throws {UnsafePathError} for a key that is not a store key, before any request.
 *
 * @example
 * ```ts
 * import { S3Client } from '@aws-sdk/client-s3';
 * const store = createS3Store({ client: new S3Client({ region: 'eu-west-1' }), bucket: 'agent-data', prefix: 'offload' });
 * await offloadToolResults(messages, { store });
 * ```
 */
export function createS3Store(options: S3StoreOptions): S3Store {
  const settings = checkOptions(options);
  const { bucket, prefix, objectPrefix, referencePrefix } = settings;
  const logger = options.logger ?? consoleLogger;
  let loading: Promise<{ sdk: S3Sdk; client: S3ClientLike }> | undefined;

  // The SDK is loaded on the first call; a failed import is retried by the next one.
  function connect(): Promise<{ sdk: S3Sdk; client: S3ClientLike }> {
    if (loading === undefined) {
      loading = loadSdk().then((sdk) => ({
        sdk,
        client: options.client ?? new sdk.S3Client(withTimeouts(options.config)),
      }));
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  }

  const objectKey = (key: string): string => objectPrefix + key;
  const describeKey = (key: string): string => `${referencePrefix}${key}`;

  async function send<T>(build: (sdk: S3Sdk) => object): Promise<T> {
    const { sdk, client } = await connect();
    return (await client.send(build(sdk))) as T;
  }

  /** The object's bytes, or `undefined` when there is none. Throws the SDK's error. */
  async function readBytes(key: string): Promise<Uint8Array | undefined> {
    try {
      const output = await send<GetObjectOutputLike>(
        (sdk) => new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }),
      );
      return await readBody(output);
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  /** Whether the object holds exactly `expected`; `undefined` when there is none. Reads the body only when the size matches. */
  async function compareWith(key: string, expected: Uint8Array): Promise<boolean | undefined> {
    let output: GetObjectOutputLike;
    try {
      output = await send<GetObjectOutputLike>(
        (sdk) => new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }),
      );
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
    if (output.ContentLength !== undefined && output.ContentLength !== expected.length) {
      output.Body?.destroy?.();
      return false;
    }
    return equalBytes(await readBody(output), expected);
  }

  return {
    kind: 's3',
    bucket,
    prefix,

    async putIfAbsent(key, content): Promise<PutOutcome> {
      assertStoreKey('key', key);
      // S3 needs the length before the body: parts are joined (and a throwing generator rejects before any request).
      const text = joinParts(content);
      const bytes = encoder.encode(text);
      let lastError: unknown;
      for (let attempt = 1; attempt <= MAX_CONDITIONAL_PUT_ATTEMPTS; attempt += 1) {
        try {
          await send(
            (sdk) =>
              new sdk.PutObjectCommand({
                Bucket: bucket,
                Key: objectKey(key),
                Body: bytes,
                IfNoneMatch: '*',
                ContentType: 'text/plain; charset=utf-8',
              }),
          );
          return 'created';
        } catch (error) {
          if (error instanceof MissingDependencyError) throw error;
          if (isConditionalConflict(error)) {
            lastError = error;
            if (attempt < MAX_CONDITIONAL_PUT_ATTEMPTS) {
              logger.warn(
                `s3 store: conditional put of ${describeKey(key)} conflicted with another operation (409), retrying (attempt ${attempt + 1} of ${MAX_CONDITIONAL_PUT_ATTEMPTS})`,
              );
              await delay(CONFLICT_RETRY_DELAY_MS * attempt);
            }
            continue;
          }
          if (!isPreconditionFailed(error)) {
            const hint =
              httpStatusOf(error) === 501
                ? ' (the server does not implement conditional writes, If-None-Match on PutObject, which write-once needs)'
                : '';
            throw new WriteFailedError(
              `s3 store: could not write ${describeKey(key)}: ${describeSdkError(error)}${hint}`,
              { cause: error },
            );
          }
          lastError = error;
        }
        let same: boolean | undefined;
        try {
          same = await compareWith(key, bytes);
        } catch (error) {
          throw new WriteFailedError(
            `s3 store: ${describeKey(key)} exists, but reading it to compare failed: ${describeSdkError(error)}`,
            { cause: error },
          );
        }
        if (same !== undefined) return same ? 'identical' : 'exists';
        // deleted between the 412 and the read: the key is free again, try again
        logger.warn(
          `s3 store: ${describeKey(key)} was deleted while a conditional put compared it, retrying (attempt ${attempt + 1} of ${MAX_CONDITIONAL_PUT_ATTEMPTS})`,
        );
      }
      throw new WriteFailedError(
        `s3 store: could not write ${describeKey(key)} after ${MAX_CONDITIONAL_PUT_ATTEMPTS} conditional puts: ${describeSdkError(lastError)}`,
        { cause: lastError },
      );
    },

    async put(key, content) {
      assertStoreKey('key', key);
      try {
        await send(
          (sdk) =>
            new sdk.PutObjectCommand({
              Bucket: bucket,
              Key: objectKey(key),
              Body: encoder.encode(content),
              ContentType: 'text/plain; charset=utf-8',
            }),
        );
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        throw new WriteFailedError(`s3 store: could not write ${describeKey(key)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
    },

    async get(key, range?: ByteRange) {
      assertStoreKey('key', key);
      const { offset, length } = resolveByteRange(range);
      try {
        if (length === 0) {
          const head = await headObject(key);
          return head === undefined ? undefined : '';
        }
        if (offset === 0 && length === undefined) {
          const bytes = await readBytes(key);
          return bytes === undefined ? undefined : decoder.decode(bytes);
        }
        return await readRange(key, offset, length);
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        throw new ReadFailedError(`s3 store: could not read ${describeKey(key)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
    },

    async stat(key): Promise<StoredEntry | undefined> {
      assertStoreKey('key', key);
      let head: HeadObjectOutputLike | undefined;
      try {
        head = await headObject(key);
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        throw new ReadFailedError(`s3 store: could not stat ${describeKey(key)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
      if (head === undefined) return undefined;
      return { size: head.ContentLength ?? 0, createdAt: head.LastModified ?? new Date(Number.NaN) };
    },

    list(listPrefix) {
      // checked on the call, not on the first iteration: the port's callers expect a refusal up front
      assertStoreKeyPrefix('prefix', listPrefix);
      return listKeys(listPrefix);
    },

    async delete(key) {
      assertStoreKey('key', key);
      try {
        await send((sdk) => new sdk.DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        if (isMissingObject(error)) return;
        throw new WriteFailedError(`s3 store: could not delete ${describeKey(key)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
    },

    referenceFor(key) {
      return describeKey(assertStoreKey('key', key));
    },

    keyFor(reference) {
      if (typeof reference !== 'string' || !reference.startsWith(referencePrefix)) return undefined;
      const key = reference.slice(referencePrefix.length);
      return findStoreKeyProblem(key) === undefined ? key : undefined;
    },

    async holds(key, content) {
      assertStoreKey('key', key);
      const expected = encoder.encode(content);
      try {
        const head = await headObject(key);
        if (head === undefined || (head.ContentLength !== undefined && head.ContentLength !== expected.length))
          return false;
        return (await compareWith(key, expected)) === true;
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        throw new ReadFailedError(`s3 store: could not read ${describeKey(key)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
    },

    async close() {
      const current = loading;
      loading = undefined;
      if (options.client !== undefined || current === undefined) return;
      const constructed = await current.catch(() => undefined);
      (constructed?.client as { destroy?: () => void } | undefined)?.destroy?.();
    },
  };

  async function headObject(key: string): Promise<HeadObjectOutputLike | undefined> {
    try {
      return await send<HeadObjectOutputLike>(
        (sdk) => new sdk.HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }),
      );
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  async function readRange(key: string, offset: number, length: number | undefined): Promise<string | undefined> {
    const last = length === undefined ? '' : String(offset + length - 1);
    let output: GetObjectOutputLike;
    try {
      output = await send<GetObjectOutputLike>(
        (sdk) => new sdk.GetObjectCommand({ Bucket: bucket, Key: objectKey(key), Range: `bytes=${offset}-${last}` }),
      );
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      // 416: the object is there but starts no byte at `offset` (past its end, or empty)
      if (isRangeNotSatisfiable(error)) return '';
      throw error;
    }
    const bytes = await readBody(output);
    // A server may send more than asked (the whole object with 200, or a wider range): cut to the range asked.
    const start = offset - parseRangeStart(output.ContentRange, offset);
    const end = length === undefined ? bytes.length : Math.min(bytes.length, start + length);
    return decodeUtf8Range(bytes.subarray(Math.max(0, start), Math.max(0, end)));
  }

  async function* listKeys(listPrefix: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2OutputLike;
      try {
        const input: Record<string, unknown> = { Bucket: bucket, Prefix: objectPrefix + listPrefix };
        if (token !== undefined) input.ContinuationToken = token;
        page = await send<ListObjectsV2OutputLike>((sdk) => new sdk.ListObjectsV2Command(input));
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        throw new ReadFailedError(`s3 store: could not list ${describeKey(listPrefix)}: ${describeSdkError(error)}`, {
          cause: error,
        });
      }
      for (const entry of page.Contents ?? []) {
        const name = entry.Key;
        if (name === undefined || !name.startsWith(objectPrefix)) continue;
        const key = name.slice(objectPrefix.length);
        // an object this package could not have written (`a//b`, a folder marker `a/`) is no key of the store
        if (findStoreKeyProblem(key) === undefined) yield key;
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }
}

function checkOptions(options: S3StoreOptions): {
  bucket: string;
  prefix: string;
  objectPrefix: string;
  referencePrefix: string;
} {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionError(`createS3Store options must be an object, got ${describeValue(options)}`);
  const { bucket, client, config } = options;
  if (typeof bucket !== 'string' || bucket.trim() === '' || bucket.includes('/')) {
    throw new InvalidOptionError(`bucket must be a non-empty bucket name without "/", got ${describeValue(bucket)}`);
  }
  if (client !== undefined && typeof (client as Partial<S3ClientLike> | null)?.send !== 'function') {
    throw new InvalidOptionError(
      `client must be an S3Client (an object with a send method), got ${describeValue(client)}`,
    );
  }
  if (client !== undefined && config !== undefined) {
    throw new InvalidOptionError(
      'config configures the S3Client this store constructs and cannot be combined with client; configure the client you pass instead',
    );
  }
  if (config !== undefined && (typeof config !== 'object' || config === null)) {
    throw new InvalidOptionError(`config must be an object (S3ClientConfig), got ${describeValue(config)}`);
  }
  const given: unknown = options.prefix ?? DEFAULT_S3_STORE_PREFIX;
  const prefix = typeof given === 'string' && given.length > 1 && given.endsWith('/') ? given.slice(0, -1) : given;
  const problem = prefix === '' ? undefined : findStoreKeyProblem(prefix);
  if (problem !== undefined) throw new InvalidOptionError(`prefix ${problem}, got ${describeValue(given)}`);
  const objectPrefix = prefix === '' ? '' : `${prefix as string}/`;
  return { bucket, prefix: prefix as string, objectPrefix, referencePrefix: `s3://${bucket}/${objectPrefix}` };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
