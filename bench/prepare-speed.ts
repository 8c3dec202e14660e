/**
 * How long `prepare` takes per request: each transcript replayed request by request through
 * one manager, as an agent runs it (the prepared messages sent and kept as the history, the
 * provider's figure of each request given to the next), with the file store in a temporary
 * directory and with the memory store; deepagents' middlewares (filesystem + summarization,
 * its defaults, as the peer benchmark runs them) replayed in the same run as the baseline.
 * Only the call is timed: `prepare` for the manager, the middlewares' hooks for deepagents
 * (the tool results through `wrapToolCall`, `beforeAgent`, `beforeModel`, `wrapModelCall`).
 *
 * The file store runs twice: with usage figures equal to the local count (an OpenAI model: the
 * calibration settles and is recorded only when it moves) and with Claude-like figures, which
 * differ from the local count by message (the calibration moves, and is recorded, at most requests).
 *
 * Requests whose work is a compaction are reported on their own row as well as counted in the
 * totals (the goal is on all requests). Times are wall times; the last column gives the CPU time
 * of the process during the call, which a machine busy with other work does not inflate.
 *
 *   npx tsx bench/prepare-speed.ts                 # every transcript, 30K and 100K windows
 *   npx tsx bench/prepare-speed.ts --quick         # the first transcripts, a 30K window
 *   npx tsx bench/prepare-speed.ts --window 30000  # one window
 *   npx tsx bench/prepare-speed.ts --no-peer       # the manager alone (profiling)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextManager } from '../src/api/context-manager.js';
import { countTokens } from '../src/api/tokens.js';
import { findRequestTurns } from '../src/cli/replay/request-turns.js';
import { silentLogger } from '../src/core/ports.js';
import type { LastUsage } from '../src/core/text/tokens.js';
import type { Message } from '../src/core/types.js';
import { createMemoryStore } from '../src/stores/memory-store.js';
import { isCorpusBuilt, loadCorpus } from './corpus/load-corpus.js';
import { createDeepagentsSystem } from './peers/deepagents-system.js';
import { sharedSummarizer } from './peers/shared-summary.js';
import { loadPeerTranscripts, type PeerTranscript } from './peers/transcripts.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'prepare per request, replayed transcripts';

/** Transcripts of the corpus a quick run replays. */
const QUICK_CORPUS_TRANSCRIPTS = 8;

/** Per-request times of one system over every transcript (wall and CPU), and those of the requests that compacted. */
interface RequestTimes {
  all: number[];
  cpu: number[];
  compactions: number[];
}

/** Times `work`: wall ms, and the process's CPU ms meanwhile (what a machine shared with other work leaves out). */
async function timeCall<T>(work: () => Promise<T>): Promise<{ result: T; wallMs: number; cpuMs: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { result, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** The distribution figures the report prints, in ms. */
interface Distribution {
  count: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
}

/** The value at quantile `q` of sorted `values` (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

function describeTimes(values: readonly number[]): Distribution {
  const sorted = [...values].sort((left, right) => left - right);
  return {
    count: sorted.length,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

type StoreKind = 'file store' | 'memory store';

/**
 * Whose usage figures the replay gives back: `'local'`, the local count itself (an OpenAI model,
 * counted by its own tokenizer: the calibration never moves); `'claude'`, a Claude-like count that
 * differs by message (each message's local count times a ratio drawn from what two real Claude
 * Code sessions measured: median about 1.33x, p10 1.13x, p90 1.6x), so the calibration moves.
 */
type FigureKind = 'local' | 'claude';

/** Provider tokens per local token for a message, by its position: the spread measured on Claude Code sessions. */
const CLAUDE_MESSAGE_RATIOS: readonly number[] = [
  1.31, 1.12, 1.45, 1.36, 1.62, 1.28, 1.19, 1.33, 1.71, 1.25, 1.38, 1.16, 1.52, 1.3, 1.41, 1.22, 1.35, 1.58, 1.27, 1.14,
];

/** Local tokens of each message object met so far: the replay passes the same objects again. */
const messageTokens = new WeakMap<Message, number>();
function tokensOf(message: Message): number {
  let tokens = messageTokens.get(message);
  if (tokens === undefined) messageTokens.set(message, (tokens = countTokens([message])));
  return tokens;
}

/** The provider's figure for `messages`, as `kind` says it counts. */
function providerFigure(messages: readonly Message[], toolDefinitionTokens: number, kind: FigureKind): number {
  if (kind === 'local') return toolDefinitionTokens + countTokens(messages);
  return messages.reduce(
    (total, message, index) =>
      total + Math.round(CLAUDE_MESSAGE_RATIOS[index % CLAUDE_MESSAGE_RATIOS.length]! * tokensOf(message)),
    toolDefinitionTokens,
  );
}

/** Replays `transcript` through one manager over a store of `kind`, timing each `prepare`. */
async function timeManager(
  transcript: PeerTranscript,
  window: number,
  kind: StoreKind,
  times: RequestTimes,
  figures: FigureKind = 'local',
): Promise<void> {
  const directory = kind === 'file store' ? await mkdtemp(join(tmpdir(), 'aco-bench-prepare-')) : undefined;
  try {
    const manager = createContextManager({
      // the file store as users get it: `outputDir`
      ...(directory === undefined ? { store: createMemoryStore() } : { outputDir: directory }),
      contextTokenLimit: window,
      provider: figures === 'local' ? 'openai' : 'anthropic',
      summarizer: sharedSummarizer,
      logger: silentLogger,
      compaction: { restore: { maxFiles: 0 } },
    });
    let history: Message[] = [];
    let seen = 0;
    let lastUsage: LastUsage | undefined;
    for (const end of findRequestTurns(transcript.messages)) {
      history = [...history, ...transcript.messages.slice(seen, end)];
      seen = end;
      const { result, wallMs, cpuMs } = await timeCall(() =>
        manager.prepare(history, lastUsage === undefined ? {} : { lastUsage }),
      );
      const { messages, actions } = result;
      times.all.push(wallMs);
      times.cpu.push(cpuMs);
      if (actions.some((action) => action.type === 'compact')) times.compactions.push(wallMs);
      lastUsage = {
        inputTokens: providerFigure(messages, transcript.toolDefinitionTokens, figures),
        messageCount: messages.length,
      };
      history = messages;
    }
  } finally {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  }
}

/** Replays `transcript` through deepagents' middlewares, timing each request's hooks. */
async function timeDeepagents(transcript: PeerTranscript, window: number, times: RequestTimes): Promise<void> {
  const session = await createDeepagentsSystem().open(transcript, window);
  try {
    for (const end of findRequestTurns(transcript.messages)) {
      const { wallMs, cpuMs } = await timeCall(() => session.prepareRequest(end));
      times.all.push(wallMs);
      times.cpu.push(cpuMs);
    }
  } finally {
    await session.close();
  }
}

/** The transcripts to replay: the project's corpus when it is built (quick: its first 8), else the peer benchmark's samples. */
async function loadTranscripts(quick: boolean): Promise<{ source: string; transcripts: PeerTranscript[] }> {
  if (await isCorpusBuilt())
    return { source: 'the corpus', transcripts: await loadCorpus(quick ? { limit: QUICK_CORPUS_TRANSCRIPTS } : {}) };
  return {
    source: 'the samples (the corpus is not built)',
    transcripts: await loadPeerTranscripts({ quick, set: 'samples' }),
  };
}

function formatMs(value: number): string {
  return Number.isNaN(value) ? '-' : value < 10 ? value.toFixed(3) : value.toFixed(1);
}

interface SpeedOptions extends BenchRunOptions {
  windows: readonly number[];
  peer: boolean;
}

/** Runs the replays and prints one table per window; returns the rows `npm run bench` prints. */
export async function measurePrepareSpeed(options: SpeedOptions): Promise<BenchRow[]> {
  const { source, transcripts } = await loadTranscripts(options.quick);
  const rows: BenchRow[] = [];
  const requests = transcripts.reduce((sum, transcript) => sum + findRequestTurns(transcript.messages).length, 0);
  console.log(`${transcripts.length} transcripts of ${source}, ${requests} requests per replay`);
  for (const window of options.windows) {
    const figures = new Map<string, RequestTimes>();
    const timesOf = (name: string): RequestTimes => {
      let times = figures.get(name);
      if (times === undefined) figures.set(name, (times = { all: [], cpu: [], compactions: [] }));
      return times;
    };
    for (const transcript of transcripts) {
      await timeManager(transcript, window, 'file store', timesOf('manager, file store'));
      await timeManager(transcript, window, 'file store', timesOf("manager, file store, Claude's figures"), 'claude');
      await timeManager(transcript, window, 'memory store', timesOf('manager, memory store'));
      if (options.peer) await timeDeepagents(transcript, window, timesOf('deepagents middlewares'));
    }
    const peer = figures.get('deepagents middlewares');
    const peerMedian = peer === undefined ? undefined : describeTimes(peer.all).median;
    console.log(`\nwindow ${window.toLocaleString('en-US')} tokens (ms per request)`);
    console.log('| system | requests | median | p90 | p99 | max | median vs deepagents | CPU: median, p99 |');
    console.log('|---|---|---|---|---|---|---|---|');
    const printLine = (name: string, values: readonly number[], cpu?: readonly number[]): Distribution => {
      const figure = describeTimes(values);
      const ratio =
        peerMedian === undefined || figure.count === 0 ? '-' : `${(figure.median / peerMedian).toFixed(1)}x`;
      const cpuFigure = cpu === undefined ? undefined : describeTimes(cpu);
      const cpuCell = cpuFigure === undefined ? '-' : `${formatMs(cpuFigure.median)}, ${formatMs(cpuFigure.p99)}`;
      console.log(
        `| ${name} | ${figure.count} | ${formatMs(figure.median)} | ${formatMs(figure.p90)} | ${formatMs(figure.p99)} | ${formatMs(figure.max)} | ${ratio} | ${cpuCell} |`,
      );
      return figure;
    };
    for (const [name, times] of figures) {
      const figure = printLine(name, times.all, times.cpu);
      const cpu = describeTimes(times.cpu);
      if (name.startsWith('manager')) {
        printLine(`${name}, compaction requests only`, times.compactions);
        rows.push({
          name: `prepare per request, ${name.slice('manager, '.length)}, ${window.toLocaleString('en-US')}-token window`,
          medianMs: figure.median,
          ...(peerMedian === undefined ? {} : { baseline: { name: 'deepagents middlewares', medianMs: peerMedian } }),
          extra: `${figure.count} requests: p90 ${formatMs(figure.p90)} ms, p99 ${formatMs(figure.p99)} ms, max ${formatMs(figure.max)} ms; CPU median ${formatMs(cpu.median)} ms, p99 ${formatMs(cpu.p99)} ms`,
          goal: 'median <= 1 ms, p99 <= 10 ms',
          met: figure.median <= 1 && figure.p99 <= 10,
        });
      }
    }
  }
  return rows;
}

/** `npm run bench --only prepare-speed`: the 30K window (quick: the first transcripts). */
export function run(options: BenchRunOptions): Promise<BenchRow[]> {
  return measurePrepareSpeed({ ...options, windows: [30_000], peer: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const windowIndex = process.argv.indexOf('--window');
  const quick = process.argv.includes('--quick');
  const windows = windowIndex === -1 ? (quick ? [30_000] : [30_000, 100_000]) : [Number(process.argv[windowIndex + 1])];
  await measurePrepareSpeed({ quick, windows, peer: !process.argv.includes('--no-peer') });
}
