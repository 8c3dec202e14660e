/**
 * `agent-context wrap [options] -- <command> [args]`: the proxy for one run of an agent. Starts
 * the proxy on a free port of 127.0.0.1, runs the command with its base URLs pointing at it,
 * stops the proxy when the command exits, says in one line on stderr what the proxy did, and
 * exits with the command's code.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { basename } from 'node:path';
import type { ProxyRequestEvent } from '../proxy/proxy-options.js';
import { groupDigits } from '../core/text/figures.js';
import { parseCommandArguments, type FlagDefinition } from './arguments.js';
import type { CommandIo } from './command-io.js';
import { CliError, UsageError } from './errors.js';
import { formatSize, LOOPBACK_HOST, PROXY_FLAGS, resolveProxySettings, startProxyServer } from './proxy.js';
import { toTerminalText } from './render/terminal-text.js';
import { DEFAULT_PRICE_PER_MTOK } from './replay/replay-flags.js';

/**
 * The proxy's flags, but where it listens and its token: `wrap` picks a free port on this
 * machine, which only the command it runs is told about.
 */
const WRAP_FLAGS = Object.fromEntries(
  Object.entries(PROXY_FLAGS).filter(([name]) => name !== 'port' && name !== 'host' && name !== 'auth-token'),
) as Readonly<Record<string, FlagDefinition>>;

/** The Codex CLI provider `wrap` adds with `-c` flags (an id of its own: Codex reserves `openai`). */
export const CODEX_PROVIDER_ID = 'agent_context';

/** Exit code when the command cannot be found, as shells report it. */
const COMMAND_NOT_FOUND_EXIT_CODE = 127;
/** Exit code when the command exists but cannot be run. */
const COMMAND_NOT_RUNNABLE_EXIT_CODE = 126;

/**
 * The environment of the wrapped command: its own, with the base URLs of the three SDK families
 * on the proxy. The Anthropic SDK (and Claude Code) appends `/v1/messages` to `ANTHROPIC_BASE_URL`;
 * the OpenAI SDK appends `/responses` or `/chat/completions` to `OPENAI_BASE_URL`, which
 * therefore ends in `/v1`; Gemini CLI appends `/v1beta/models/...` to `GOOGLE_GEMINI_BASE_URL`.
 */
export function wrappedEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  origin: string,
): Record<string, string | undefined> {
  return { ...env, ANTHROPIC_BASE_URL: origin, OPENAI_BASE_URL: `${origin}/v1`, GOOGLE_GEMINI_BASE_URL: origin };
}

/**
 * The arguments of the wrapped command: for the Codex CLI (which reads no `OPENAI_BASE_URL`),
 * `-c` config overrides first, declaring a provider on the proxy that speaks the Responses API
 * and selecting it; its key comes from `OPENAI_API_KEY` when that is set, else from Codex's own
 * login (`requires_openai_auth`). Any other command's arguments are left as they are.
 */
export function wrappedArguments(
  command: string,
  args: readonly string[],
  origin: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  if (!/^codex(?:\.cmd|\.exe)?$/i.test(basename(command))) return [...args];
  const provider = `model_providers.${CODEX_PROVIDER_ID}`;
  const key =
    (env.OPENAI_API_KEY ?? '') === ''
      ? `${provider}.requires_openai_auth=true`
      : `${provider}.env_key="OPENAI_API_KEY"`;
  return [
    '-c',
    `model_provider="${CODEX_PROVIDER_ID}"`,
    '-c',
    `${provider}.name="agent-context proxy"`,
    '-c',
    `${provider}.base_url="${origin}/v1"`,
    '-c',
    `${provider}.wire_api="responses"`,
    '-c',
    key,
    ...args,
  ];
}

/** What the proxy did over one wrapped run, from its request events. */
export interface SessionTally {
  requests: number;
  /** Requests whose history the manager changed. */
  managed: number;
  /** Request body bytes the agent sent, and the proxy sent on: exact. */
  bytesIn: number;
  bytesOut: number;
  /** Input tokens the proxy sent on: the context manager's estimates (requests it prepared). */
  tokensSent: number;
  /**
   * Input tokens those requests would have sent as the agent wrote them, estimated from the
   * sizes: each request's `tokensSent` scaled by its bytes in over its bytes out. (The manager's
   * own `tokensBefore` counts the history after the decisions of earlier requests, not as the
   * agent sent it.)
   */
  tokensUnmanaged: number;
  offloads: number;
  compactions: number;
  /** Requests sent on unchanged because the manager failed. */
  failOpen: number;
}

/** An empty tally. */
export function createSessionTally(): SessionTally {
  return {
    requests: 0,
    managed: 0,
    bytesIn: 0,
    bytesOut: 0,
    tokensSent: 0,
    tokensUnmanaged: 0,
    offloads: 0,
    compactions: 0,
    failOpen: 0,
  };
}

/** Adds one request event to a tally. */
export function tallyRequest(tally: SessionTally, event: ProxyRequestEvent): void {
  tally.requests += 1;
  tally.bytesIn += event.bytesIn;
  tally.bytesOut += event.bytesOut;
  if (event.outcome === 'managed') tally.managed += 1;
  if (event.outcome === 'fail-open') tally.failOpen += 1;
  if (event.stats !== undefined && event.bytesOut > 0) {
    const sent = event.stats.tokensAfter;
    tally.tokensSent += sent;
    tally.tokensUnmanaged += Math.round((sent * event.bytesIn) / event.bytesOut);
  }
  for (const action of event.actions) {
    if (action.type === 'direct-offload' || action.type === 'batch-offload')
      tally.offloads += action.toolCallIds.length;
    else if (action.type === 'compact') tally.compactions += 1;
  }
}

function plural(count: number, noun: string): string {
  return `${groupDigits(count)} ${count === 1 ? noun : `${noun}s`}`;
}

/** How much less `sent` is than `whole`, in whole percent. */
function percentLess(sent: number, whole: number): number {
  return whole === 0 ? 0 : Math.round(((whole - sent) / whole) * 100);
}

/**
 * The one-line summary of a wrapped run: requests; request bytes sent on against those the
 * agent sent (exact); input tokens sent (estimated) and without the proxy (estimated from the
 * sizes); what the difference costs at an example price of uncached input; offloads and
 * compactions.
 */
export function formatSessionSummary(tally: SessionTally, pricePerMTok = DEFAULT_PRICE_PER_MTOK): string {
  if (tally.requests === 0) return 'agent-context wrap: no model request went through the proxy';
  const saved = Math.max(0, tally.tokensUnmanaged - tally.tokensSent);
  const dollars = (saved * pricePerMTok) / 1_000_000;
  const parts = [
    `${plural(tally.requests, 'request')} (${groupDigits(tally.managed)} managed)`,
    `${formatSize(tally.bytesOut)} sent of ${formatSize(tally.bytesIn)} (${percentLess(tally.bytesOut, tally.bytesIn)}% less)`,
    `about ${groupDigits(tally.tokensSent)} input tokens sent of ${groupDigits(tally.tokensUnmanaged)} (${groupDigits(saved)} saved, estimated)`,
    `about $${dollars.toFixed(2)} saved at $${pricePerMTok}/MTok uncached input`,
    `${plural(tally.offloads, 'result')} offloaded`,
    plural(tally.compactions, 'compaction'),
  ];
  if (tally.failOpen > 0) parts.push(`${plural(tally.failOpen, 'request')} sent unchanged after a manager failure`);
  return `agent-context wrap: ${parts.join(', ')}`;
}

/** The exit code of a process that ended with `code` or was killed by `signal` (128 + its number, as shells say). */
export function exitCodeOfChild(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : (constants.signals as Record<string, number | undefined>)[signal];
  return 128 + (number ?? 0);
}

/** The usage line `wrap` points to when its command is missing. */
const MISSING_COMMAND = 'missing the command to run: agent-context wrap [options] -- <command> [args]';

/**
 * Runs `wrap`: resolves to the command's exit code once it has exited and the proxy has stopped.
 *
 * Signals: SIGTERM, and SIGINT when standard input is not a terminal, are passed on to the
 * command, and `wrap` waits for it to exit. Ctrl-C at a terminal reaches the command directly
 * (it shares the terminal's process group), so it is not sent a second time.
 */
export async function runWrap(args: readonly string[], io: CommandIo): Promise<number> {
  const separator = args.indexOf('--');
  const own = separator === -1 ? args : args.slice(0, separator);
  const parsed = parseCommandArguments('wrap', own, WRAP_FLAGS, 0);
  const [command, ...commandArgs] = separator === -1 ? [] : args.slice(separator + 1);
  if (command === undefined || command === '') throw new UsageError(MISSING_COMMAND, 'wrap');
  const settings = await resolveProxySettings('wrap', parsed, process.env);

  const tally = createSessionTally();
  // the command owns the terminal while it runs: warnings wait until it has exited
  const warnings: string[] = [];
  const proxy = await startProxyServer(
    { ...settings, port: 0, host: LOOPBACK_HOST, authToken: undefined },
    { onRequest: (event) => tallyRequest(tally, event), warn: (message) => warnings.push(message) },
  );

  let exitCode: number;
  try {
    exitCode = await new Promise<number>((resolveExit, reject) => {
      const child = spawn(command, wrappedArguments(command, commandArgs, proxy.origin, process.env), {
        stdio: 'inherit',
        env: wrappedEnvironment(process.env, proxy.origin),
      });
      const forward = (signal: NodeJS.Signals): void => {
        if (signal === 'SIGINT' && process.stdin.isTTY === true) return;
        child.kill(signal);
      };
      const signals = ['SIGINT', 'SIGTERM'] as const;
      for (const signal of signals) process.on(signal, forward);
      const stopForwarding = (): void => {
        for (const signal of signals) process.removeListener(signal, forward);
      };
      child.once('error', (error: NodeJS.ErrnoException) => {
        stopForwarding();
        reject(
          new CliError(
            `cannot run ${JSON.stringify(command)}: ${error.code === 'ENOENT' ? 'command not found' : error.message}`,
            error.code === 'ENOENT' ? COMMAND_NOT_FOUND_EXIT_CODE : COMMAND_NOT_RUNNABLE_EXIT_CODE,
            { cause: error },
          ),
        );
      });
      child.once('exit', (code, signal) => {
        stopForwarding();
        resolveExit(exitCodeOfChild(code, signal));
      });
    });
  } finally {
    await proxy.close();
    for (const warning of warnings) io.stderr.write(`${toTerminalText(warning)}\n`);
  }
  io.stderr.write(`${formatSessionSummary(tally)}\n`);
  return exitCode;
}
