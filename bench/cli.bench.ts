/**
 * Command-line benchmark (issue 4): the whole `agent-context count` process on a 1 MB
 * transcript, against the floor measured in the same run: a Node process that reads the same
 * file, loads gpt-tokenizer and counts the file's text once. Both are spawned as real
 * processes, so the figures include Node's start-up, as a user sees them. Needs the built CLI
 * (`npm run build`).
 *
 * Formats (issue 8): the same history as OpenAI Chat Completions messages, against the
 * Anthropic file in the same run: what detecting and converting the format costs a user. (The
 * Chat file can come out faster: each tool message holds one result, so a message's count and
 * its result's count are the same text and the tokenizer's cache serves the second.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSampleSession } from '../src/cli/sample/load-sample.js';
import { formats } from '../src/formats/index.js';
import type { ContentBlock, Message } from '../src/core/types.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'Command line (issue 4)';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist/cli/index.js');
const TARGET_BYTES = 1_000_000;

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
async function buildOneMegabyteHistory(): Promise<Message[]> {
  const [system, ...rest] = (await loadSampleSession()).messages;
  const messages: Message[] = system === undefined ? [] : [system];
  for (let copy = 0; JSON.stringify(messages).length < TARGET_BYTES; copy += 1) messages.push(...renameIds(rest, copy));
  return messages;
}

const FLOOR_SCRIPT = `
const { readFileSync } = require('node:fs');
const text = readFileSync(process.argv[1], 'utf8');
const { countTokens } = require('gpt-tokenizer/cjs/encoding/o200k_base');
process.stdout.write(String(countTokens(text, { disallowedSpecial: new Set() })));
`;

/** Runs a command `runs` times and returns the median wall time in ms. */
function medianWallTimeMs(command: string, args: readonly string[], runs: number): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(result.status)}: ${result.stderr}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
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
