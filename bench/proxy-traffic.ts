/**
 * What the proxy benchmark runs against: `agent-context proxy` in a process of its own (the
 * command a user runs, from the sources), a model API on 127.0.0.1 that answers at once or
 * after the delay a request asks for (streamed server-sent events or a JSON body) and keeps the
 * bytes of each answer it sent, and
 * a client that times a request to either, to its first byte and to its end.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT } from './cli-process.js';

/** The header that asks the bench's upstream for a streamed answer (`stream`) or a JSON body. */
export const ANSWER_HEADER = 'x-bench-answer';
/** The header naming a request, so the upstream keeps what it received and sent for it. */
export const REQUEST_ID_HEADER = 'x-bench-request';
/** The header that asks the bench's upstream to answer after that many milliseconds, as a model takes time to its first token. */
export const ANSWER_DELAY_HEADER = 'x-bench-answer-delay-ms';

/** What the upstream saw of one named request. */
export interface UpstreamExchange {
  received: Buffer;
  sent: Buffer;
}

/** The bench's model API. */
export interface BenchUpstream {
  origin: string;
  /** The exchanges of named requests, by their {@link REQUEST_ID_HEADER}. */
  exchanges: Map<string, UpstreamExchange>;
  close(): Promise<void>;
}

/** Server-sent events as the Anthropic API writes them. */
function sseEvent(event: { type: string; [field: string]: unknown }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * A streamed Anthropic answer of `deltas` text events, its usage the input tokens given, cut
 * into chunks of `chunkBytes` (a chunk may end inside a character: the proxy must pass bytes
 * on, not text).
 */
export function buildStreamChunks(inputTokens: number, deltas: readonly string[], chunkBytes: number): Buffer[] {
  const message = {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [],
    stop_reason: null,
    stop_sequence: null,
  };
  const events = [
    sseEvent({
      type: 'message_start',
      message: {
        ...message,
        usage: {
          input_tokens: inputTokens,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...deltas.map((text) => sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    sseEvent({ type: 'content_block_stop', index: 0 }),
    sseEvent({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: deltas.length },
    }),
    sseEvent({ type: 'message_stop' }),
  ];
  const bytes = Buffer.from(events.join(''), 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += chunkBytes) chunks.push(bytes.subarray(start, start + chunkBytes));
  return chunks;
}

/** A JSON Anthropic answer with the usage given. */
function buildJsonAnswer(inputTokens: number): Buffer {
  const body = {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [{ type: 'text', text: 'Done.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: inputTokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 2 },
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** The deltas of the answers a request does not ask otherwise: a short reply. */
const SHORT_REPLY = ['Looking', ' at the', ' failing', ' test now.'];

/**
 * Starts the upstream. It reports about a token per 4 bytes of the request (the proxy passes
 * the figure on to its manager), and answers with `streamAnswer(request)`'s chunks when the
 * request asks for a stream, one chunk per turn of the event loop, the first after the
 * {@link ANSWER_DELAY_HEADER} delay when the request gives one.
 */
export async function startBenchUpstream(
  streamAnswer?: (requestId: string | undefined, inputTokens: number) => Buffer[],
): Promise<BenchUpstream> {
  const exchanges = new Map<string, UpstreamExchange>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = Buffer.concat(chunks);
      const inputTokens = Math.ceil(received.length / 4);
      const requestId = request.headers[REQUEST_ID_HEADER] as string | undefined;
      if (request.headers[ANSWER_HEADER] !== 'stream') {
        const body = buildJsonAnswer(inputTokens);
        if (requestId !== undefined) exchanges.set(requestId, { received, sent: body });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        response.end(body);
        return;
      }
      const answer = streamAnswer?.(requestId, inputTokens) ?? buildStreamChunks(inputTokens, SHORT_REPLY, 1 << 16);
      if (requestId !== undefined) exchanges.set(requestId, { received, sent: Buffer.concat(answer) });
      const delayMs = Number(request.headers[ANSWER_DELAY_HEADER] ?? 0);
      const streamAll = (): void => {
        if (response.destroyed) return;
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        // the first event goes out with the head, as a model's first token would
        response.write(answer[0]);
        let next = 1;
        const writeNext = (): void => {
          if (response.destroyed) return;
          if (next >= answer.length) {
            response.end();
            return;
          }
          response.write(answer[next++]);
          setImmediate(writeNext);
        };
        setImmediate(writeNext);
      };
      if (delayMs > 0) setTimeout(streamAll, delayMs);
      else streamAll();
    });
  });
  // kept-alive connections wait for the next request as long as a busy run may take between two
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy process. */
export interface ProxyProcess {
  origin: string;
  /** The lines it wrote on stderr (one per managed request). */
  lines: string[];
  /** The CPU time it has used so far, in milliseconds (`undefined` where `/proc` does not tell). */
  cpuMs(): number | undefined;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Runs `agent-context proxy --port 0` in front of `upstream`, from the sources (with the
 * loader this process runs under), with `nodeFlags` (`--cpu-prof`) before the script.
 */
export async function startProxyProcess(
  upstream: string,
  dir: string,
  nodeFlags: readonly string[] = [],
): Promise<ProxyProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...process.execArgv,
      ...nodeFlags,
      'src/cli/index.ts',
      'proxy',
      '--port',
      '0',
      '--upstream',
      upstream,
      '--dir',
      dir,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: string[] = [];
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    const split = text.split('\n');
    pending = split.pop() ?? '';
    lines.push(...split);
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1] as string);
    });
    void exited.then(() =>
      reject(new Error(`the proxy exited before listening: ${output}${lines.join('\n')}${pending}`)),
    );
  });
  return {
    origin,
    lines,
    cpuMs: () => (child.pid === undefined ? undefined : readCpuMs(child.pid)),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let clockTicks: number | undefined;

/** The user and system CPU time of process `pid`, from `/proc/<pid>/stat`, in milliseconds. */
function readCpuMs(pid: number): number | undefined {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (which may hold spaces), from the state on: utime and stime are the 12th and 13th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

/** A timed request: when its first body byte came, when it ended, and its body. */
export interface TimedReply {
  status: number;
  firstByteMs: number;
  totalMs: number;
  body: Buffer;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * Sends `POST /v1/messages` with `body` to `origin` and times it. A kept-alive connection the
 * server closed as the request went out is retried once on a new one, as HTTP clients do (the
 * time of both counts).
 */
export function timeRequest(
  origin: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): Promise<TimedReply> {
  const started = performance.now();
  return sendTimed(origin, body, headers, started).catch((error: unknown) => {
    if ((error as { reusedSocket?: boolean }).reusedSocket !== true) throw error;
    return sendTimed(origin, body, headers, started);
  });
}

function sendTimed(
  origin: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  started: number,
): Promise<TimedReply> {
  return new Promise((resolve, reject) => {
    let firstByteMs = Number.NaN;
    const outgoing = httpRequest(
      `${origin}/v1/messages`,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'content-length': String(body.length),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          if (chunks.length === 0) firstByteMs = performance.now() - started;
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            firstByteMs,
            totalMs: performance.now() - started,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const reset = error.code === 'ECONNRESET' && outgoing.reusedSocket;
      reject(reset ? Object.assign(error, { reusedSocket: true }) : error);
    });
    outgoing.end(body);
  });
}

/** The `fraction` percentile of `values` (nearest rank). */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}
