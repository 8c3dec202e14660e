/**
 * `agent-context wrap`, the built command as a user runs it: a plain script using the real
 * Anthropic SDK, configured by nothing but the environment wrap gives it, talks to a scripted
 * upstream through the proxy; wrap says what the proxy did in one line and exits with the
 * script's code, passes SIGTERM on, and refuses a missing command.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTemporaryDirectory, fixturePath, runCli, startCli } from './cli-helpers.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const CLIENT = fixturePath('wrapped-anthropic-client.mjs');

let upstream: ScriptedUpstream;
let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  upstream = await startScriptedUpstream((_record, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'seen' }], { input_tokens: 10, output_tokens: 1 })),
  );
  directory = await createTemporaryDirectory('cli-wrap-');
});

afterEach(async () => {
  await upstream.close();
  await directory.remove();
});

/** The one line wrap prints when its command has exited. */
const SUMMARY_LINE =
  /^agent-context wrap: 1 request \(1 managed\), [\d.]+ K?B sent of [\d.]+ KB \(\d+% less\), about [\d,]+ input tokens sent of [\d,]+ \([\d,]+ saved, estimated\), about \$\d+\.\d\d saved at \$3\/MTok uncached input, 1 result offloaded, 0 compactions$/m;

describe('agent-context wrap', () => {
  it("runs the command against the proxy and exits with the command's code, with a one-line summary", async () => {
    const run = await runCli(
      ['wrap', '--upstream', upstream.origin, '--offload-timing', 'on-arrival', '--', process.execPath, CLIENT],
      { cwd: directory.path },
    );

    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toMatch(SUMMARY_LINE);
    const seen = JSON.parse(run.stdout) as { anthropicBaseUrl: string; openaiBaseUrl: string; reply: string };
    expect(seen.reply).toBe('seen');
    expect(seen.anthropicBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.openaiBaseUrl).toBe(`${seen.anthropicBaseUrl}/v1`);
    expect(upstream.requests.map((request) => request.url)).toEqual(['/v1/messages']);
    // the 4,000-character result reached the model as a reference to the file the proxy wrote
    expect(upstream.requests[0]?.rawBody.toString('utf8')).not.toContain('z'.repeat(1000));
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer sk-ant-wrapped-client');
  });

  it('takes its proxy settings from the config file in the working directory', async () => {
    await writeFile(
      join(directory.path, 'agent-context.json'),
      `{\n  // where the scripted model listens\n  "proxy": { "upstream": "${upstream.origin}" },\n  "offload": { "timing": "on-arrival" },\n}\n`,
    );

    const run = await runCli(['wrap', '--', process.execPath, CLIENT], {
      cwd: directory.path,
      env: { WRAPPED_EXIT_CODE: '0' },
    });

    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(SUMMARY_LINE);
    expect(upstream.requests).toHaveLength(1);
  });

  it("passes the config file's manager groups on to the context manager", async () => {
    await writeFile(
      join(directory.path, 'agent-context.json'),
      JSON.stringify({
        proxy: { upstream: upstream.origin },
        offload: { timing: 'on-arrival', excludeTools: ['Bash'] },
      }),
    );

    const run = await runCli(['wrap', '--', process.execPath, CLIENT], { cwd: directory.path });

    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain(', 0 results offloaded, 0 compactions\n');
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toContain('z'.repeat(4000));
  });

  it('exits with 128 + the signal number when a signal ends the command, and says no request went through', async () => {
    const run = await runCli(['wrap', '--', process.execPath, '-e', "process.kill(process.pid, 'SIGTERM')"], {
      cwd: directory.path,
    });

    expect(run.exitCode).toBe(143);
    expect(run.stderr).toBe('agent-context wrap: no model request went through the proxy\n');
  });

  it('passes SIGTERM on to the command and waits for it to exit', async () => {
    const script =
      "process.on('SIGTERM', () => { process.stdout.write('stopping\\n'); process.exit(7); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);";
    const started = startCli(['wrap', '--', process.execPath, '-e', script], { cwd: directory.path });
    await new Promise<void>((resolve) =>
      started.child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('ready')) resolve();
      }),
    );

    started.child.kill('SIGTERM');
    const run = await started.finished;

    expect(run.exitCode).toBe(7);
    expect(run.stdout).toContain('stopping');
    expect(run.stderr).toContain('agent-context wrap: no model request went through the proxy');
  });

  it.each([[['wrap']], [['wrap', '--upstream', 'http://127.0.0.1:1']], [['wrap', '--']]])(
    'refuses %j, which names no command, with exit 2',
    async (args) => {
      const run = await runCli(args, { cwd: directory.path });

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(
        'agent-context: missing the command to run: agent-context wrap [options] -- <command> [args]\nRun "agent-context wrap --help" for usage.\n',
      );
    },
  );

  it("prints its help for its own --help, and passes the command's --help on to the command", async () => {
    const help = await runCli(['wrap', '--help'], { cwd: directory.path });
    const passed = await runCli(
      ['wrap', '--', process.execPath, '-e', 'console.log(process.argv.at(-1))', '--', '--help'],
      {
        cwd: directory.path,
      },
    );

    expect(help.stdout).toMatch(/^Usage: agent-context wrap \[options\] -- <command> \[args\]/);
    expect(passed.exitCode).toBe(0);
    expect(passed.stdout).toBe('--help\n');
  });

  it('refuses --port, since it picks a free port itself', async () => {
    const run = await runCli(['wrap', '--port', '9000', '--', process.execPath, '-e', ''], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('agent-context: unknown option --port');
  });

  it('exits with 127 when the command cannot be found', async () => {
    const run = await runCli(['wrap', '--', 'agent-context-no-such-command'], { cwd: directory.path });

    expect(run.exitCode).toBe(127);
    expect(run.stderr).toContain('agent-context: cannot run "agent-context-no-such-command": command not found');
  });
});
