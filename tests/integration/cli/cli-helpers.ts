/**
 * Running the command line with a controlled environment, optional standard input, captured
 * output and exit code: {@link runInProcess} runs the command line from the source in this
 * process, for every case where the process boundary is not what is tested; {@link runCli} runs
 * the BUILT command (`node dist/cli/index.js`) as a user would, a child process, for the suites
 * of `npm run test:processes` (which builds first; run `npm run build` before running those
 * files on their own).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import type { CommandOutput } from '../../../src/cli/command-io.js';
import { runCommandLine } from '../../../src/cli/run-command-line.js';
import type { Message } from '../../../src/index.js';
import { parseTranscript } from '../../../src/cli/formats/parse-transcript.js';
import type { ParsedTranscript } from '../../../src/cli/formats/parse-transcript.js';

/** The repository root. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built entry point. */
export const CLI_PATH = join(REPOSITORY_ROOT, 'dist/cli/index.js');
/** The CLI fixtures. */
const FIXTURES = join(REPOSITORY_ROOT, 'tests/fixtures/cli');

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

/** Options of {@link runInProcess}. */
export interface RunInProcessOptions {
  /** Extra environment variables (`undefined` removes one). */
  env?: Record<string, string | undefined>;
  /** Text written to standard input. */
  stdin?: string;
  /** Working directory. @default the repository root */
  cwd?: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions extends RunInProcessOptions {
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
  'GOOGLE_GEMINI_BASE_URL',
];

/** The environment of a run: this process's, without the controlled variables, with `extra`. */
function createRunEnvironment(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of CONTROLLED_VARIABLES) delete env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** A child process running the built command, and its outcome. */
export interface StartedCli {
  /** The process: for signals, or to close its pipes early. */
  child: ChildProcessWithoutNullStreams;
  /** Resolves when it exits. */
  finished: Promise<CliRun>;
}

/** Starts `node dist/cli/index.js ...args`; standard input is written and closed at once. */
export function startCli(args: readonly string[], options: RunCliOptions = {}): StartedCli {
  if (!existsSync(CLI_PATH))
    throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm run test:processes does)`);
  const env = createRunEnvironment(options.env);
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), CLI_PATH, ...args], {
    cwd: options.cwd ?? REPOSITORY_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const finished = new Promise<CliRun>((resolvePromise, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
  });
  child.stdin.end(options.stdin ?? '');
  return { child, finished };
}

/** Runs `node dist/cli/index.js ...args` and resolves when it exits. */
export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliRun> {
  return startCli(args, options).finished;
}

/** A stream that keeps what is written to it, as a pipe would receive it (not a terminal). */
function createOutputSink(): CommandOutput & { text: string } {
  return {
    text: '',
    write(text, callback) {
      this.text += text;
      callback?.();
      return true;
    },
  };
}

/** Replaces this process's environment variables with `env`'s; returns a function that puts them back. */
function replaceEnvironment(env: Record<string, string | undefined>): () => void {
  const saved = { ...process.env };
  // In place, not a new object: the process's real environment is what os.tmpdir() and child processes see.
  const assign = (values: Record<string, string | undefined>): void => {
    for (const name of Object.keys(process.env)) if (!(name in values)) delete process.env[name];
    for (const [name, value] of Object.entries(values)) if (value !== undefined) process.env[name] = value;
  };
  assign(env);
  return () => assign(saved);
}

/**
 * Sends `console` output to the run's streams, where a process's console writes go (the
 * library's default logger warns on the console); returns a function that puts it back.
 */
function captureConsole(stdout: CommandOutput, stderr: CommandOutput): () => void {
  const saved = {
    log: console.log,
    info: console.info,
    debug: console.debug,
    warn: console.warn,
    error: console.error,
  };
  const writeTo =
    (stream: CommandOutput) =>
    (...values: unknown[]) =>
      void stream.write(`${format(...values)}\n`);
  Object.assign(console, {
    log: writeTo(stdout),
    info: writeTo(stdout),
    debug: writeTo(stdout),
    warn: writeTo(stderr),
    error: writeTo(stderr),
  });
  return () => void Object.assign(console, saved);
}

let previousRun: Promise<unknown> = Promise.resolve();

/**
 * Runs the command line (`runCommandLine`, from the source) in this process, as {@link runCli}
 * runs the built one: the same environment, working directory and standard input, the output
 * captured, console output included. The library reads the process's environment and working
 * directory, so they are switched for the run and put back after it; runs therefore go one at
 * a time.
 */
export function runInProcess(args: readonly string[], options: RunInProcessOptions = {}): Promise<CliRun> {
  const run = previousRun.then(async (): Promise<CliRun> => {
    const stdout = createOutputSink();
    const stderr = createOutputSink();
    const workingDirectory = process.cwd();
    const restoreEnvironment = replaceEnvironment(createRunEnvironment(options.env));
    const restoreConsole = captureConsole(stdout, stderr);
    try {
      process.chdir(options.cwd ?? REPOSITORY_ROOT);
      const exitCode = await runCommandLine(args, {
        stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
        stdout,
        stderr,
      });
      return { exitCode, stdout: stdout.text, stderr: stderr.text };
    } finally {
      process.chdir(workingDirectory);
      restoreConsole();
      restoreEnvironment();
    }
  });
  previousRun = run.catch(() => undefined);
  return run;
}

/** A fresh temporary directory, and a function that removes it. */
export async function createTemporaryDirectory(
  prefix = 'aco-cli-',
): Promise<{ path: string; remove: () => Promise<void> }> {
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

/** A started `agent-context proxy` (the built command): where it listens, its output so far, and how to stop it. */
export interface RunningProxyCommand {
  child: ChildProcessWithoutNullStreams;
  origin: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** Interrupts it (unless it ended) and waits for it to end. */
  stop: () => Promise<void>;
}

/**
 * Starts the built `agent-context proxy ...args` (with only `PATH` and `env` in its environment)
 * and resolves once it prints where it listens; rejects if it ends first.
 */
export function startProxyCommand(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<RunningProxyCommand> {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does)`);
  const child = spawn(process.execPath, [CLI_PATH, 'proxy', ...args], {
    cwd: options.cwd ?? REPOSITORY_ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const origin = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (origin !== undefined) resolve({ child, origin, stdout: () => stdout, stderr: () => stderr, exited, stop });
    });
    void exited.then((code) => reject(new Error(`the proxy exited with ${code} before listening: ${stderr}`)));
  });
}
