/**
 * Where the Redis store's client comes from: yours (used as it is, never closed), or an ioredis
 * client the store makes from a URL on first use, with the settings that keep a call from
 * waiting long on a server that is down, stopped, or accepts connections and never answers.
 */
import { raceWithSignal } from '../core/abort.js';
import {
  importOptionalPeer,
  MissingDependencyError,
  type ReadFailedError,
  type WriteFailedError,
} from '../core/errors.js';

/**
 * A Redis client, by shape: a generic command method. An ioredis `Redis` (or `Cluster`,
 * except for `list`, which scans one node) is one as it is. Any other client fits through a
 * one-line adapter, e.g. node-redis 4/5:
 * `{ call: (command, ...args) => client.sendCommand([command, ...args.map(String)]) }`.
 *
 * Replies are expected as ioredis and node-redis give them: bulk strings as UTF-8 text (or
 * bytes), `null` for a missing value, integers as numbers, arrays as arrays. A client that
 * parses values (`@upstash/redis` with its default `automaticDeserialization`) does not fit.
 */
export interface RedisLike {
  /** Sends one command (`'SET'`, `'GETRANGE'`, ...) with its arguments and resolves with the reply. */
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
  /**
   * {@link RedisLike.call} with bulk strings replied as bytes (`Buffer` or `Uint8Array`), as
   * ioredis' `callBuffer`. Optional: with it, a range read is `GETRANGE` and the bytes are cut
   * to whole characters here; without it, a small Lua script (`EVAL`) cuts them on the server.
   */
  callBuffer?(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/** How long the client made from `url` waits for a connection, the server's first reply included. */
export const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/**
 * How long the client made from `url` waits for the reply to one command: a server that
 * stopped (`SIGSTOP`, a frozen VM) keeps the connection open and never answers.
 */
const REDIS_COMMAND_TIMEOUT_MS = 10_000;

/** How long `close()` waits for the server to acknowledge `QUIT` before it drops the connection. */
const REDIS_QUIT_TIMEOUT_MS = 1_000;

/** Where the client comes from, and whether the store may close it. */
export interface Connection {
  /** The client when it is ready now, else `undefined`. */
  current(): RedisLike | undefined;
  /** The client once connected; a failure to connect rejects as `failure`, the error as cause. */
  connect(failure: typeof WriteFailedError | typeof ReadFailedError): Promise<RedisLike>;
  close(): Promise<void>;
}

/** A client the caller owns: used as it is, never closed. */
export function useCallerClient(client: RedisLike): Connection {
  return { current: () => client, connect: async () => client, close: async () => undefined };
}

/** The ioredis client this store creates, its settings and its life. */
interface OwnClient extends RedisLike {
  readonly status: string;
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/**
 * A client made from `url` on first use, shared by every call; made again after it gave up
 * reconnecting (status `end`), so a server back after an outage is found by the next call.
 */
export function createUrlConnection(url: string): Connection {
  let connected: OwnClient | undefined;
  let pending: Promise<OwnClient> | undefined;
  /** Every client made and not yet closed, connecting or not: `close()` ends them all. */
  const made = new Set<OwnClient>();
  const safeUrl = url.replace(/\/\/[^@/]*@/, '//***@');

  const open = async (): Promise<OwnClient> => {
    const Redis = await importIoredis();
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // fail at once while disconnected rather than queue: an unreachable server is a WRITE_FAILED now
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt: number) => (attempt > 3 ? null : attempt * 200),
    });
    made.add(client);
    let lastError: unknown;
    client.on('error', (error) => (lastError = error));
    // connectTimeout ends at the TCP connection; a server that accepts it and never answers
    // would keep connect() (its ready check) waiting: the deadline covers both
    const deadline = AbortSignal.timeout(REDIS_CONNECT_TIMEOUT_MS);
    try {
      await raceWithSignal(client.connect(), deadline);
    } catch (error) {
      made.delete(client);
      client.disconnect();
      throw deadline.aborted
        ? new Error(`no answer within ${REDIS_CONNECT_TIMEOUT_MS} ms`, { cause: error })
        : (lastError ?? error);
    }
    return client;
  };

  return {
    current: () => (connected !== undefined && connected.status !== 'end' ? connected : undefined),
    async connect(failure) {
      if (connected?.status === 'end') {
        made.delete(connected);
        connected = undefined;
        pending = undefined;
      }
      if (pending === undefined) {
        const opening = open();
        pending = opening;
        opening.then(
          (client) => {
            // a close() while it connected dropped it
            if (pending === opening) connected = client;
            else client.disconnect();
          },
          () => {
            if (pending === opening) pending = undefined;
          },
        );
      }
      try {
        return await pending;
      } catch (error) {
        if (error instanceof MissingDependencyError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new failure(`Redis store could not connect to ${safeUrl}: ${message}`, { cause: error });
      }
    },
    async close() {
      pending = undefined;
      connected = undefined;
      const clients = [...made];
      made.clear();
      // QUIT waits for the replies still due: not forever from a server that stopped answering;
      // a client still connecting is dropped at once (its connect() rejects)
      await Promise.all(
        clients.map((client) =>
          client.status === 'ready'
            ? raceWithSignal(client.quit(), AbortSignal.timeout(REDIS_QUIT_TIMEOUT_MS)).catch(() => client.disconnect())
            : client.disconnect(),
        ),
      );
    },
  };
}

type IoredisConstructor = new (url: string, options: Record<string, unknown>) => OwnClient;

/** ioredis' client class, imported on first use; `MISSING_DEPENDENCY` when it is not installed. */
async function importIoredis(): Promise<IoredisConstructor> {
  const sdkModule = await importOptionalPeer('ioredis', () => import('ioredis'), 'createRedisStore({ url })');
  const candidates = [
    (sdkModule as { default?: unknown }).default,
    (sdkModule as { Redis?: unknown }).Redis,
    ((sdkModule as { default?: unknown }).default as { Redis?: unknown } | undefined)?.Redis,
  ];
  const found = candidates.find((candidate) => typeof candidate === 'function');
  if (found === undefined)
    throw new MissingDependencyError(
      'ioredis was loaded but exports no Redis client class; install a supported version: `npm install ioredis`',
    );
  return found as IoredisConstructor;
}
