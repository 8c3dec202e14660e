/**
 * The real agents the slow suite drives, installed on first use into `.cache/agents/` (ignored
 * by git) at pinned versions: never devDependencies, so a fresh clone's `npm ci` does not fetch
 * Claude Code's native binary. Where an agent cannot be installed (no network, no registry),
 * {@link installAgent} says why, and its suite skips with that reason.
 *
 * Run on its own to install them all: `npx tsx tests/slow/agents.ts`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the agents are installed. */
const AGENTS_CACHE = join(REPOSITORY_ROOT, '.cache', 'agents');

/** An agent: its npm package, the version this suite was written against, its command. */
export interface AgentPackage {
  name: string;
  version: string;
  bin: string;
}

export const CLAUDE_CODE: AgentPackage = { name: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' };
export const CODEX: AgentPackage = { name: '@openai/codex', version: '0.171.0', bin: 'codex' };
export const GEMINI_CLI: AgentPackage = { name: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' };

/** An installed agent's command, or why it could not be installed. */
export type AgentInstall = { path: string } | { skipReason: string };

/**
 * The path of the agent's command, installing it into `.cache/agents/<name>@<version>/` with
 * `npm install --prefix` when it is not there yet (a few seconds to a minute).
 */
export async function installAgent(agent: AgentPackage): Promise<AgentInstall> {
  const prefix = join(AGENTS_CACHE, `${agent.name.replace('/', '+')}@${agent.version}`);
  const path = join(prefix, 'node_modules', '.bin', agent.bin);
  if (existsSync(path)) return { path };
  await mkdir(prefix, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${agent.name}@${agent.version}`],
    {
      encoding: 'utf8',
      timeout: 10 * 60_000,
    },
  );
  if (result.status !== 0 || !existsSync(path)) {
    const output = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-3).join(' | ');
    return {
      skipReason: `${agent.name}@${agent.version} could not be installed (${result.error?.message ?? `npm exited with ${result.status}`}: ${output})`,
    };
  }
  return { path };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const agent of [CLAUDE_CODE, CODEX, GEMINI_CLI]) {
    const installed = await installAgent(agent);
    process.stdout.write(
      `${agent.name}@${agent.version}: ${'path' in installed ? installed.path : installed.skipReason}\n`,
    );
  }
}
