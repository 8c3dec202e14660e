/**
 * Claude Code, unmodified, through the proxy: `claude -p` with `ANTHROPIC_BASE_URL` set to the
 * proxy and a fake key, a scripted model playing more than 20 turns of large tool outputs. The
 * same session is run once straight against the model, to compare what the model received.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE, installAgent, type AgentInstall } from './agents.js';
import { AGENT_PROMPT, runAgent, totalBytes, type AgentCommand, type AgentRun } from './agent-run.js';
import { CLAUDE_CODE_DIALECT, READ_BACK_TURN, TOOL_TURNS } from './scripted-model.js';
import { reportRun } from './run-report.js';

/** The window given to the proxy: the session's raw history outgrows it about halfway. */
const WINDOW = 24_000;

function claudeCommand(path: string): AgentCommand {
  return {
    command: path,
    args: ['-p', AGENT_PROMPT, '--allowedTools', 'Bash,Read', '--max-turns', String(TOOL_TURNS + 5)],
    env: (baseUrl) => ({
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    }),
  };
}

let install: AgentInstall;
let direct: AgentRun;
let proxied: AgentRun;

beforeAll(async () => {
  install = await installAgent(CLAUDE_CODE);
  if ('skipReason' in install) return;
  const agent = claudeCommand(install.path);
  direct = await runAgent({ dialect: CLAUDE_CODE_DIALECT, agent });
  proxied = await runAgent({ dialect: CLAUDE_CODE_DIALECT, agent, proxyWindow: WINDOW });
  reportRun('Claude Code', direct, proxied);
});

describe(`Claude Code ${CLAUDE_CODE.version} through the proxy`, () => {
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

  it("brings a reference's content back when Claude Code's Read opens it", (context) => {
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
