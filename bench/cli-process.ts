/**
 * What the command-line benchmarks share: the built CLI, a 1 MB session made of the demo's
 * sample, and the median wall time of a whole process (Node's start-up included, as a user
 * sees it).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSampleSession } from '../src/cli/sample/load-sample.js';
import type { ContentBlock, Message } from '../src/core/types.js';

/** The repository root, the working directory of every process run. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built CLI (`npm run build`). */
export const CLI = join(ROOT, 'dist/cli/index.js');

const TARGET_BYTES = 1_000_000;

/** Renames the tool ids of one copy of the sample, so repeated copies stay distinct calls. */
export function renameIds(messages: readonly Message[], copy: number): Message[] {
  const rename = (block: ContentBlock): ContentBlock => {
    if (block.type === 'tool_use' && 'id' in block)
      return { ...block, id: `${String(block.id)}_${copy}` } as ContentBlock;
    if (block.type === 'tool_result' && 'tool_use_id' in block)
      return { ...block, tool_use_id: `${String(block.tool_use_id)}_${copy}` } as ContentBlock;
    return block;
  };
  return messages.map((message) =>
    typeof message.content === 'string' ? message : { ...message, content: message.content.map(rename) },
  );
}

/** The demo's sample session, repeated (system prompt once) until its JSON reaches 1 MB. */
export async function buildOneMegabyteHistory(): Promise<Message[]> {
  const [system, ...rest] = (await loadSampleSession()).messages;
  const messages: Message[] = system === undefined ? [] : [system];
  for (let copy = 0; JSON.stringify(messages).length < TARGET_BYTES; copy += 1) messages.push(...renameIds(rest, copy));
  return messages;
}

/** A timed command: its median wall time and the last run's standard output. */
export interface TimedRuns {
  medianMs: number;
  stdout: string;
}

/**
 * Runs `command` `runs` times (colours off, `env` added to the environment).
 *
 * @throws when a run exits with a status other than 0, with its stderr.
 */
export function timeProcessRuns(
  command: string,
  args: readonly string[],
  runs: number,
  env: Readonly<Record<string, string>> = {},
): TimedRuns {
  const times: number[] = [];
  let stdout = '';
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = spawnSync(command, args, {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    times.push(performance.now() - started);
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
    stdout = result.stdout;
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN, stdout };
}
