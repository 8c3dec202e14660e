/**
 * Codex CLI, unmodified, through the proxy: `codex exec` with a provider in `CODEX_HOME/config.toml`
 * whose base URL is the proxy (Codex ignores `OPENAI_BASE_URL`), the Responses API, a scripted
 * model playing more than 20 turns of large shell outputs. The same session is run once straight
 * against the model, to compare what the model received.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODEX, installAgent, type AgentInstall } from './agents.js';
import { AGENT_PROMPT, runAgent, totalBytes, type AgentCommand, type AgentRun } from './agent-run.js';
import { reportRun } from './run-report.js';
import { CODEX_DIALECT, READ_BACK_TURN, TOOL_TURNS } from './scripted-model.js';

/** The window given to the proxy: the session's raw history outgrows it about halfway. */
const WINDOW = 24_000;

function codexCommand(path: string): AgentCommand {
  return {
    command: path,
    // the sandbox needs user namespaces, which a CI container may not have: the scripted commands only print
    args: ['exec', '--skip-git-repo-check', '--sandbox', 'danger-full-access', AGENT_PROMPT],
    env: (_baseUrl, home) => ({ CODEX_HOME: join(home, '.codex'), OPENAI_API_KEY: 'sk-fake' }),
    async prepareHome(home, baseUrl) {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(home, '.codex'));
      const config = [
        'model = "gpt-5-codex"',
        'model_provider = "scripted"',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${baseUrl}/v1"`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n');
      await writeFile(join(home, '.codex', 'config.toml'), config);
    },
  };
}

let install: AgentInstall;
let direct: AgentRun;
let proxied: AgentRun;

beforeAll(async () => {
  install = await installAgent(CODEX);
  if ('skipReason' in install) return;
  const agent = codexCommand(install.path);
  direct = await runAgent({ dialect: CODEX_DIALECT, agent });
  proxied = await runAgent({ dialect: CODEX_DIALECT, agent, proxyWindow: WINDOW });
  reportRun('Codex CLI', direct, proxied);
});

describe(`Codex CLI ${CODEX.version} through the proxy`, () => {
  it('runs the whole scripted session, directly and through the proxy', (context) => {
    if ('skipReason' in install) context.skip(install.skipReason);
    for (const run of [direct, proxied]) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toContain('Done.');
      expect(run.observations).toHaveLength(TOOL_TURNS + 1);
    }
  });

  it('gets every large output to the model as a reference to a file, which it is not without the proxy', (context) => {
    if ('skipReason' in install) context.skip(install.skipReason);
    const large = (run: AgentRun) => run.observations.filter((observation) => observation.previousStep === 'big-file' || observation.previousStep === 'test-log');
    expect(large(proxied).length).toBeGreaterThanOrEqual(20);
    expect(large(proxied).filter((observation) => !observation.resultIsReference)).toEqual([]);
    expect(large(direct).every((observation) => !observation.resultIsReference && observation.resultChars > 2000)).toBe(true);
  });

  it("brings a reference's content back when Codex's shell prints it", (context) => {
    if ('skipReason' in install) context.skip(install.skipReason);
    const readBack = proxied.observations[READ_BACK_TURN + 1];
    expect(readBack?.previousStep).toBe('read-back');
    expect(readBack?.resultIsReference).toBe(false);
    expect(readBack?.resultHoldsMarker).toBe(true);
  });

  it('compacts the session once it outgrows the window, and sends the model fewer bytes', (context) => {
    if ('skipReason' in install) context.skip(install.skipReason);
    expect(proxied.events.some((event) => event.actions.some((action) => action.type === 'compact'))).toBe(true);
    expect(proxied.observations.some((observation) => observation.summaryHash !== undefined)).toBe(true);
    expect(totalBytes(proxied)).toBeLessThan(totalBytes(direct) / 2);
    // the manager's own warnings (an over-target compaction in a small window) are fine; a proxy failure is not
    expect(proxied.warnings.filter((warning) => warning.startsWith('agent-context proxy'))).toEqual([]);
  });
});
