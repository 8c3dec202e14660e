/**
 * The suite each real agent goes through: the scripted session run once straight against the
 * model and once through the proxy, then what the model received checked turn by turn.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { installAgent, type AgentInstall, type AgentPackage } from './agents.js';
import { runAgent, totalBytes, type AgentCommand, type AgentRun } from './agent-run.js';
import { reportRun } from './run-report.js';
import { READ_BACK_TURN, TOOL_TURNS, type AgentDialect } from './scripted-model.js';

/** One agent's suite. */
export interface AgentSuite {
  /** What the report and the titles call it. */
  name: string;
  agent: AgentPackage;
  dialect: AgentDialect;
  command(path: string): AgentCommand;
  /** The tool the agent opens a reference with, for the title. */
  readBackTool: string;
  /** The window given to the proxy: the session's history outgrows it about halfway. */
  window: number;
}

/** Declares the suite of one agent. */
export function describeAgentThroughProxy(suite: AgentSuite): void {
  let install: AgentInstall;
  let direct: AgentRun;
  let proxied: AgentRun;
  let wrapped: AgentRun;

  beforeAll(async () => {
    install = await installAgent(suite.agent);
    if ('skipReason' in install) return;
    const agent = suite.command(install.path);
    direct = await runAgent({ dialect: suite.dialect, agent });
    proxied = await runAgent({ dialect: suite.dialect, agent, proxyWindow: suite.window });
    reportRun(suite.name, direct, proxied);
    wrapped = await runAgent({ dialect: suite.dialect, agent, wrapWindow: suite.window });
    process.stdout.write(`${suite.name} under agent-context wrap: ${wrapped.stderr.trim().split('\n').at(-1) ?? ''}\n`);
  });

  const large = (run: AgentRun) =>
    run.observations.filter(
      (observation) => observation.previousStep === 'big-file' || observation.previousStep === 'test-log',
    );

  describe(`${suite.name} ${suite.agent.version} through the proxy`, () => {
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
      expect(large(proxied).length).toBeGreaterThanOrEqual(20);
      expect(large(proxied).filter((observation) => !observation.resultIsReference)).toEqual([]);
      expect(
        large(direct).every((observation) => !observation.resultIsReference && observation.resultChars > 2000),
      ).toBe(true);
    });

    it(`brings a reference's content back when ${suite.readBackTool} opens it`, (context) => {
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

    it('runs the same session under agent-context wrap, through its proxy, with the summary line and the exit code', (context) => {
      if ('skipReason' in install) context.skip(install.skipReason);
      expect(wrapped.exitCode, wrapped.stderr).toBe(0);
      expect(wrapped.stdout).toContain('Done.');
      expect(wrapped.observations).toHaveLength(TOOL_TURNS + 1);
      // the agent's own settings name the model directly: a reference proves wrap's base URL took over
      expect(large(wrapped).length).toBeGreaterThanOrEqual(20);
      expect(large(wrapped).filter((observation) => !observation.resultIsReference)).toEqual([]);
      expect(wrapped.observations.some((observation) => observation.summaryHash !== undefined)).toBe(true);
      const summary =
        /^agent-context wrap: (\d+) requests \((\d+) managed\), .*, ([\d,]+) results offloaded, (\d+) compactions?$/m.exec(
          wrapped.stderr,
        );
      expect(summary, wrapped.stderr).not.toBeNull();
      expect(Number(summary?.[1])).toBeGreaterThanOrEqual(TOOL_TURNS + 1);
      expect(Number((summary?.[3] ?? '').replace(/,/g, ''))).toBeGreaterThanOrEqual(20);
      expect(Number(summary?.[4])).toBeGreaterThanOrEqual(1);
    });
  });
}

/**
 * Declares the suite of one agent through a proxy that answers reads itself (`readTool:
 * 'proxy'`): at the read-back turn the model calls `read_offloaded`, which the agent does not
 * have; the proxy answers it and asks again, so the agent never sees the call.
 */
export function describeAgentReadingThroughProxy(suite: AgentSuite): void {
  let install: AgentInstall;
  let proxied: AgentRun;

  beforeAll(async () => {
    install = await installAgent(suite.agent);
    if ('skipReason' in install) return;
    proxied = await runAgent({
      dialect: suite.dialect,
      agent: suite.command(install.path),
      proxyWindow: suite.window,
      readBackBy: 'proxy',
    });
  });

  describe(`${suite.name} ${suite.agent.version} through a proxy answering reads itself`, () => {
    it('runs the whole scripted session', (context) => {
      if ('skipReason' in install) context.skip(install.skipReason);
      expect(proxied.exitCode, proxied.stderr).toBe(0);
      expect(proxied.stdout).toContain('Done.');
      expect(proxied.observations).toHaveLength(TOOL_TURNS + 1);
    });

    it("answers the model's read_offloaded call with the reference's content, the agent never asked", (context) => {
      if ('skipReason' in install) context.skip(install.skipReason);
      const readBack = proxied.observations[READ_BACK_TURN + 1];
      expect(readBack?.previousStep).toBe('read-back');
      expect(readBack?.resultIsReference).toBe(false);
      expect(readBack?.resultHoldsMarker).toBe(true);
      expect(proxied.warnings.filter((warning) => warning.startsWith('agent-context proxy'))).toEqual([]);
    });
  });
}
