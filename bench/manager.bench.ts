/**
 * Context manager benchmarks: `prepare` with nothing to do on a 2,000-message history it has
 * already seen (goal: <= 1 ms; baseline in the same run: `countTokens` of the same, cached,
 * history); `prepare` whose work is a batch offload (goal: <= 1.3x `offloadToolResults` alone on
 * the same history, each into a fresh directory, interleaved); a new manager's `prepare` of
 * 2,000 real messages rebuilt from JSON whose decisions are all in the store (goal: <= 1.5x
 * `JSON.parse` of the same history); and a transcript replayed with a new manager per request
 * against one manager (goal: the same summarizer calls and prefix changes).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextManager } from '../src/api/context-manager.js';
import { offloadToolResults } from '../src/api/offload.js';
import { countTokens } from '../src/api/tokens.js';
import type { ContextOffloadAction } from '../src/core/manage/types.js';
import type { Message } from '../src/core/types.js';
import { buildHistory } from './offload.bench.js';
import { computeMedian, measureInterleaved, measureMedians, type BenchRow, type BenchRunOptions } from './report.js';
import { compareReplays, loadSampleTranscript } from './session-replay.js';

export const title = 'Context manager';

/** Real messages: the sample transcript repeated (tool ids renamed per copy), cut at 2,000 messages. */
async function loadRealMessages(count: number): Promise<Message[]> {
  return (await loadSampleTranscript(Math.ceil(count / 30) + 1)).slice(0, count);
}

/**
 * A new manager's `prepare` of `text` parsed (the parse not timed) against `JSON.parse(text)`,
 * interleaved, over a store whose records explain the history: medians in ms.
 */
async function measureColdPrepare(
  text: string,
  outputDir: string,
  rounds: number,
): Promise<{ prepareMs: number; parseMs: number }> {
  const prepare: number[] = [];
  const parse: number[] = [];
  for (let round = -2; round < rounds; round += 1) {
    let started = performance.now();
    JSON.parse(text);
    const parseMs = performance.now() - started;
    const messages = JSON.parse(text) as Message[];
    started = performance.now();
    const result = await createContextManager({ outputDir, logger: silent }).prepare(messages);
    const prepareMs = performance.now() - started;
    if (result.actions.length > 0)
      throw new Error(`expected nothing new, got ${JSON.stringify(result.actions.map((action) => action.type))}`);
    if (round < 0) continue;
    parse.push(parseMs);
    prepare.push(prepareMs);
  }
  return { prepareMs: computeMedian(prepare), parseMs: computeMedian(parse) };
}

const silent = { warn: () => undefined };

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'aco-bench-manager-'));
  try {
    const { messages } = buildHistory();
    let directoryIndex = 0;
    const freshDirectory = (): string => join(root, `run-${directoryIndex++}`);

    // --- nothing to do: the manager has seen all 2,000 messages (its first call offloaded the 200 large results)
    const manager = createContextManager({ outputDir: freshDirectory(), logger: silent });
    const first = await manager.prepare(messages);
    const seen = first.messages;
    const again = await manager.prepare(seen);
    if (again.actions.length !== 0 || again.messages.some((message, index) => message !== seen[index])) {
      throw new Error(`expected nothing to do on a seen history, got ${JSON.stringify(again.actions)}`);
    }
    const usage = { inputTokens: first.stats.tokensAfter, messageCount: seen.length };
    const idle = await measureMedians(
      {
        'countTokens (cached)': () => countTokens(seen),
        'prepare, nothing to do': () => manager.prepare(seen),
        'prepare, nothing to do, with lastUsage': () => manager.prepare(seen, { lastUsage: usage }),
      },
      { ...options, iterations: 500 },
    );

    // --- a batch offload: the gate passes on the same 200 large results (offloaded on arrival, direct offload held back by its threshold)
    const batchOptions = { offload: { timing: 'on-arrival' as const, directThreshold: 1_000_000 }, logger: silent };
    const check = await createContextManager({ ...batchOptions, outputDir: freshDirectory() }).prepare(messages);
    const batchAction = check.actions.find((action): action is ContextOffloadAction => action.type === 'batch-offload');
    if (batchAction === undefined || batchAction.toolCallIds.length !== 200) {
      throw new Error(
        `expected one batch offload of 200 results, got ${JSON.stringify(check.actions.map((action) => action.type))}`,
      );
    }
    const offloadAlone = 'offloadToolResults alone';
    const prepareBatch = 'prepare (batch offload)';
    const batch = await measureInterleaved(
      {
        [offloadAlone]: async () => {
          await offloadToolResults(messages, { outputDir: freshDirectory() });
        },
        [prepareBatch]: async () => {
          await createContextManager({ ...batchOptions, outputDir: freshDirectory() }).prepare(messages);
        },
      },
      options.quick ? 5 : 40,
    );

    // --- a new manager, 2,000 real messages rebuilt from JSON, every decision already in the store
    const real = await loadRealMessages(2000);
    const realText = JSON.stringify(real);
    const realDirectory = freshDirectory();
    await createContextManager({ outputDir: realDirectory, logger: silent }).prepare(real);
    const rounds = options.quick ? 3 : 15;
    const coldRaw = await measureColdPrepare(realText, realDirectory, rounds);
    // the history the other rows use: 2,000 small messages, 200 large results offloaded, never compacted
    const syntheticDirectory = freshDirectory();
    await createContextManager({ outputDir: syntheticDirectory, logger: silent }).prepare(messages);
    const coldSynthetic = await measureColdPrepare(JSON.stringify(messages), syntheticDirectory, rounds);

    // --- a transcript replayed: one manager against a new manager per request
    const transcript = await loadSampleTranscript(options.quick ? 2 : 8);
    const replays = await compareReplays(transcript, 12_000);
    const stateful = replays['one manager'];
    const stateless = replays['a new manager per request'];

    const idleMedian = idle['prepare, nothing to do']!;
    const idleUsageMedian = idle['prepare, nothing to do, with lastUsage']!;
    const countMedian = idle['countTokens (cached)']!;
    const history = `${messages.length} messages seen before`;
    return [
      {
        name: 'prepare with nothing to do',
        medianMs: idleMedian,
        baseline: { name: 'countTokens of the same history (cached)', medianMs: countMedian },
        extra: history,
        goal: '<= 1 ms',
        met: idleMedian <= 1,
      },
      {
        name: 'prepare with nothing to do, with lastUsage',
        medianMs: idleUsageMedian,
        baseline: { name: 'countTokens of the same history (cached)', medianMs: countMedian },
        extra: history,
        goal: '<= 1 ms',
        met: idleUsageMedian <= 1,
      },
      {
        name: 'prepare whose work is a batch offload',
        medianMs: batch[prepareBatch]!,
        baseline: { name: 'offloadToolResults on the same history', medianMs: batch[offloadAlone]! },
        extra: `200 x 4,500 chars offloaded, fresh dir per run, the session's count record written; median of ${options.quick ? 5 : 40} interleaved runs`,
        goal: '<= 1.3x offloadToolResults',
        met: batch[prepareBatch]! <= 1.3 * batch[offloadAlone]!,
      },
      {
        name: 'a new manager, 2,000 real messages rebuilt from JSON (the raw history), nothing new',
        medianMs: coldRaw.prepareMs,
        baseline: { name: 'JSON.parse of the same history', medianMs: coldRaw.parseMs },
        extra: `${(realText.length / 1e6).toFixed(1)} MB JSON; a listing, the compaction record, every large result hashed for its name`,
        goal: '<= 1.5x JSON.parse',
        met: coldRaw.prepareMs <= 1.5 * coldRaw.parseMs,
      },
      {
        name: 'a new manager, 2,000 small messages rebuilt from JSON (the raw history), nothing new',
        medianMs: coldSynthetic.prepareMs,
        baseline: { name: 'JSON.parse of the same history', medianMs: coldSynthetic.parseMs },
        extra: `${messages.length} messages, 200 large results: a listing, the count record, every large result hashed for its name`,
        goal: '<= 1.5x JSON.parse',
        met: coldSynthetic.prepareMs <= 1.5 * coldSynthetic.parseMs,
      },
      {
        name: `replay of ${stateless.requests} requests, a new manager per request (12,000-token window)`,
        medianMs: stateless.elapsedMs,
        baseline: { name: 'the same replay through one manager', medianMs: stateful.elapsedMs },
        extra: `summarizer calls ${stateless.summarizerCalls} vs ${stateful.summarizerCalls}, prefix changes ${stateless.prefixChanges} vs ${stateful.prefixChanges}`,
        goal: 'same summarizer calls and prefix changes',
        met:
          stateless.summarizerCalls === stateful.summarizerCalls && stateless.prefixChanges === stateful.prefixChanges,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
