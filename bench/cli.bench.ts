/**
 * Command-line benchmark: the whole `agent-context count` process on a 1 MB
 * transcript, against the floor measured in the same run: a Node process that reads the same
 * file, loads gpt-tokenizer and counts the file's text once. Both are spawned as real
 * processes, so the figures include Node's start-up, as a user sees them. Needs the built CLI
 * (`npm run build`).
 *
 * Formats: the same history as OpenAI Chat Completions messages, against the
 * Anthropic file in the same run: what detecting and converting the format costs a user. (The
 * Chat file can come out faster: each tool message holds one result, so a message's count and
 * its result's count are the same text and the tokenizer's cache serves the second.)
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formats } from '../src/formats/index.js';
import { buildOneMegabyteHistory, CLI, timeProcessRuns } from './cli-process.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'Command line';

const FLOOR_SCRIPT = `
const { readFileSync } = require('node:fs');
const text = readFileSync(process.argv[1], 'utf8');
const { countTokens } = require('gpt-tokenizer/cjs/encoding/o200k_base');
process.stdout.write(String(countTokens(text, { disallowedSpecial: new Set() })));
`;

/** The median wall time of `runs` runs, in ms. */
function medianWallTimeMs(command: string, args: readonly string[], runs: number): number {
  return timeProcessRuns(command, args, runs).medianMs;
}

/** Measures `agent-context count` on a 1 MB transcript against the floor. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  if (!existsSync(CLI)) {
    console.log(`(skipping the command-line benchmark: ${CLI} is missing; run npm run build first)`);
    return [];
  }
  const directory = await mkdtemp(join(tmpdir(), 'agent-context-bench-'));
  try {
    const history = await buildOneMegabyteHistory();
    const transcript = JSON.stringify(history);
    const file = join(directory, 'one-mb.json');
    await writeFile(file, transcript);
    const chatFile = join(directory, 'one-mb-openai-chat.json');
    await writeFile(chatFile, JSON.stringify(formats.openaiChat.fromCanonical(history)));
    const runs = options.quick ? 3 : 15;
    // Interleave one warm-up of each so the disk cache treats both alike.
    medianWallTimeMs(process.execPath, [CLI, 'count', file], 1);
    medianWallTimeMs(process.execPath, ['-e', FLOOR_SCRIPT, file], 1);
    medianWallTimeMs(process.execPath, [CLI, 'count', chatFile], 1);
    const countMs = medianWallTimeMs(process.execPath, [CLI, 'count', file], runs);
    const floorMs = medianWallTimeMs(process.execPath, ['-e', FLOOR_SCRIPT, file], runs);
    const chatCountMs = medianWallTimeMs(process.execPath, [CLI, 'count', chatFile], runs);
    return [
      {
        name: `agent-context count, whole process, ${(transcript.length / 1e6).toFixed(2)} MB JSON (${runs} runs)`,
        medianMs: countMs,
        baseline: { name: 'node: read + load gpt-tokenizer + count the text once', medianMs: floorMs },
        goal: '<= 1 s',
        met: countMs <= 1000,
      },
      {
        name: `agent-context count, the same history as OpenAI Chat Completions messages (${runs} runs)`,
        medianMs: chatCountMs,
        baseline: { name: 'agent-context count on the Anthropic file', medianMs: countMs },
        goal: '<= 1.2x the Anthropic file',
        met: chatCountMs <= countMs * 1.2,
      },
    ];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
