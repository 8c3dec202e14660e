/**
 * `agent-context proxy` against the same upstream called directly, in one run: the proxy is the
 * command a user runs, in a process of its own; the upstream (a model API on 127.0.0.1) and the
 * clients share this process. Cases:
 * - time to first byte of a streamed answer (a 10-message request): added <= 2 ms at p50;
 * - a 200-message history with nothing to offload, answered in JSON: added <= 3 ms at p50, and
 *   the body reaches the upstream byte for byte;
 * - a long streamed answer cut inside characters reaches the client byte for byte;
 * - 20 agents at once, each replaying the first 200 requests of the package's sample transcript
 *   (a coding session whose tool results run up to 60 KB, fifteen times over, its ids renamed
 *   per copy) as a Claude Code client sends them: the whole history every time (up to 3.4 MB),
 *   a cache marker on the last message, the system prompt and 12 tools. Each request goes to
 *   the proxy and to the upstream directly, one after the other; the added latency is the
 *   difference: p99 <= 250 ms. Run twice, each time with a proxy process of its own: with the
 *   upstream answering at once (the agents start together and send their next request as soon
 *   as an answer ends, so the proxy is never idle and the agents reach the same large results
 *   at the same request: a stress case), and with the upstream answering after 250 ms (a
 *   model's pace, faster than any real model's time to its first token). One untimed session
 *   first: a process loads the tokenizer at its first count.
 * `--quick`: 20 rounds of the single requests, 4 agents of 30 requests. `PROXY_BENCH_CPU_PROF=<dir>`
 * writes a CPU profile of each proxy process there (the single requests', then the agents' at
 * once, then at a model's pace).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRequestTurns } from '../src/cli/replay/request-turns.js';
import type { Message } from '../src/core/types.js';
import {
  ANSWER_DELAY_HEADER,
  ANSWER_HEADER,
  buildStreamChunks,
  percentile,
  REQUEST_ID_HEADER,
  startBenchUpstream,
  startProxyProcess,
  timeRequest,
  type BenchUpstream,
  type TimedReply,
} from './proxy-traffic.js';
import type { BenchRow, BenchRunOptions } from './report.js';
import { loadSampleTranscript } from './session-replay.js';

export const title = 'Proxy';

/** Twelve tool definitions of about Claude Code's size (its tools come to some 9,000 tokens with the system prompt). */
const TOOLS = Array.from({ length: 12 }, (_, index) => ({
  name: `tool_${index}`,
  description: `Tool ${index}. ${'Describes when to use it, what it returns and what to avoid, at length. '.repeat(30)}`,
  input_schema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'An absolute path.' }, limit: { type: 'number' } },
    required: ['path'],
  },
}));

/** The request body a client sends: `history` after the system prompt, streamed, the last message marked for the prompt cache. */
function buildRequestBody(system: string, history: readonly Message[], stream: boolean): Buffer {
  const messages = history.map((message, index) => {
    if (index !== history.length - 1) return message;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return {
      ...message,
      content: blocks.map((block, position) =>
        position === blocks.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block,
      ),
    };
  });
  return Buffer.from(
    JSON.stringify({ model: 'claude-bench', max_tokens: 4096, stream, system, tools: TOOLS, messages }),
    'utf8',
  );
}

/** A history of `count` messages with nothing to offload: a task, then small tool calls and results. */
function buildSmallHistory(count: number): Message[] {
  const messages: Message[] = [
    { role: 'user', content: 'The invoice totals are off by a cent on some lines; find out why.' },
    { role: 'assistant', content: 'I will look through the rounding code step by step.' },
  ];
  for (let step = 0; messages.length < count; step += 1) {
    const id = `toolu_small_${step}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${step}: checking the next file.` },
        { type: 'tool_use', id, name: 'run_command', input: { command: `grep -n round src/money/part-${step}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: `src/money/part-${step}.ts:${step + 10}: return roundHalfEven(value * 100) / 100;\n`.repeat(4),
        },
      ],
    });
  }
  return messages.slice(0, count);
}

const SYSTEM =
  'You are a coding agent. Use the tools to read, search and edit the repository; run the tests before you finish.';

/** Sends `body` to the upstream directly and through the proxy, in the order given, `rounds` times after `warmup` untimed rounds. */
async function comparePaths(
  upstream: BenchUpstream,
  proxy: string,
  body: Buffer,
  headers: Record<string, string>,
  rounds: number,
): Promise<{ direct: TimedReply[]; proxied: TimedReply[] }> {
  const direct: TimedReply[] = [];
  const proxied: TimedReply[] = [];
  for (let round = -10; round < rounds; round += 1) {
    const sendDirect = () => timeRequest(upstream.origin, body, headers);
    const sendProxied = () => timeRequest(proxy, body, { ...headers, 'x-api-key': 'bench-key' });
    const replies = await sendBothWays(round % 2 === 0, sendDirect, sendProxied);
    if (round < 0) continue;
    direct.push(replies.direct);
    proxied.push(replies.proxied);
  }
  for (const reply of [...direct, ...proxied])
    if (reply.status !== 200)
      throw new Error(`a request was answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
  return { direct, proxied };
}

/** A long answer: text deltas with accents, CJK and emoji, so fixed-size chunks end inside characters. */
function buildLongAnswer(inputTokens: number): Buffer[] {
  const deltas = Array.from({ length: 2000 }, (_, index) => ` ligne ${index}: é 数据 😀 "quoted" \\ back`);
  return buildStreamChunks(inputTokens, deltas, 1021);
}

/** What the 20 agents came to. */
interface AgentsFigures {
  added: number[];
  /** The request index of each figure of `added`. */
  indices: number[];
  direct: number[];
  proxied: number[];
  requests: number;
  lastBodyBytes: number;
  elapsedMs: number;
}

/**
 * `agents` clients at once, each sending the transcript's first `requests` requests in turn
 * (its own credential `<name>-<n>`, so its own session), each to the upstream directly and through the
 * proxy (alternating which goes first), the upstream answering after `answerDelayMs`. A body is
 * built once and shared by every agent.
 */
async function runAgents(
  upstream: BenchUpstream,
  proxy: string,
  transcript: readonly Message[],
  agents: number,
  requests: number,
  answerDelayMs: number,
  name = 'bench-agent',
): Promise<AgentsFigures> {
  const [system, ...history] = transcript;
  const turns = findRequestTurns(history).slice(0, requests);
  if (turns.length < requests) throw new Error(`the transcript holds ${turns.length} requests, not ${requests}`);
  const bodies = new Map<number, { body: Buffer; uses: number }>();
  const bodyOf = (request: number): Buffer => {
    let entry = bodies.get(request);
    if (entry === undefined) {
      entry = {
        body: buildRequestBody(String(system?.content ?? ''), history.slice(0, turns[request]), true),
        uses: 0,
      };
      bodies.set(request, entry);
    }
    entry.uses += 1;
    if (entry.uses === agents) bodies.delete(request);
    return entry.body;
  };
  const figures: AgentsFigures = {
    added: [],
    indices: [],
    direct: [],
    proxied: [],
    requests: 0,
    lastBodyBytes: 0,
    elapsedMs: 0,
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      const headers = { [ANSWER_HEADER]: 'stream', [ANSWER_DELAY_HEADER]: String(answerDelayMs) };
      for (let request = 0; request < requests; request += 1) {
        const body = bodyOf(request);
        figures.lastBodyBytes = Math.max(figures.lastBodyBytes, body.length);
        const sendDirect = () => timeRequest(upstream.origin, body, headers);
        const sendProxied = () => timeRequest(proxy, body, { ...headers, 'x-api-key': `${name}-${agent}` });
        const { direct, proxied } = await sendBothWays((agent + request) % 2 === 0, sendDirect, sendProxied);
        if (direct.status !== 200 || proxied.status !== 200)
          throw new Error(
            `agent ${agent}, request ${request}: answered ${direct.status} directly, ${proxied.status} through the proxy`,
          );
        figures.direct.push(direct.totalMs);
        figures.proxied.push(proxied.totalMs);
        figures.added.push(proxied.totalMs - direct.totalMs);
        figures.indices.push(request);
        figures.requests += 1;
      }
    }),
  );
  figures.elapsedMs = performance.now() - started;
  return figures;
}

function formatFigure(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

/** The row of a single-request case: the proxied median, the direct one as its baseline, the time added against `goalMs`. */
function buildAddedRow(
  name: string,
  replies: { direct: TimedReply[]; proxied: TimedReply[] },
  figure: 'firstByteMs' | 'totalMs',
  about: string,
  goalMs: number,
): BenchRow {
  const direct = percentile(
    replies.direct.map((reply) => reply[figure]),
    0.5,
  );
  const proxied = percentile(
    replies.proxied.map((reply) => reply[figure]),
    0.5,
  );
  return {
    name,
    medianMs: proxied,
    baseline: { name: 'the upstream called directly', medianMs: direct },
    extra: `added ${formatFigure(proxied - direct)} at p50, ${about}`,
    goal: `added <= ${goalMs} ms at p50`,
    met: proxied - direct <= goalMs,
  };
}

/** Sends a request both ways, the direct one first or second. */
async function sendBothWays(
  directFirst: boolean,
  sendDirect: () => Promise<TimedReply>,
  sendProxied: () => Promise<TimedReply>,
): Promise<{ direct: TimedReply; proxied: TimedReply }> {
  if (directFirst) {
    const direct = await sendDirect();
    return { direct, proxied: await sendProxied() };
  }
  const proxied = await sendProxied();
  return { direct: await sendDirect(), proxied };
}

/**
 * A real model takes seconds to its first token; the paced case waits this long before each
 * answer, faster than any model, so the proxy still serves 20 agents far more often than real
 * ones would ask.
 */
const MODEL_PACE_MS = 250;

/**
 * The agents' case in a proxy process of its own (under `dir`): `agents` agents of `requests`
 * requests each, the upstream answering after `answerDelayMs`.
 */
async function runAgentsCase(
  upstream: BenchUpstream,
  dir: string,
  nodeFlags: readonly string[],
  agents: number,
  requests: number,
  answerDelayMs: number,
): Promise<BenchRow> {
  const agentsProxy = await startProxyProcess(upstream.origin, dir, nodeFlags);
  let figures: AgentsFigures;
  let cpuMs: number | undefined;
  try {
    const transcript = await loadSampleTranscript(15);
    // one request of a session of its own first: the process loads the tokenizer once, at its first count
    await runAgents(upstream, agentsProxy.origin, transcript, 1, 2, 0, 'warm-up');
    const cpuBefore = agentsProxy.cpuMs();
    figures = await runAgents(upstream, agentsProxy.origin, transcript, agents, requests, answerDelayMs);
    const cpuAfter = agentsProxy.cpuMs();
    cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  } catch (error) {
    throw new Error(`the agents' run failed; the proxy's last lines:\n${agentsProxy.lines.slice(-20).join('\n')}`, {
      cause: error,
    });
  } finally {
    await agentsProxy.stop();
  }
  const compactions = agentsProxy.lines.filter((line) => line.includes(' compacted ')).length;
  const failed = agentsProxy.lines.filter((line) => line.includes('manager failed')).length;
  const offloaded = agentsProxy.lines.reduce((sum, line) => sum + Number(/ (\d+) offloaded/.exec(line)?.[1] ?? 0), 0);
  const p99 = percentile(figures.added, 0.99);
  const slowest = Math.max(...figures.added);
  const pace =
    answerDelayMs === 0 ? 'the upstream answering at once' : `the upstream answering after ${answerDelayMs} ms`;
  return {
    name: `${agents} agents at once, ${requests} requests each of a real transcript, ${pace}: p99 of the time added`,
    medianMs: percentile(figures.proxied, 0.99),
    baseline: { name: 'p99 of the upstream called directly', medianMs: percentile(figures.direct, 0.99) },
    extra:
      `added: p50 ${formatFigure(percentile(figures.added, 0.5))}, p99 ${formatFigure(p99)}, max ${formatFigure(slowest)} (request ${figures.indices[figures.added.indexOf(slowest)]! + 1}); ` +
      `${figures.requests} requests in ${(figures.elapsedMs / 1000).toFixed(1)} s, bodies up to ${(figures.lastBodyBytes / 1e6).toFixed(1)} MB; ` +
      (cpuMs === undefined ? '' : `the proxy's CPU ${formatFigure(cpuMs / figures.requests)} per request; `) +
      `${offloaded} results offloaded, ${compactions} compactions, ${failed} failed open`,
    goal: 'added <= 250 ms at p99',
    met: p99 <= 250 && failed === 0,
  };
}

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'aco-bench-proxy-'));
  let longAnswerFor: string | undefined;
  const upstream = await startBenchUpstream(
    (requestId, inputTokens) =>
      (requestId !== undefined && requestId === longAnswerFor ? buildLongAnswer(inputTokens) : undefined) ??
      buildStreamChunks(inputTokens, ['Looking', ' at the', ' failing', ' test now.'], 1 << 16),
  );
  const rows: BenchRow[] = [];
  try {
    const profileDir = process.env.PROXY_BENCH_CPU_PROF;
    const nodeFlags = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
    const proxy = await startProxyProcess(upstream.origin, join(root, 'single'), nodeFlags);
    const rounds = options.quick ? 20 : 300;
    try {
      // --- time to first byte of a streamed answer
      const shortBody = buildRequestBody(SYSTEM, buildSmallHistory(10), true);
      const firstByte = await comparePaths(upstream, proxy.origin, shortBody, { [ANSWER_HEADER]: 'stream' }, rounds);
      rows.push(
        buildAddedRow(
          'time to first byte of a streamed answer, through the proxy',
          firstByte,
          'firstByteMs',
          `${rounds} requests of 10 messages`,
          2,
        ),
      );

      // --- a 200-message history with nothing to offload
      const longBody = buildRequestBody(SYSTEM, buildSmallHistory(200), false);
      const whole = await comparePaths(
        upstream,
        proxy.origin,
        longBody,
        { [REQUEST_ID_HEADER]: 'history-200' },
        rounds,
      );
      const received = upstream.exchanges.get('history-200')?.received;
      if (received === undefined || !received.equals(longBody))
        throw new Error('the 200-message body with nothing to offload did not reach the upstream byte for byte');
      const sameBytes = `${(longBody.length / 1024).toFixed(0)} KB body reached the upstream byte for byte`;
      rows.push(
        buildAddedRow(
          'a request of 200 messages with nothing to offload, through the proxy',
          whole,
          'totalMs',
          sameBytes,
          3,
        ),
      );

      // --- a long streamed answer, byte for byte
      longAnswerFor = 'long-answer';
      const streamed = await timeRequest(proxy.origin, shortBody, {
        [ANSWER_HEADER]: 'stream',
        [REQUEST_ID_HEADER]: longAnswerFor,
        'x-api-key': 'bench-key',
      });
      const sent = upstream.exchanges.get(longAnswerFor)?.sent;
      const identical = sent !== undefined && streamed.body.equals(sent);
      const streamedDirect = await timeRequest(upstream.origin, shortBody, {
        [ANSWER_HEADER]: 'stream',
        [REQUEST_ID_HEADER]: longAnswerFor,
      });
      if (!identical) throw new Error('the streamed answer reached the client changed');
      rows.push({
        name: 'a streamed answer passes through unchanged',
        medianMs: streamed.totalMs,
        baseline: { name: 'the upstream called directly', medianMs: streamedDirect.totalMs },
        extra: `${(streamed.body.length / 1024).toFixed(0)} KB in ${Math.ceil(streamed.body.length / 1021)} chunks cut inside characters; identical byte for byte: ${identical ? 'yes' : 'no'}`,
        goal: 'identical byte for byte',
        met: identical,
      });
    } finally {
      await proxy.stop();
    }

    // --- 20 agents at once: with an upstream that answers at once, then at a model's pace
    const agents = options.quick ? 4 : 20;
    const requests = options.quick ? 30 : 200;
    for (const answerDelayMs of [0, MODEL_PACE_MS]) {
      rows.push(
        await runAgentsCase(
          upstream,
          join(root, `agents-${answerDelayMs}`),
          nodeFlags,
          agents,
          requests,
          answerDelayMs,
        ),
      );
    }
    return rows;
  } finally {
    await upstream.close();
    await rm(root, { recursive: true, force: true });
  }
}
