/**
 * A real `redis-server` for the Redis store's tests and benchmark: started on a free
 * 127.0.0.1 port with persistence off and a temp working directory, ready once it answers
 * PING, stopped (and waited for) at the end. Where the binary is not on the machine,
 * {@link findRedisServerSkipReason} says why, and the suites skip with that reason printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** A running server. */
export interface RedisServer {
  /** The port it listens on, on 127.0.0.1. */
  port: number;
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Stops the server and waits for it to exit; removes its temp directory. */
  stop(): Promise<void>;
}

/** How long it may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 5_000;

/**
 * Path of the `redis-server` binary: `$REDIS_SERVER` when set (only it: `REDIS_SERVER=none`
 * shows what a machine without the binary does), else the first on `PATH`, else `/usr/bin`,
 * `/usr/local/bin`.
 */
function findRedisServer(): string | undefined {
  const chosen = process.env.REDIS_SERVER;
  const candidates =
    chosen !== undefined && chosen !== ''
      ? [chosen]
      : [
          ...(process.env.PATH ?? '')
            .split(delimiter)
            .filter((directory) => directory !== '')
            .map((directory) => join(directory, 'redis-server')),
          '/usr/bin/redis-server',
          '/usr/local/bin/redis-server',
        ];
  return candidates.find((candidate) => isExecutable(candidate));
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the Redis suites cannot run here, or `undefined` when they can. */
export function findRedisServerSkipReason(): string | undefined {
  if (findRedisServer() !== undefined) return undefined;
  const chosen = process.env.REDIS_SERVER;
  if (chosen !== undefined && chosen !== '') return `REDIS_SERVER=${chosen} is not an executable redis-server`;
  return 'no redis-server binary on this machine (not on PATH, /usr/bin or /usr/local/bin): `apt-get install -y redis-server`, or set REDIS_SERVER';
}

/**
 * The skip reason of a suite named `suite`, printed once when there is one: use it as
 * `describe.skipIf(redisSuiteSkipReason('...') !== undefined)`.
 */
export function redisSuiteSkipReason(suite: string): string | undefined {
  const reason = findRedisServerSkipReason();
  if (reason !== undefined) console.warn(`[skipped] ${suite}: ${reason}`);
  return reason;
}

/** A port free on 127.0.0.1 right now. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a Redis server answers PING on `port`, within `timeoutMs`. */
async function answersPing(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.once('error', () => finish(false));
  });
}

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** The port to listen on (a restart on the same port). @default a free port */
  port?: number;
}

/**
 * Starts `redis-server` on a free 127.0.0.1 port (`--save ''`, `--appendonly no`, a temp
 * directory) and resolves once it answers PING. A free port taken between the check and the
 * start is retried on another port.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  const binary = findRedisServer();
  if (binary === undefined) throw new Error(findRedisServerSkipReason());
  if (options.port !== undefined) return startOnce(binary, options.port);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, await findFreePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function startOnce(binary: string, port: number): Promise<RedisServer> {
  const directory = await mkdtemp(join(tmpdir(), 'aco-redis-'));
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      directory,
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += `\n${String(error)}`));

  const stop = async (): Promise<void> => {
    await stopProcess(child, exited);
    await rm(directory, { recursive: true, force: true });
  };

  // until it answers or exits, however long a loaded machine takes to start it
  while (child.exitCode === null && child.signalCode === null) {
    if (await answersPing(port)) return { port, url: `redis://127.0.0.1:${port}`, stop };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await stop();
  throw new Error(`redis-server exited before it answered PING on 127.0.0.1:${port}:\n${output.trim()}`);
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}
