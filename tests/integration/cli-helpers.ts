/**
 * Running the BUILT command line (`node dist/cli/index.js`) as a user would: a child process,
 * with a controlled environment, optional standard input, captured output and exit code.
 * `npm test` builds first; run `npm run build` before running these files on their own.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message } from '../../src/index.js';
import { parseTranscript } from '../../src/cli/formats/parse-transcript.js';
import type { ParsedTranscript } from '../../src/cli/formats/parse-transcript.js';

/** The repository root. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The built entry point. */
export const CLI_PATH = join(REPOSITORY_ROOT, 'dist/cli/index.js');
/** The CLI fixtures. */
export const FIXTURES = join(REPOSITORY_ROOT, 'tests/fixtures/cli');

/** A fixture's absolute path. */
export function fixturePath(name: string): string {
  return join(FIXTURES, name);
}

/** What a run of the CLI produced. */
export interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Extra environment variables (`undefined` removes one). */
  env?: Record<string, string | undefined>;
  /** Text written to standard input. */
  stdin?: string;
  /** Working directory. @default the repository root */
  cwd?: string;
  /** Arguments for node itself, before the script (`--import`, ...). */
  nodeArguments?: readonly string[];
}

/** Variables that change the CLI's figures or colours; removed so each test starts from the defaults. */
const CONTROLLED_VARIABLES = [
  'NO_COLOR',
  'FORCE_COLOR',
  'OFFLOAD_CHAR_THRESHOLD',
  'OFFLOAD_RATIO_THRESHOLD',
  'CONTEXT_TOKEN_LIMIT',
  'COMPACT_THRESHOLD_RATIO',
  'SUMMARY_MODEL',
  'SUMMARY_MAX_WORDS',
  'COMPACT_MAX_RETRIES',
  'COMPACT_OUTPUT_DIR',
  'MAX_RESTORE_FILES',
  'MAX_RESTORE_TOKENS_PER_FILE',
  'MAX_RESTORE_TOKENS_TOTAL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
];

/** Runs `node dist/cli/index.js ...args` and resolves when it exits. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does)`);
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of CONTROLLED_VARIABLES) delete env[name];
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArguments ?? []), CLI_PATH, ...args], { cwd: options.cwd ?? REPOSITORY_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** A fresh temporary directory, and a function that removes it. */
export async function createTemporaryDirectory(prefix = 'aco-cli-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Parses a fixture the way the CLI does. */
export async function readFixtureTranscript(name: string): Promise<ParsedTranscript> {
  return parseTranscript(await readFile(fixturePath(name), 'utf8'), name);
}

/** A fixture's messages, as the CLI reads them. */
export async function readFixtureMessages(name: string): Promise<Message[]> {
  return (await readFixtureTranscript(name)).messages;
}

/** Whether text holds ANSI escape sequences. */
export function hasAnsi(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /\u001b\[/.test(text);
}
