/**
 * The Redis driver of the {@link ContentStore} port: one Redis string per entry, write-once in
 * one round trip with `SET key value NX GET` (Redis >= 7.0), an optional expiry, range reads
 * with `GETRANGE`, listing with `SCAN`.
 *
 * Layout: the entry `<key>` of a store with prefix `<prefix>` is the Redis key
 * `<prefix>/<key>`, so the reference `redis://<prefix>/<key>` names the Redis key as it is. Its
 * value is a 36-byte header, `created-at=<ISO 8601 time>\n`, then the content as UTF-8: Redis
 * keeps no creation time, and pruning needs one. Written in the same `SET` as the content, the
 * header costs no round trip, needs no second key (so no Lua, no `MULTI`, nothing to keep in
 * step, nothing to filter out of a listing, and it works on a Redis Cluster), and expires with
 * the entry. The price: a value read outside this package (`redis-cli GET`) starts with that
 * line, and a value written under the prefix by other means is not one of this store's (whole
 * reads and `stat` reject it as `READ_FAILED`).
 */
import { describeValue, InvalidOptionError, ReadFailedError, WriteFailedError } from '../core/errors.js';
import type { ByteRange, ContentStore, Logger, PutOutcome, StoredEntry } from '../core/ports.js';
import {
  assertStoreKey,
  assertStoreKeyPrefix,
  findStoreKeyProblem,
  resolveByteRange,
} from '../core/store/store-keys.js';
import { joinParts, toWellFormedText } from '../core/text/text.js';
import { countUtf8Bytes, decodeUtf8Range } from '../core/text/utf8.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { createUrlConnection, useCallerClient, type RedisLike } from './redis-connection.js';

export { REDIS_CONNECT_TIMEOUT_MS, type RedisLike } from './redis-connection.js';

/** Options of {@link createRedisStore}: exactly one of `client` and `url`, and a `prefix`. */
export interface RedisStoreOptions {
  /**
   * A client you own (ioredis, or any {@link RedisLike}). Its own settings decide how long a
   * command to an unreachable or silent server waits (ioredis' defaults queue commands while it
   * reconnects, up to `maxRetriesPerRequest` (20) reconnections, and set no `commandTimeout`:
   * set one); the store never closes it.
   */
  client?: RedisLike | undefined;
  /**
   * A Redis URL (`redis://user:password@host:6379/0`, `rediss://` for TLS): the store creates an
   * ioredis client on first use (ioredis is an optional peer dependency: `npm install ioredis`),
   * connects within {@link REDIS_CONNECT_TIMEOUT_MS} (5 s, the server's first reply included),
   * waits at most 10 s for the reply to a command, sends no
   * command while disconnected (an unreachable server fails each call at once rather than
   * queueing it) and gives up reconnecting after a few tries (the next call connects again).
   * Call `close()` when done: an open connection keeps Node running.
   */
  url?: string | undefined;
  /**
   * The first segment(s) of every Redis key of this store: `<prefix>/<key>`. A store key
   * itself (`offload`, `app/offload`): no leading or trailing `/`, no `..`. Stores with other
   * prefixes never see each other's entries, unless one prefix is under the other
   * (`app` lists `app/offload/...` too).
   */
  prefix: string;
  /**
   * When given, every entry expires this many seconds after it was written (`SET ... EX`).
   * Reusing identical content does not extend it. A positive integer.
   * @default undefined (entries never expire)
   */
  ttlSeconds?: number | undefined;
  /**
   * Where the store warns: a server whose `maxmemory-policy` may evict its entries (asked once,
   * with `CONFIG GET`, where the server allows it), and a key under the prefix that this store
   * did not write (`stat` skips it, and so does pruning).
   * @default `console.warn`
   */
  logger?: Logger | undefined;
}

/** A {@link ContentStore} over Redis, from {@link createRedisStore}. */
export interface RedisStore extends ContentStore {
  readonly kind: 'redis';
  /** The key prefix. */
  readonly prefix: string;
  /** Whether `key` holds exactly `content`: `STRLEN` first, the value read only when the sizes match. */
  holds(key: string, content: string): Promise<boolean>;
  /** Whether anything (a value of any type, this store's or not) is at `key`: one `EXISTS`. */
  exists(key: string): Promise<boolean>;
  /**
   * Closes the client the store created from `url` (waiting for pending replies); does nothing
   * for a `client` you passed, which stays yours to close.
   */
  close(): Promise<void>;
}

/** Keys asked of the server per `SCAN` step (a hint: Redis may return more or fewer). */
const REDIS_SCAN_COUNT = 1_000;

const HEADER_NAME = 'created-at=';
/** `created-at=` + a 24-character ISO time (years 0000-9999) + `\n`: one byte per character. */
const HEADER_BYTES = HEADER_NAME.length + 24 + 1;

/** The range script: `GETRANGE`, cut to whole UTF-8 characters on the server; nil when the key is missing. */
const RANGE_SCRIPT = `
local value = redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[2])
local size = #value
if size == 0 then
  if redis.call('EXISTS', KEYS[1]) == 0 then return false end
  return ''
end
local first = 1
while first <= size and first <= 3 do
  local byte = string.byte(value, first)
  if byte < 128 or byte >= 192 then break end
  first = first + 1
end
local last = size
local index = size
while index >= first and index >= size - 2 do
  local byte = string.byte(value, index)
  if byte < 128 or byte >= 192 then
    local length = 1
    if byte >= 240 then length = 4 elseif byte >= 224 then length = 3 elseif byte >= 192 then length = 2 end
    if index + length - 1 > size then last = index - 1 end
    break
  end
  index = index - 1
end
return string.sub(value, first, last)
`;

/** The start of the error Redis replies for a command on a key of another type (a list, a hash, ...). */
const WRONG_TYPE = 'WRONGTYPE';
/** The start of the error Redis replies for a write when it is full (`maxmemory`, `noeviction`). */
const OUT_OF_MEMORY = 'OOM';

/**
 * Creates a {@link ContentStore} over Redis (>= 7.0). Guarantees:
 * - `putIfAbsent` is one atomic `SET <prefix>/<key> <value> NX GET [EX ttlSeconds]`: of any
 *   number of concurrent writers (threads, processes, machines) exactly one creates the value,
 *   the others learn from the same reply whether theirs was identical; a value is never
 *   replaced and never seen half-written. Parts are joined first (a Redis value is whole).
 *   A key of another type (a list, a hash) is a taken name: `'exists'`. On a full server
 *   (`OOM`, which `SET NX GET` gets even when it would write nothing) the value is read and
 *   compared: `'identical'` content needs no memory.
 * - `exists` is `EXISTS`: batch offload probes a reused id's numbered names with it, so finding
 *   a free name never walks the keyspace (`SCAN` does, even with `MATCH`).
 * - `put` is one `SET` (with `EX`): atomic, last writer wins.
 * - `get` is `GET`, or with a range `GETRANGE` on the UTF-8 bytes, a character cut by an edge
 *   left out; `stat` gives the size (`STRLEN`) and the time from the value's header;
 *   `list` walks `SCAN ... MATCH` (the prefix's glob characters escaped), never `KEYS`;
 *   `delete` is `DEL`; `holds` compares sizes (`STRLEN`) before it reads anything.
 * - A key under the prefix that this store did not write (another type, or a string without
 *   the header) is not an entry: `stat` answers `undefined` with a warning, so pruning skips
 *   it; `get` rejects with `READ_FAILED`; `holds` is false.
 * - On first use, `CONFIG GET maxmemory-policy` (where the server allows `CONFIG`): a policy
 *   that may evict this store's entries (`allkeys-*`; `volatile-*` with `ttlSeconds`) is
 *   warned about once, since an evicted entry leaves its references reading nothing.
 * - Every key is checked (`assertStoreKey`) before any command; failures reject with
 *   `WRITE_FAILED` (writes, deletes) or `READ_FAILED` (reads, listing), the client's error as `cause`.
 *
 * @throws {@link InvalidOptionError} (`INVALID_OPTION`) at once for options out of range: both
 * or neither of `client` and `url`, a client without `call`, a bad `prefix` or `ttlSeconds`.
 * Its methods reject with {@link MissingDependencyError} (`MISSING_DEPENDENCY`) when `url` is
 * given and ioredis is not installed.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const store = createRedisStore({ client: new Redis(process.env.REDIS_URL!), prefix: 'offload', ttlSeconds: 7 * 86_400 });
 * const { messages: smaller } = await offloadToolResults(messages, { store });
 * // references read `[Content offloaded to: redis://offload/tool-result-toolu_01.md]`
 * ```
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { client, url, prefix, ttlSeconds } = checkOptions(options);
  const logger = options.logger ?? consoleLogger;
  const connection = client !== undefined ? useCallerClient(client) : createUrlConnection(url!);
  const referenceBase = `redis://${prefix}/`;
  const expiry: Array<string | number> = ttlSeconds === undefined ? [] : ['EX', ttlSeconds];

  const redisKey = (label: string, key: string): string => `${prefix}/${assertStoreKey(label, key)}`;
  let evictionChecked = false;
  const checkEviction = (redis: RedisLike): RedisLike => {
    if (!evictionChecked) {
      evictionChecked = true;
      void warnOfEviction(redis, referenceBase, ttlSeconds, logger);
    }
    return redis;
  };
  // the client at once when there is one (no extra await on the hot path), else connecting
  const clientFor = (failure: typeof WriteFailedError | typeof ReadFailedError): RedisLike | Promise<RedisLike> => {
    const current = connection.current();
    return current !== undefined ? checkEviction(current) : connection.connect(failure).then(checkEviction);
  };
  /** What a full server's failed write found: the value at `target` compared with `text`; `undefined` when none. */
  const compareStored = async (redis: RedisLike, target: string, text: string): Promise<PutOutcome | undefined> => {
    const value = await redis.call('GET', target);
    if (value === null || value === undefined) return undefined;
    return contentOf(value) === toWellFormedText(text) ? 'identical' : 'exists';
  };
  const writeFailed = (action: string, key: string, error: unknown): WriteFailedError =>
    new WriteFailedError(`Redis store could not ${action} ${referenceBase}${key}: ${describeFailure(error)}`, {
      cause: error,
    });

  async function read<T>(what: string, run: (redis: RedisLike) => Promise<T>): Promise<T> {
    const redis = await clientFor(ReadFailedError);
    try {
      return await run(redis);
    } catch (error) {
      throw new ReadFailedError(`Redis store could not read ${what}: ${describeFailure(error)}`, { cause: error });
    }
  }

  return {
    kind: 'redis',
    prefix,

    async putIfAbsent(key: string, content: string | Iterable<string>): Promise<PutOutcome> {
      const target = redisKey('key', key);
      const text = joinParts(content);
      const redis = await clientFor(WriteFailedError);
      let previous: unknown;
      try {
        previous = await redis.call('SET', target, withHeader(text), 'NX', 'GET', ...expiry);
      } catch (error) {
        // a foreign key of another type holds the name: taken, like any other content
        if (isRedisError(error, WRONG_TYPE)) return 'exists';
        const outcome = isRedisError(error, OUT_OF_MEMORY)
          ? await compareStored(redis, target, text).catch(() => undefined)
          : undefined;
        if (outcome !== undefined) return outcome;
        throw writeFailed('write', key, error);
      }
      if (previous === null || previous === undefined) return 'created';
      // (a resend after a reconnect may find our own value: identical, which is true)
      return contentOf(previous) === toWellFormedText(text) ? 'identical' : 'exists';
    },

    async put(key: string, content: string): Promise<void> {
      const target = redisKey('key', key);
      const redis = await clientFor(WriteFailedError);
      try {
        await redis.call('SET', target, withHeader(content), ...expiry);
      } catch (error) {
        throw writeFailed('write', key, error);
      }
    },

    async get(key: string, range?: ByteRange): Promise<string | undefined> {
      const target = redisKey('key', key);
      if (range === undefined) {
        return read(`${referenceBase}${key}`, async (redis) => {
          const value = await redis.call('GET', target);
          if (value === null || value === undefined) return undefined;
          const text = contentOf(value);
          if (text === undefined) throw notOurs(key);
          return text;
        });
      }
      const { offset, length } = resolveByteRange(range);
      return read(`${referenceBase}${key}`, async (redis) => {
        if (length === 0) return (await redis.call('EXISTS', target)) === 0 ? undefined : '';
        const start = HEADER_BYTES + offset;
        const end = length === undefined ? -1 : start + length - 1;
        if (redis.callBuffer === undefined) {
          const text = await redis.call('EVAL', RANGE_SCRIPT, 1, target, start, end);
          return text === null || text === undefined ? undefined : toText(text);
        }
        const bytes = await redis.callBuffer('GETRANGE', target, start, end);
        if (!(bytes instanceof Uint8Array)) throw new Error(`GETRANGE replied ${describeValue(bytes)}, not bytes`);
        if (bytes.length > 0) return decodeUtf8Range(bytes);
        // GETRANGE answers '' both past the end and for a missing key
        return (await redis.call('EXISTS', target)) === 0 ? undefined : '';
      });
    },

    async stat(key: string): Promise<StoredEntry | undefined> {
      const target = redisKey('key', key);
      return read(`${referenceBase}${key}`, async (redis) => {
        // sent together: one round trip on a pipelining client such as ioredis
        const replies = await Promise.allSettled([
          redis.call('STRLEN', target),
          redis.call('GETRANGE', target, 0, HEADER_BYTES - 1),
        ]);
        const failed = replies.find((reply) => reply.status === 'rejected');
        if (failed !== undefined) {
          if (!isRedisError(failed.reason, WRONG_TYPE)) throw failed.reason;
          const type = await redis.call('TYPE', target).catch(() => 'another type');
          logger.warn(
            `Redis store: skipped ${referenceBase}${key}: it holds a ${toText(type)}, not a value this store wrote`,
          );
          return undefined;
        }
        const [size, header] = replies.map((reply) => (reply as PromiseFulfilledResult<unknown>).value);
        if (size === 0) return undefined;
        const createdAt = parseHeader(toText(header));
        if (createdAt === undefined || typeof size !== 'number') {
          logger.warn(
            `Redis store: skipped ${referenceBase}${key}: its value has no "${HEADER_NAME}" header, so this store did not write it`,
          );
          return undefined;
        }
        return { size: size - HEADER_BYTES, createdAt };
      });
    },

    list(listPrefix: string): AsyncIterable<string> {
      assertStoreKeyPrefix('prefix', listPrefix);
      const pattern = `${escapeGlob(`${prefix}/${listPrefix}`)}*`;
      return scanKeys(listPrefix);

      async function* scanKeys(what: string): AsyncGenerator<string> {
        const seen = new Set<string>();
        let cursor = '0';
        do {
          const [next, keys] = await read(`the keys under ${referenceBase}${what}`, async (redis) =>
            parseScanReply(await redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', REDIS_SCAN_COUNT)),
          );
          cursor = next;
          for (const found of keys) {
            const key = found.slice(prefix.length + 1);
            // SCAN may return a key twice; a key no store could have written is not listed
            if (seen.has(key) || !found.startsWith(`${prefix}/`) || findStoreKeyProblem(key) !== undefined) continue;
            seen.add(key);
            yield key;
          }
        } while (cursor !== '0');
      }
    },

    async delete(key: string): Promise<void> {
      const target = redisKey('key', key);
      const redis = await clientFor(WriteFailedError);
      try {
        await redis.call('DEL', target);
      } catch (error) {
        throw writeFailed('delete', key, error);
      }
    },

    referenceFor(key: string): string {
      return `${referenceBase}${assertStoreKey('key', key)}`;
    },

    keyFor(reference: string): string | undefined {
      if (typeof reference !== 'string' || !reference.startsWith(referenceBase)) return undefined;
      const key = reference.slice(referenceBase.length);
      return findStoreKeyProblem(key) === undefined ? key : undefined;
    },

    async holds(key: string, content: string): Promise<boolean> {
      const target = redisKey('key', key);
      return read(`${referenceBase}${key}`, async (redis) => {
        try {
          const size = await redis.call('STRLEN', target);
          if (size !== HEADER_BYTES + countUtf8Bytes(content)) return false;
          const value = await redis.call('GET', target);
          return value !== null && value !== undefined && contentOf(value) === toWellFormedText(content);
        } catch (error) {
          if (isRedisError(error, WRONG_TYPE)) return false;
          throw error;
        }
      });
    },

    async exists(key: string): Promise<boolean> {
      const target = redisKey('key', key);
      return read(`${referenceBase}${key}`, async (redis) => (await redis.call('EXISTS', target)) === 1);
    },

    close: () => connection.close(),
  };
}

function checkOptions(options: RedisStoreOptions): {
  client?: RedisLike;
  url?: string;
  prefix: string;
  ttlSeconds?: number;
} {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `createRedisStore needs an options object ({ client or url, prefix }), got ${describeValue(options)}`,
    );
  }
  const { client, url, prefix, ttlSeconds } = options;
  if ((client === undefined) === (url === undefined)) {
    throw new InvalidOptionError(
      `createRedisStore needs exactly one of client and url, got ${client === undefined ? 'neither' : 'both'}`,
    );
  }
  if (client !== undefined && typeof (client as Partial<RedisLike> | null)?.call !== 'function') {
    throw new InvalidOptionError(
      `client must be a Redis client with a call(command, ...args) method (ioredis, or an adapter), got ${describeValue(client)}`,
    );
  }
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    throw new InvalidOptionError(`url must be a redis:// or rediss:// URL, got ${describeValue(url)}`);
  }
  const prefixProblem = findStoreKeyProblem(prefix);
  if (prefixProblem !== undefined)
    throw new InvalidOptionError(`prefix ${prefixProblem}, got ${describeValue(prefix)}`);
  if (
    ttlSeconds !== undefined &&
    (typeof ttlSeconds !== 'number' || !Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0)
  ) {
    throw new InvalidOptionError(`ttlSeconds must be a positive integer, got ${describeValue(ttlSeconds)}`);
  }
  return {
    ...(client !== undefined && { client }),
    ...(url !== undefined && { url }),
    prefix,
    ...(ttlSeconds !== undefined && { ttlSeconds }),
  };
}

let headerTime = Number.NaN;
let header = '';

/** The stored value of `content`: its header (made once per millisecond), then the content. */
function withHeader(content: string): string {
  const now = Date.now();
  if (now !== headerTime) {
    headerTime = now;
    header = `${HEADER_NAME}${new Date(now).toISOString()}\n`;
  }
  return header + content;
}

/** The time in a value's header, or `undefined` when `value` does not start with one. */
function parseHeader(value: string): Date | undefined {
  if (value.length < HEADER_BYTES || !value.startsWith(HEADER_NAME) || value[HEADER_BYTES - 1] !== '\n')
    return undefined;
  const time = Date.parse(value.slice(HEADER_NAME.length, HEADER_BYTES - 1));
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** A value's content (after its header), or `undefined` when the reply is not a value with a header. */
function contentOf(reply: unknown): string | undefined {
  const value = toText(reply);
  return parseHeader(value) === undefined ? undefined : value.slice(HEADER_BYTES);
}

function notOurs(key: string): Error {
  return new Error(
    `the value of ${key} has no "${HEADER_NAME}" header: it was not written by a Redis store of this package`,
  );
}

function toText(reply: unknown): string {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  throw new Error(`Redis replied ${describeValue(reply)} where a string was expected`);
}

/** `text` with Redis' glob characters escaped, for `SCAN ... MATCH`. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function parseScanReply(reply: unknown): [string, string[]] {
  if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1]))
    throw new Error(`SCAN replied ${describeValue(reply)}`);
  return [toText(reply[0]), (reply[1] as unknown[]).map(toText)];
}

/** Whether `error` is a Redis error reply starting with `code` (`WRONGTYPE`, `OOM`). */
function isRedisError(error: unknown, code: string): boolean {
  return error instanceof Error && error.message.startsWith(code);
}

/**
 * Asks the server's `maxmemory-policy` and warns when it may evict this store's entries. A
 * server that refuses `CONFIG` (managed services often do) is not warned about.
 */
async function warnOfEviction(
  redis: RedisLike,
  referenceBase: string,
  ttlSeconds: number | undefined,
  logger: Logger,
): Promise<void> {
  let policy: string;
  try {
    const reply = await redis.call('CONFIG', 'GET', 'maxmemory-policy');
    if (!Array.isArray(reply) || reply.length < 2) return;
    policy = toText(reply[1]);
  } catch {
    return;
  }
  const evictsAny = policy.startsWith('allkeys-');
  if (!evictsAny && !(policy.startsWith('volatile-') && ttlSeconds !== undefined)) return;
  logger.warn(
    `Redis store ${referenceBase}: the server's maxmemory-policy is ${policy}: when memory is full it deletes ${evictsAny ? 'any key' : "keys with an expiry, such as this store's (ttlSeconds)"}, and a reference to evicted content reads nothing. Set maxmemory-policy noeviction (a write then fails when memory is full, and says so), or a volatile-* policy and no ttlSeconds on this store.`,
  );
}

/** The client error's message, with a hint where a known cause explains it. */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/syntax error/i.test(message)) return `${message} (SET with both NX and GET needs Redis >= 7.0)`;
  return message;
}
