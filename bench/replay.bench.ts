/**
 * `agent-context replay` and `agent-context eval` on a 1 MB transcript (issue 10), whole
 * processes as a user runs them, offline (extractive summaries), against `agent-context count`
 * on the same file in the same run: reading, parsing and tokenizing the transcript once, which
 * every command pays. Needs the built CLI (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSampleSession } from '../src/cli/sample/load-sample.js';
import type { ContentBlock, Message } from '../src/core/types.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'Replay and eval (issue 10)';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/index.js');
const TARGET_BYTES = 1_000_000;
/** Small enough that the manager compacts the 1 MB session a few times. */
const REPLAY_WINDOW = '8000';

/** Renames the tool ids of one copy of the sample, so repeated copies stay distinct calls. */
function renameIds(messages: readonly Message[], copy: number): Message[] {
  const rename = (block: ContentBlock): ContentBlock => {
    if (block.type === 'tool_use' && 'id' in block) return { ...block, id: `${String(block.id)}_${copy}` } as ContentBlock;
    if (block.type === 'tool_result' && 'tool_use_id' in block) return { ...block, tool_use_id: `${String(block.tool_use_id)}_${copy}` } as ContentBlock;
    return block;
  };
  return messages.map((message) => (typeof message.content === 'string' ? message : { ...message, content: message.content.map(rename) }));
}

/** The demo's sample session, repeated (system prompt once) until the JSON reaches 1 MB. */
async function buildOneMegabyteTranscript(): Promise<string> {
  const [system, ...rest] = (await loadSampleSession()).messages;
  const messages: Message[] = system === undefined ? [] : [system];
  for (let copy = 0; JSON.stringify(messages).length < TARGET_BYTES; copy += 1) messages.push(...renameIds(rest, copy));
  return JSON.stringify(messages);
}

/** Runs the CLI `runs` times and returns the median wall time in ms, and the last run's stdout. */
function measureCli(args: readonly string[], runs: number, temporaryDirectory: string): { medianMs: number; stdout: string } {
  const times: number[] = [];
  let stdout = '';
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', TMPDIR: temporaryDirectory } });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`agent-context ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
    stdout = result.stdout;
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN, stdout };
}

/** Measures replay and eval on a 1 MB transcript against count on the same file. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  if (!existsSync(CLI)) {
    console.log(`(skipping the replay benchmark: ${CLI} is missing; run npm run build first)`);
    return [];
  }
  const directory = await mkdtemp(join(tmpdir(), 'agent-context-bench-replay-'));
  try {
    const transcript = await buildOneMegabyteTranscript();
    const file = join(directory, 'one-mb.json');
    await writeFile(file, transcript);
    const runs = options.quick ? 3 : 9;
    const size = `${(transcript.length / 1e6).toFixed(2)} MB JSON`;
    // one warm-up of each, so the disk cache treats them alike
    for (const args of [['count', file], ['replay', file, '--window', REPLAY_WINDOW, '--json'], ['eval', file, '--json']]) measureCli(args, 1, directory);
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
