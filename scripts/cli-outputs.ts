/**
 * The command outputs the docs quote, run on the demo's sample session with the built CLI and
 * written between `<!-- cli-output:ID -->` and `<!-- /cli-output:ID -->`, so a quote is what
 * the build prints. `generate-cli-outputs.ts` (`npm run docs:outputs`) rewrites the pages; a
 * test compares them.
 *
 * The figures depend on the paths a command prints (a summary names its archive, and a path's
 * characters count as tokens), so every run uses the same ones: the commands' temporary folders
 * are `/tmp/agent-context-<command>-XXXXXX` (fixed-temp-names.mjs), made and removed by one run
 * at a time. The one thing still changing, the time in an archive's name, is written one fixed way.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readMarkedBlocks } from './marked-blocks.js';

/** The built command line every output comes from. */
export const CLI_PATH = new URL('../dist/cli/index.js', import.meta.url).pathname;
const FIXED_TEMP_NAMES = new URL('./fixed-temp-names.mjs', import.meta.url).href;
/** Where the commands make their temporary folders: the same path on every machine. */
const TEMP_ROOT = '/tmp';
/** The folders the commands make there. */
const TEMP_FOLDERS = ['demo', 'replay', 'eval'].map((command) => join(TEMP_ROOT, `agent-context-${command}-XXXXXX`));
/** The demo's folder: it writes the sample the other commands read, and they run in it. */
const DEMO_FOLDER = TEMP_FOLDERS[0]!;
/** A run of another process holds the folders at most this long; older ones are leftovers of a killed run. */
const LEFTOVER_AGE_MS = 10 * 60 * 1000;

/** One quoted output: where it goes, the command, and the part of what it prints that is shown. */
export interface CliOutput {
  /** Names the block in its markers. */
  id: string;
  /** The page holding it, relative to the repository root. */
  page: string;
  /** The arguments, run in the demo's folder (it holds `sample-session.json`). */
  args: readonly string[];
  /** Shown as `$ agent-context <args>` on the first line. */
  showCommand: boolean;
  /** The lines shown, from the whole output (stdout, then stderr). @default all */
  select?: (lines: readonly string[]) => string[];
}

/** Lines from the first that starts with `from` up to, not including, the first after it that starts with `to`; trailing blank lines dropped. */
function selectBetween(from: string, to: string): (lines: readonly string[]) => string[] {
  return (lines) => {
    const start = lines.findIndex((line) => line.startsWith(from));
    const end = lines.findIndex((line, index) => index > start && line.startsWith(to));
    const selected = lines.slice(start, end === -1 ? undefined : end);
    while (selected.length > 0 && selected.at(-1)!.trim() === '') selected.pop();
    return selected;
  };
}

/** Every quoted output, in the order they run: the demo first, as it writes the sample the others read. */
export const CLI_OUTPUTS: readonly CliOutput[] = [
  {
    id: 'demo-steps',
    page: 'docs/cli.md',
    args: ['demo'],
    showCommand: false,
    select: selectBetween('2. offload', '5. count'),
  },
  { id: 'count-sample', page: 'docs/cli.md', args: ['count', 'sample-session.json'], showCommand: false },
  {
    id: 'replay-sample',
    page: 'docs/replay-and-eval.md',
    args: ['replay', 'sample-session.json', '--window', '2500', '--html', 'replay.html'],
    showCommand: true,
  },
  { id: 'eval-sample', page: 'docs/replay-and-eval.md', args: ['eval', 'sample-session.json'], showCommand: true },
];

/** The pages holding quoted outputs. */
export const CLI_OUTPUT_PAGES: readonly string[] = [...new Set(CLI_OUTPUTS.map((output) => output.page))];

/** `text` with an archive's time written one fixed way: `compact-2026-11-22T00-57-30Z-1.json`. */
export function normalizeOutput(text: string): string {
  return text.replace(/compact-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-/g, 'compact-2026-11-22T00-57-30Z-');
}

/** Waits (up to a minute) while another run holds the temporary folders; removes a killed run's leftovers. */
function claimTempFolders(): void {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const held = TEMP_FOLDERS.filter((folder) => existsSync(folder));
    if (held.length === 0) return;
    const isLeftover = held.every((folder) => Date.now() - statSync(folder).mtimeMs > LEFTOVER_AGE_MS);
    if (isLeftover || Date.now() > deadline) {
      for (const folder of held) rmSync(folder, { recursive: true, force: true });
      return;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}

/** Runs `node` with `args` and collects what it prints; a child process, so the caller's event loop keeps turning. */
function runNode(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs every command of {@link CLI_OUTPUTS} with the built CLI; the shown text of each, by id. */
export async function produceCliOutputs(): Promise<Map<string, string>> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first`);
  if (process.platform === 'win32')
    throw new Error('docs:outputs runs the commands with their temporary folders in /tmp: run it on Linux or macOS');
  claimTempFolders();
  // nothing from the caller's environment (thresholds, keys, colour) reaches the commands
  const env = { PATH: process.env.PATH ?? '', HOME: TEMP_ROOT, TMPDIR: TEMP_ROOT, NO_COLOR: '1', LANG: 'C.UTF-8' };
  const outputs = new Map<string, string>();
  try {
    for (const output of CLI_OUTPUTS) {
      const cwd = output.id === 'demo-steps' ? TEMP_ROOT : DEMO_FOLDER;
      const run = await runNode(['--import', FIXED_TEMP_NAMES, CLI_PATH, ...output.args], cwd, env);
      if (run.status !== 0)
        throw new Error(`agent-context ${output.args.join(' ')} exited ${String(run.status)}: ${run.stderr}`);
      const lines = normalizeOutput(`${run.stdout}${run.stderr}`).replace(/\n+$/, '').split('\n');
      const shown = output.select === undefined ? lines : output.select(lines);
      outputs.set(
        output.id,
        [...(output.showCommand ? [`$ agent-context ${output.args.join(' ')}`] : []), ...shown].join('\n'),
      );
    }
  } finally {
    for (const folder of TEMP_FOLDERS) rmSync(folder, { recursive: true, force: true });
  }
  return outputs;
}

const GENERATED_NOTE = '<!-- Generated by `npm run docs:outputs` from the built command: run it, do not edit here. -->';

/** The whole block of output `id`, markers included. */
export function renderCliOutputBlock(id: string, text: string): string {
  return [
    `<!-- cli-output:${id} -->`,
    GENERATED_NOTE,
    '',
    '```text',
    text,
    '```',
    '',
    `<!-- /cli-output:${id} -->`,
  ].join('\n');
}

/** The blocks of a page, markers included, by id. @throws {Error} on an unclosed, stray or repeated marker. */
export function readCliOutputBlocks(markdown: string): Map<string, string> {
  return readMarkedBlocks(markdown, { name: 'cli-output', label: 'cli output' });
}

/** `markdown` with each block replaced by the output produced now. */
export function updateCliOutputs(markdown: string, outputs: ReadonlyMap<string, string>): string {
  let updated = markdown;
  for (const [id, block] of readCliOutputBlocks(markdown)) {
    const text = outputs.get(id);
    if (text !== undefined) updated = updated.replace(block, () => renderCliOutputBlock(id, text));
  }
  return updated;
}

/** What is out of date in `page`: one line per output of the page whose block is missing or differs; empty when current. */
export function findStaleCliOutputs(page: string, markdown: string, outputs: ReadonlyMap<string, string>): string[] {
  const blocks = readCliOutputBlocks(markdown);
  const problems: string[] = [];
  for (const output of CLI_OUTPUTS.filter((candidate) => candidate.page === page)) {
    const block = blocks.get(output.id);
    if (block === undefined)
      problems.push(
        `${page}: no <!-- cli-output:${output.id} --> block; add the markers, then run npm run docs:outputs`,
      );
    else if (block !== renderCliOutputBlock(output.id, outputs.get(output.id) ?? '')) {
      problems.push(
        `${page}: the output of agent-context ${output.args.join(' ')} is out of date: run npm run build && npm run docs:outputs`,
      );
    }
  }
  return problems;
}
