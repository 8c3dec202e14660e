/**
 * The command line as a function: dispatches to one module per command, loaded on demand so
 * that each command loads only what it uses (`count` never loads an LLM SDK or the spinner).
 *
 * Errors end as one line on stderr (`agent-context: ...`) and an exit code: 2 for usage, 1 for
 * a failure; `--debug` adds the stack.
 */
import { readFileSync } from 'node:fs';
import type { CommandIo } from './command-io.js';
import { CliError, FAILURE_EXIT_CODE, USAGE_EXIT_CODE, UsageError } from './errors.js';
import { COMMAND_HELP, COMMAND_NAMES, MAIN_HELP } from './help.js';
import { toTerminalText } from './render/terminal-text.js';
import type { CommandName } from './help.js';

/**
 * A command's entry point: runs it with its arguments (the command name excluded) and the run's
 * streams; resolves to its exit code when it has one of its own (`wrap` exits with its command's).
 */
type CommandRunner = (args: readonly string[], io: CommandIo) => Promise<void | number>;

const COMMAND_LOADERS: Readonly<Record<CommandName, () => Promise<CommandRunner>>> = {
  count: async () => (await import('./count.js')).runCount,
  offload: async () => (await import('./offload.js')).runOffload,
  compact: async () => (await import('./compact.js')).runCompact,
  prune: async () => (await import('./prune.js')).runPrune,
  demo: async () => (await import('./demo.js')).runDemo,
  replay: async () => (await import('./replay.js')).runReplay,
  eval: async () => (await import('./eval.js')).runEval,
  proxy: async () => (await import('./proxy.js')).runProxy,
  wrap: async () => (await import('./wrap.js')).runWrap,
};

function readVersion(): string {
  // dist/cli/ and src/cli/ both sit two levels below package.json.
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return packageJson.version;
}

function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}

/** The exit code of an error: its own for CLI errors, 2 for an invalid option value, else 1. */
function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  // An option the library rejects came from a flag or an environment variable: a usage error.
  if ((error as { code?: unknown } | null)?.code === 'INVALID_OPTION') return USAGE_EXIT_CODE;
  return FAILURE_EXIT_CODE;
}

/**
 * Writes an error to stderr. Its message may quote a value from the transcript or the command
 * line (a file name, a role, an id), so every line is escaped for the terminal.
 */
function reportError(error: unknown, debug: boolean, io: CommandIo): void {
  const message = error instanceof Error ? error.message : String(error);
  const lines = [`agent-context: ${toTerminalText(message.split('\n')[0] ?? message)}`];
  if (error instanceof UsageError) {
    lines.push(`Run "agent-context${error.command === undefined ? '' : ` ${error.command}`} --help" for usage.`);
  }
  if (debug && error instanceof Error && error.stack !== undefined) {
    lines.push(toTerminalText(error.stack, { multiline: true }));
    if (error.cause !== undefined) {
      const cause = error.cause instanceof Error ? (error.cause.stack ?? error.cause.message) : String(error.cause);
      lines.push(`Caused by: ${toTerminalText(cause, { multiline: true })}`);
    }
  }
  io.stderr.write(`${lines.join('\n')}\n`);
}

/**
 * Runs the command line with `args` (without `node` and the script) and resolves to the exit
 * code; it never exits the process or sets its exit code.
 *
 * Output goes to `io`. The environment and the working directory stay the process's: the
 * library functions the commands call read their defaults from them (`OFFLOAD_CHAR_THRESHOLD`,
 * the compaction's `workDir`), as do the LLM SDKs, so a caller wanting others sets them around
 * the call. Ctrl-C is heard on the process (a `SIGINT` listener while a command waits), and
 * `proxy`, a server that runs until stopped, logs to the process's streams.
 */
export async function runCommandLine(args: readonly string[], io: CommandIo): Promise<number> {
  // what follows `--` is another command's (`wrap -- node script.js --help`)
  const separator = args.indexOf('--');
  const ownArgs = separator === -1 ? args : args.slice(0, separator);
  const debug = ownArgs.includes('--debug');
  // `--debug` may come before the command too; every command also accepts it among its flags.
  const commandArgs = args[0] === '--debug' ? args.slice(1) : args;
  try {
    const [first, ...rest] = commandArgs;
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      const topic = first === 'help' ? rest[0] : undefined;
      const help = `${topic !== undefined && isCommandName(topic) ? COMMAND_HELP[topic] : MAIN_HELP}\n`;
      // No command at all is a usage error: the help goes to stderr, as any error does.
      if (first === undefined) {
        io.stderr.write(help);
        return USAGE_EXIT_CODE;
      }
      io.stdout.write(help);
      return 0;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`${readVersion()}\n`);
      return 0;
    }
    if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`);
    if (!isCommandName(first))
      throw new UsageError(`unknown command ${JSON.stringify(first)} (commands: ${COMMAND_NAMES.join(', ')})`);
    if (ownArgs.includes('--help') || ownArgs.includes('-h')) {
      io.stdout.write(`${COMMAND_HELP[first]}\n`);
      return 0;
    }
    const run = await COMMAND_LOADERS[first]();
    return (await run(rest, io)) ?? 0;
  } catch (error) {
    reportError(error, debug, io);
    return exitCodeOf(error);
  }
}
