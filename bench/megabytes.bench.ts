/**
 * Megabytes of base64 in a message, which nothing may offload (a user's pasted image): counting
 * must stay linear in the length, and a `prepare` that counts it must not hold the event loop.
 *
 * 1. The default counter on 1, 2 and 8 MiB of random base64 (8 MiB in the full run only), in
 *    ms per MiB, against the counter as it was: the same pieces through gpt-tokenizer's shared
 *    encoding and its merge cache, which once full slowed every count with what was counted
 *    before it (2 MiB took ~10 s and 8 MiB ~60 s, so that baseline is measured once, on 1 and
 *    2 MiB, and on 1 MiB only in the quick run).
 * 2. A new manager's `prepare` of a history whose user message holds 1 MiB of base64 (it is
 *    over the trigger: the manager counts it, then compacts it with the extractive summarizer),
 *    with the longest stall of the event loop during it, seen by a 1 ms interval timer and by
 *    `monitorEventLoopDelay`.
 * 3. The same `prepare` with an LLM summarizer over a local fake provider: sizing the summary
 *    prompts counts the message too, and must not hold the loop either.
 * Between 1 and 2, 1 MiB of each of the slowest texts to count (no pre-token end for hundreds
 * of characters: random letters, CJK, Cyrillic, emoji, punctuation).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { createContextManager } from '../src/api/context-manager.js';
import type { LlmClient } from '../src/core/ports.js';
import { createAnthropicLlmClient } from '../src/infrastructure/anthropic-client.js';
import { forEachPiece, MAX_COUNTED_PIECE_CHARS } from '../src/core/text/text-pieces.js';
import type { Message } from '../src/core/types.js';
import { countTextTokens, forgetRememberedCounts, preloadTokenizer } from '../src/infrastructure/tokenizer.js';
import { createRandom } from '../tests/fixtures/random.js';
import { anthropicMessage, startFakeProviderServer } from '../tests/fixtures/scripted-llm-server.js';
import { computeMedian, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Megabytes of base64 (linear counting, the event loop kept running)';

const MIB = 1024 * 1024;
const GOAL_MS_PER_MIB = 1000;
const GOAL_STALL_MS = 100;

const require = createRequire(import.meta.url);
const shared = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  clearMergeCache(): void;
};
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** `mebibytes` MiB of random base64 (seeded). */
function buildBase64(mebibytes: number, seed: number): string {
  const random = createRandom(seed);
  const bytes = Buffer.alloc((mebibytes * MIB * 3) / 4);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(random() * 256);
  return bytes.toString('base64');
}

/**
 * About `mebibytes` MiB (UTF-8) of text with no pre-token end for hundreds of characters: random
 * code points drawn from `alphabet`, with no space or punctuation between them.
 */
function buildUnbroken(alphabet: readonly string[], mebibytes: number, seed: number): string {
  const random = createRandom(seed);
  const bytesPerChar = Buffer.byteLength(alphabet[0] ?? 'a');
  const characters: string[] = [];
  for (let index = 0; index < (mebibytes * MIB) / bytesPerChar; index += 1) {
    characters.push(alphabet[Math.floor(random() * alphabet.length)] ?? 'a');
  }
  return characters.join('');
}

function codePointRange(first: number, last: number): string[] {
  return Array.from({ length: last - first + 1 }, (_, offset) => String.fromCodePoint(first + offset));
}

/** The slowest texts to count: one long pre-token after another. */
const UNBROKEN_TEXTS: ReadonlyArray<[label: string, alphabet: readonly string[]]> = [
  ['random lowercase letters, no spaces', codePointRange(0x61, 0x7a)],
  ['random CJK, no punctuation', codePointRange(0x4e00, 0x9fff)],
  ['random Cyrillic, no spaces', codePointRange(0x430, 0x44f)],
  ['random emoji', codePointRange(0x1f600, 0x1f64f)],
  ['random ASCII punctuation', [...'!"#$%&()*+,-.:;<=>?@[]^_`{|}~']],
];

/** The counter before: the same pieces, through the library's shared encoding and its merge cache. */
function countAsBefore(text: string): number {
  shared.clearMergeCache();
  let total = 0;
  forEachPiece(text, MAX_COUNTED_PIECE_CHARS, (piece) => {
    total += shared.countTokens(piece, NO_SPECIAL);
  });
  return total;
}

/** Wall and CPU time of one run, in ms (CPU time says what a shared machine's wall time hides). */
function timeOnce(run: () => unknown): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  run();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** A new manager's `prepare` of `history` in a fresh directory: its time, and the longest stalls seen during it. */
async function measurePrepare(
  history: Message[],
  root: string,
  run: number,
  llmClient?: LlmClient,
): Promise<{ ms: number; cpuMs: number; intervalStallMs: number; monitorStallMs: number }> {
  const manager = createContextManager({
    outputDir: join(root, `run-${run}`),
    logger: { warn: () => undefined },
    ...(llmClient === undefined ? {} : { llmClient, compaction: { summary: { model: 'claude-test' } } }),
  });
  const monitor = monitorEventLoopDelay({ resolution: 5 });
  let last = performance.now();
  let intervalStallMs = 0;
  const interval = setInterval(() => {
    const now = performance.now();
    intervalStallMs = Math.max(intervalStallMs, now - last);
    last = now;
  }, 1);
  monitor.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  last = started;
  await manager.prepare(history);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  monitor.disable();
  clearInterval(interval);
  intervalStallMs = Math.max(intervalStallMs, performance.now() - last);
  return { ms, cpuMs: (used.user + used.system) / 1000, intervalStallMs, monitorStallMs: monitor.max / 1e6 };
}

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  preloadTokenizer();
  countAsBefore('load the shared encoding');
  const rows: BenchRow[] = [];

  // 1. counting, ms per MiB
  for (const mebibytes of options.quick ? [1, 2] : [1, 2, 8]) {
    const text = buildBase64(mebibytes, 40 + mebibytes);
    const samples: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let round = 0; round < (mebibytes === 1 && !options.quick ? 3 : 1); round += 1) {
      forgetRememberedCounts();
      samples.push(timeOnce(() => countTextTokens(text)));
    }
    const msPerMib = computeMedian(samples.map((sample) => sample.wallMs)) / mebibytes;
    const cpuMsPerMib = computeMedian(samples.map((sample) => sample.cpuMs)) / mebibytes;
    // the counter before takes ~10 s on 2 MiB: the quick run measures it on 1 MiB only
    const before = mebibytes <= (options.quick ? 1 : 2) ? timeOnce(() => countAsBefore(text)) : undefined;
    const beforeFigures =
      before === undefined
        ? `before: ${mebibytes === 2 ? '~3 s CPU per MiB' : 'over 4 s CPU per MiB'}, not run`
        : `before: ${(before.cpuMs / mebibytes).toFixed(0)} ms CPU per MiB`;
    rows.push({
      name: `countTextTokens, ${mebibytes} MiB of random base64, per MiB`,
      medianMs: msPerMib,
      ...(before === undefined
        ? {}
        : {
            baseline: {
              name: 'the counter before (the library merge cache), once',
              medianMs: before.wallMs / mebibytes,
            },
          }),
      extra: `${cpuMsPerMib.toFixed(0)} ms CPU per MiB; ${countTextTokens(text).toLocaleString('en-US')} tokens; ${beforeFigures}`,
      goal: `<= ${GOAL_MS_PER_MIB} ms CPU per MiB`,
      met: cpuMsPerMib <= GOAL_MS_PER_MIB,
    });
  }

  // 1b. the slowest texts: no pre-token end for hundreds of characters
  for (const [label, alphabet] of UNBROKEN_TEXTS) {
    const text = buildUnbroken(alphabet, 1, 60);
    forgetRememberedCounts();
    const once = timeOnce(() => countTextTokens(text));
    rows.push({
      name: `countTextTokens, 1 MiB of ${label}`,
      medianMs: once.wallMs,
      extra: `${once.cpuMs.toFixed(0)} ms CPU; ${text.length.toLocaleString('en-US')} characters, ${countTextTokens(text).toLocaleString('en-US')} tokens`,
      goal: `<= ${GOAL_MS_PER_MIB} ms CPU per MiB`,
      met: once.cpuMs <= GOAL_MS_PER_MIB,
    });
  }

  // 2. prepare of a 1 MiB base64 user message, and the longest stall during it
  const root = await mkdtemp(join(tmpdir(), 'aco-bench-megabytes-'));
  try {
    const blob = buildBase64(1, 50);
    const rounds = options.quick ? 1 : 3;
    const results = [];
    for (let round = 0; round < rounds; round += 1) {
      forgetRememberedCounts();
      // new message objects each round: nothing is counted from a cache
      const history: Message[] = [{ role: 'user', content: `Here is the screenshot, base64:\n${blob}` }];
      results.push(await measurePrepare(history, root, round));
    }
    const ms = computeMedian(results.map((result) => result.ms));
    const cpuMs = computeMedian(results.map((result) => result.cpuMs));
    const stallMs = Math.max(...results.map((result) => result.intervalStallMs));
    const monitorMs = Math.max(...results.map((result) => result.monitorStallMs));
    rows.push({
      name: 'prepare of a 1 MiB base64 user message (new manager; counted, then compacted)',
      medianMs: ms,
      // a stall is wall time: on a shared machine the OS's pauses of the process are in it
      extra: `${cpuMs.toFixed(0)} ms CPU; longest event-loop stall: ${stallMs.toFixed(0)} ms (1 ms interval), ${monitorMs.toFixed(0)} ms (monitorEventLoopDelay), load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores; before: 7.7 s CPU, an 8 s stall`,
      goal: `<= ${GOAL_MS_PER_MIB} ms CPU; no stall over ${GOAL_STALL_MS} ms`,
      met: cpuMs <= GOAL_MS_PER_MIB && stallMs <= GOAL_STALL_MS,
    });

    // 3. the same with an LLM summarizer (a local fake provider): its prompts are sized too
    const server = await startFakeProviderServer();
    try {
      const sdk = new Anthropic({ apiKey: 'sk-ant-bench', baseURL: server.origin, maxRetries: 0 });
      const llmClient = await createAnthropicLlmClient({ client: sdk });
      const llmResults = [];
      for (let round = 0; round < rounds; round += 1) {
        forgetRememberedCounts();
        server.enqueue('/v1/messages', anthropicMessage('## Task Status\nA screenshot was pasted.'));
        const history: Message[] = [
          { role: 'user', content: `Here is the screenshot, base64:\n${blob}` },
          { role: 'assistant', content: 'I have it.' },
          { role: 'user', content: 'Describe it.' },
        ];
        llmResults.push(await measurePrepare(history, root, 100 + round, llmClient));
      }
      const llmCpuMs = computeMedian(llmResults.map((result) => result.cpuMs));
      const llmStallMs = Math.max(...llmResults.map((result) => result.intervalStallMs));
      rows.push({
        name: 'prepare of a 1 MiB base64 user message, summarized by an LLM (local fake provider)',
        medianMs: computeMedian(llmResults.map((result) => result.ms)),
        extra: `${llmCpuMs.toFixed(0)} ms CPU; longest event-loop stall: ${llmStallMs.toFixed(0)} ms (1 ms interval), ${Math.max(...llmResults.map((result) => result.monitorStallMs)).toFixed(0)} ms (monitorEventLoopDelay); before: 3.4 s CPU, a 2.6 s stall while the summary prompt was sized`,
        goal: `no stall over ${GOAL_STALL_MS} ms`,
        met: llmStallMs <= GOAL_STALL_MS,
      });
    } finally {
      await server.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}
