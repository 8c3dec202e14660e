/**
 * `agent-context proxy`, the built command as a user runs it: it listens, says where, forwards
 * a request through the context manager with one line on stderr (no body, no key), warns when
 * bound beyond this machine, stops on Ctrl-C, and refuses bad flags with exit 2.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTemporaryDirectory,
  runCli,
  runInProcess,
  startProxyCommand,
  type RunningProxyCommand,
} from '../cli/cli-helpers.js';
import { sendRaw } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const KEY = 'sk-ant-cli-secret';
const TOKEN = 'proxy-token-0123456789abcdef';
const TOOL_OUTPUT = `top secret tool output ${'y'.repeat(4000)}`;

type RunningCommand = RunningProxyCommand;

/** Starts `agent-context proxy ...args` in `cwd` and resolves once it prints where it listens. */
function startCommand(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<RunningCommand> {
  return startProxyCommand(args, { cwd, env });
}

let upstream: ScriptedUpstream;
let directory: { path: string; remove: () => Promise<void> };
let running: RunningCommand | undefined;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_record, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
  directory = await createTemporaryDirectory('proxy-cli-');
});

afterEach(async () => {
  if (running !== undefined && running.child.exitCode === null) {
    running.child.kill('SIGINT');
    await running.exited;
  }
  running = undefined;
  await upstream.close();
  await directory.remove();
});

/** Sends a Messages request whose last message is the 4 KB result of a `cat`. */
function sendToolResult(origin: string): ReturnType<typeof sendRaw> {
  const body = JSON.stringify({
    model: 'claude-test',
    max_tokens: 8,
    messages: [
      { role: 'user', content: 'Look.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat secret.txt' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: TOOL_OUTPUT }] },
    ],
  });
  return sendRaw(origin, '/v1/messages', { headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body });
}

describe('agent-context proxy', () => {
  it('forwards through the manager, logs one line per request without body or key, and stops on Ctrl-C', async () => {
    // a window of 2,000 tokens: the 4 KB result is too large to send whole, so it goes out as its reference with a head and tail
    running = await startCommand(['--port', '0', '--upstream', upstream.origin, '--window', '2000'], directory.path);
    const reply = await sendToolResult(running.origin);
    running.child.kill('SIGINT');
    const code = await running.exited;

    expect(reply.status).toBe(200);
    expect(running.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.stdout()).toContain(`${directory.path}/.agent-context`);
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain(`${directory.path}/.agent-context/auto-`);
    expect(running.stderr()).toMatch(
      /\/v1\/messages {2}session auto-[0-9a-f]+ {2}3 messages {2}4.2 KB -> \d+ B {2}1 offloaded/,
    );
    expect(running.stderr()).not.toContain(KEY);
    expect(running.stderr()).not.toContain('top secret');
    expect(code).toBe(0);
  });

  it('offloads each new large result before the model sees it with --offload-timing on-arrival', async () => {
    running = await startCommand(
      ['--port', '0', '--upstream', upstream.origin, '--offload-timing', 'on-arrival'],
      directory.path,
    );
    const reply = await sendToolResult(running.origin);

    // as results age (the default), a 4 KB result goes out whole in a window of 200,000 tokens
    expect(reply.status).toBe(200);
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain('[Tool result offloaded to file: ');
    expect(JSON.stringify(upstream.requests[0]?.body)).not.toContain('top secret');
    expect(running.stderr()).toContain('1 offloaded');
  });

  it('after a compaction, tells the agent to open references with its own tools, as reference lines', async () => {
    running = await startCommand(
      ['--port', '0', '--upstream', upstream.origin, '--window', '6000', '--offload-timing', 'on-arrival'],
      directory.path,
    );
    const checks = Array.from({ length: 6 }, (_, index) => [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${index}`, name: 'Bash', input: { command: `./check.sh ${index}` } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${index}`, content: `check ${index} line\n`.repeat(150) }],
      },
    ]).flat();
    const prose = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Message ${index}: ${'the module keeps its state in a map and flushes it on exit; '.repeat(10)}`,
    }));
    const body = JSON.stringify({
      model: 'claude-test',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'Run the checks.' }, ...checks, ...prose],
    });
    const reply = await sendRaw(running.origin, '/v1/messages', {
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body,
    });

    expect(reply.status).toBe(200);
    const sent = JSON.stringify(upstream.requests[0]?.body);
    expect(sent).toContain('[Conversation compressed]');
    expect(sent).toContain('Each reference below is a file: open it with your own tools');
    expect(sent).not.toContain('read tool');
    expect(sent).toContain(`  - [Content offloaded to: ${directory.path}/.agent-context/`);
  });

  it('refuses an --offload-timing that is not one of the two, naming the flag', async () => {
    const run = await runInProcess(['proxy', '--offload-timing', 'later'], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--offload-timing must be as-they-age or on-arrival, got "later"');
  });

  it("keeps an idle connection open past Node's 5 s, so a client reusing it is not reset", async () => {
    running = await startCommand(['--port', '0', '--upstream', upstream.origin], directory.path);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ status: number; reused: boolean }> =>
      new Promise((resolve, reject) => {
        const outgoing = httpRequest(`${running!.origin}/v1/models`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode ?? 0, reused: outgoing.reusedSocket }));
        });
        outgoing.on('error', reject);
        outgoing.end();
      });

    const first = await get();
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const second = await get();
    agent.destroy();

    expect(first).toEqual({ status: 200, reused: false });
    expect(second).toEqual({ status: 200, reused: true });
  });

  it('warns when it listens beyond this machine, with a token', async () => {
    running = await startCommand(
      ['--port', '0', '--host', '0.0.0.0', '--upstream', upstream.origin, '--dir', 'store'],
      directory.path,
      { AGENT_CONTEXT_TOKEN: TOKEN },
    );

    expect(running.stderr()).toContain('warning: listening on 0.0.0.0, not only this machine');
  });

  it('refuses to listen beyond this machine without a token, with exit 2', async () => {
    const run = await runCli(['proxy', '--port', '0', '--host', '0.0.0.0', '--upstream', upstream.origin], {
      cwd: directory.path,
      env: { AGENT_CONTEXT_TOKEN: undefined },
    });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--host 0.0.0.0 lets other machines reach the proxy: give it a token first');
    expect(upstream.requests).toHaveLength(0);
  });

  it('asks every request for the token of AGENT_CONTEXT_TOKEN (or --auth-token), and never sends it on', async () => {
    running = await startCommand(
      ['--port', '0', '--host', '0.0.0.0', '--upstream', upstream.origin, '--dir', 'store'],
      directory.path,
      { AGENT_CONTEXT_TOKEN: TOKEN },
    );
    const origin = running.origin.replace('0.0.0.0', '127.0.0.1');
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY };
    const body = JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'Hi.' }] });

    const without = await sendRaw(origin, '/v1/messages', { headers, body });
    const wrong = await sendRaw(origin, '/v1/messages', {
      headers: { ...headers, 'x-agent-context-token': `${TOKEN}x` },
      body,
    });
    const health = await sendRaw(origin, '/_agent-context/health', { method: 'GET' });
    const right = await sendRaw(origin, '/v1/messages', {
      headers: { ...headers, 'x-agent-context-token': TOKEN },
      body,
    });

    expect([without.status, wrong.status, health.status, right.status]).toEqual([401, 401, 401, 200]);
    expect(JSON.parse(without.body.toString('utf8'))).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.headers['x-agent-context-token']).toBeUndefined();
    expect(running.stdout()).toContain('x-agent-context-token');
    expect(running.stdout()).not.toContain(TOKEN);
  });

  it('prints the address of its live page, which opens with the token in it and logs no line for it', async () => {
    running = await startCommand(['--port', '0', '--upstream', upstream.origin], directory.path, {
      AGENT_CONTEXT_TOKEN: TOKEN,
    });
    expect(running.stdout()).toContain(`  live page:    ${running.origin}/_agent-context/?token=<the token>\n`);

    const page = await sendRaw(running.origin, `/_agent-context/?token=${TOKEN}`, { method: 'GET' });
    const without = await sendRaw(running.origin, '/_agent-context/', { method: 'GET' });

    expect([page.status, without.status]).toEqual([200, 401]);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(running.stdout() + running.stderr()).not.toContain(TOKEN);
  });

  it('refuses a token shorter than 16 characters, without quoting it', async () => {
    const run = await runCli(['proxy', '--auth-token', 'short secret'], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--auth-token must be at least 16 visible ASCII characters');
    expect(run.stderr).not.toContain('short secret');
  });

  it.each([
    [['--port', 'http'], '--port must be a whole number from 0 to 65535, got "http"'],
    [['--summarizer', 'gpt'], '--summarizer must be extractive or upstream, got "gpt"'],
    [['--upstream', 'ftp://example.com'], '--upstream must be an http:// or https:// URL'],
    [['--store', 'mysql://db'], '--store must be a redis://, rediss:// or s3://bucket/prefix URL, got "mysql://db"'],
    [['--window', 'big'], '--window must be a whole number of tokens >= 1'],
  ])('refuses %j with exit 2', async (args, message) => {
    const run = await runCli(['proxy', ...args], { cwd: directory.path });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
