/**
 * Context manager benchmarks (issue 9): `prepare` with nothing to do on a 2,000-message history
 * it has already seen (goal: <= 1 ms; baseline in the same run: `countTokens` of the same,
 * cached, history), and `prepare` whose work is a batch offload (goal: <= 1.3x
 * `offloadToolResults` alone on the same history, each into a fresh directory, interleaved).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextManager } from '../src/api/context-manager.js';
import { offloadToolResults } from '../src/api/offload.js';
import { countTokens } from '../src/api/tokens.js';
import type { ContextOffloadAction } from '../src/core/manage/types.js';
import { buildHistory } from './offload.bench.js';
import { measureInterleaved, measureMedians, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Context manager (issue 9)';

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

    // --- a batch offload: the gate passes on the same 200 large results (direct offload held back by its threshold)
    const batchOptions = { threshold: 1_000_000, logger: silent };
    const check = await createContextManager({ ...batchOptions, outputDir: freshDirectory() }).prepare(messages);
    const batchAction = check.actions.find((action): action is ContextOffloadAction => action.type === 'batch-offload');
    if (batchAction === undefined || batchAction.toolCallIds.length !== 200) {
      throw new Error(`expected one batch offload of 200 results, got ${JSON.stringify(check.actions.map((action) => action.type))}`);
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
        extra: `200 x 4,500 chars offloaded, fresh dir per run; median of ${options.quick ? 5 : 40} interleaved runs`,
        goal: '<= 1.3x offloadToolResults',
        met: batch[prepareBatch]! <= 1.3 * batch[offloadAlone]!,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
