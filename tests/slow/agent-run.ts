/**
 * One run of a real agent against the scripted model, directly or through the proxy: a temp
 * project holding the 300 KB file, a temp home for the agent's own settings, the scripted
 * upstream on 127.0.0.1, the proxy in front of it when asked, the agent as a child process.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxyHandler, type ProxyRequestEvent } from '../../src/proxy.js';
import { CLI_PATH } from '../integration/cli/cli-helpers.js';
import { startScriptedUpstream } from '../fixtures/scripted-llm-server.js';
import {
  buildBigFile,
  createScriptedModel,
  type AgentDialect,
  type ReadBackBy,
  type TurnObservation,
} from './scripted-model.js';

/** What the agent is told to do; the scripted model decides the rest. */
export const AGENT_PROMPT = 'Run the steps the session asks for, one tool call at a time, until it says it is done.';

/** How the agent is started, once the base URL it must use is known. */
export interface AgentCommand {
  command: string;
  args: readonly string[];
  /** Environment variables besides `HOME` (set to a temp home). */
  env(baseUrl: string, home: string): Record<string, string>;
  /** Prepares the temp home (settings files) before the run. */
  prepareHome?(home: string, baseUrl: string): Promise<void>;
}

/** What a run produced. */
export interface AgentRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  observations: TurnObservation[];
  sideRequests: number;
  /** The proxy's events (empty without the proxy). */
  events: ProxyRequestEvent[];
  warnings: string[];
}

/** Options of {@link runAgent}. */
export interface RunAgentOptions {
  dialect: AgentDialect;
  agent: AgentCommand;
  /** Run through the proxy with this window (tokens); without it the agent talks to the model directly. */
  proxyWindow?: number | undefined;
  /**
   * Run under the built `agent-context wrap` with this window (tokens) instead: the agent's own
   * base URL settings still name the model directly, so only wrap's can bring its requests through the proxy.
   */
  wrapWindow?: number | undefined;
  /** Who opens the reference at the read-back turn: with `'proxy'`, the proxy runs with `readTool: 'proxy'`. @default 'agent' */
  readBackBy?: ReadBackBy | undefined;
}

/** Runs the agent once; everything temporary is removed after. */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const root = await mkdtemp(join(tmpdir(), 'agent-run-'));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const storeDirectory = join(project, '.agent-context');
  await Promise.all([mkdir(project), mkdir(home)]);
  const bigFilePath = join(project, 'big.txt');
  await writeFile(bigFilePath, buildBigFile());
  const model = createScriptedModel(
    options.dialect,
    bigFilePath,
    options.proxyWindow === undefined && options.wrapWindow === undefined ? undefined : storeDirectory,
    options.readBackBy,
  );
  const upstream = await startScriptedUpstream((record, response) => model.answer(record, response));
  const events: ProxyRequestEvent[] = [];
  const warnings: string[] = [];
  let baseUrl = upstream.origin;
  let proxyServer: Server | undefined;
  if (options.proxyWindow !== undefined) {
    const handler = createProxyHandler({
      upstream: upstream.origin,
      dir: storeDirectory,
      contextTokenLimit: options.proxyWindow,
      // Each result as it arrives: the scripted model then sees a reference on the very next turn
      // and asks the agent to open it with its own tool. (The default, results whole while the
      // model acts on them, is covered against the real SDK clients in tests/integration/proxy/proxy-aging.test.ts.)
      offload: { timing: 'on-arrival' },
      readTool: options.readBackBy === 'proxy' ? 'proxy' : 'own-tools',
      logger: { warn: (message) => warnings.push(message) },
      onRequest: (event) => events.push(event),
    });
    const server = createServer((request, response) => void handler(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    proxyServer = server;
  }
  try {
    await options.agent.prepareHome?.(home, baseUrl);
    const [command, args] =
      options.wrapWindow === undefined
        ? [options.agent.command, options.agent.args]
        : [
            process.execPath,
            [
              CLI_PATH,
              'wrap',
              '--upstream',
              upstream.origin,
              '--window',
              String(options.wrapWindow),
              // as the proxied runs: the scripted model asks to open a reference on the very next turn
              '--offload-timing',
              'on-arrival',
              '--dir',
              storeDirectory,
              '--',
              options.agent.command,
              ...options.agent.args,
            ],
          ];
    const result = await runProcess(command, args, project, {
      ...pickEnvironment(),
      HOME: home,
      ...options.agent.env(baseUrl, home),
    });
    return { ...result, observations: model.observations, sideRequests: model.sideRequests, events, warnings };
  } finally {
    if (proxyServer !== undefined) {
      proxyServer.closeAllConnections();
      await new Promise<void>((resolve) => proxyServer.close(() => resolve()));
    }
    await upstream.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The variables a child needs from this environment: the path and the locale, no keys or base URLs. */
function pickEnvironment(): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of ['PATH', 'LANG', 'TERM', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

function runProcess(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

/** Total request bytes of the main loop. */
export function totalBytes(run: AgentRun): number {
  return run.observations.reduce((sum, observation) => sum + observation.bytes, 0);
}
