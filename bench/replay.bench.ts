/**
 * `agent-context replay` and `agent-context eval` on a 1 MB transcript, whole
 * processes as a user runs them, offline (extractive summaries), against `agent-context count`
 * on the same file in the same run: reading, parsing and tokenizing the transcript once, which
 * every command pays. Needs the built CLI (`npm run build`).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOneMegabyteHistory, CLI, timeProcessRuns } from './cli-process.js';
import type { TimedRuns } from './cli-process.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'Replay and eval';

/** Small enough that the manager compacts the 1 MB session a few times. */
const REPLAY_WINDOW = '8000';

/** Runs the CLI `runs` times, its temporary directories (the run directories) under `temporaryDirectory`. */
function measureCli(args: readonly string[], runs: number, temporaryDirectory: string): TimedRuns {
  return timeProcessRuns(process.execPath, [CLI, ...args], runs, { TMPDIR: temporaryDirectory });
}

/** Measures replay and eval on a 1 MB transcript against count on the same file. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  if (!existsSync(CLI)) {
    console.log(`(skipping the replay benchmark: ${CLI} is missing; run npm run build first)`);
    return [];
  }
  const directory = await mkdtemp(join(tmpdir(), 'agent-context-bench-replay-'));
  try {
    const transcript = JSON.stringify(await buildOneMegabyteHistory());
    const file = join(directory, 'one-mb.json');
    await writeFile(file, transcript);
    const runs = options.quick ? 3 : 9;
    const size = `${(transcript.length / 1e6).toFixed(2)} MB JSON`;
    // one warm-up of each, so the disk cache treats them alike
    for (const args of [
      ['count', file],
      ['replay', file, '--window', REPLAY_WINDOW, '--json'],
      ['eval', file, '--json'],
    ])
      measureCli(args, 1, directory);
    const count = measureCli(['count', file], runs, directory);
    const replay = measureCli(['replay', file, '--window', REPLAY_WINDOW, '--json'], runs, directory);
    const evaluation = measureCli(['eval', file, '--json'], runs, directory);
    const replayTotals = (JSON.parse(replay.stdout) as { totals: { requests: number; compactions: number } }).totals;
    const baseline = { name: 'agent-context count, same file', medianMs: count.medianMs };
    return [
      {
        name: `agent-context replay --window ${REPLAY_WINDOW}, whole process, ${size}, offline summaries (${runs} runs)`,
        medianMs: replay.medianMs,
        baseline,
        extra: `${replayTotals.requests} requests, ${replayTotals.compactions} compactions`,
        goal: '< 5 s',
        met: replay.medianMs < 5000,
      },
      {
        name: `agent-context eval, whole process, ${size}, offline summary (${runs} runs)`,
        medianMs: evaluation.medianMs,
        baseline,
        goal: '< 2 s',
        met: evaluation.medianMs < 2000,
      },
    ];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
