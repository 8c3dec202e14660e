/**
 * `agent-context proxy` in a window smaller than the agent's own fixed part: a request the size
 * of Claude Code's (about 27 KB of system prompt and 82 KB of tool definitions) at `--window
 * 20000` goes on byte for byte, the same through every fresh proxy, and one line says which
 * window works.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTemporaryDirectory, startProxyCommand, type RunningProxyCommand } from '../cli/cli-helpers.js';
import { sendRaw } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** `count` characters of instructions, as a coding agent's prompt and tool descriptions read. */
function prose(count: number, topic: string): string {
  const sentence = `When the user asks about ${topic}, read the relevant files first, keep the change small and say what you verified. `;
  return sentence.repeat(Math.ceil(count / sentence.length)).slice(0, count);
}

/** A request body of Claude Code's size: its system prompt, 16 tools, and one user message with its reminders. */
function claudeCodeSizedBody(): string {
  const tools = Array.from({ length: 16 }, (_, index) => ({
    name: `Tool${index}`,
    description: prose(4800, `tool ${index}`),
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: prose(200, `the path of tool ${index}`) },
        pattern: { type: 'string', description: prose(120, `the pattern of tool ${index}`) },
      },
      required: ['path'],
    },
  }));
  return JSON.stringify({
    model: 'claude-sonnet-4-6',
    max_tokens: 32_000,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: prose(27_000, 'the codebase'), cache_control: { type: 'ephemeral' } },
    ],
    tools,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: `<system-reminder>\n${prose(6000, 'the project memory')}\n</system-reminder>` },
          { type: 'text', text: 'Fix the failing date test in src/date.ts.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    stream: true,
  });
}

type RunningCommand = RunningProxyCommand;

/** Starts `agent-context proxy ...args` in `cwd` and resolves once it prints where it listens. */
function startCommand(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<RunningCommand> {
  return startProxyCommand(args, { cwd, env });
}

async function stop(command: RunningCommand): Promise<void> {
  await command.stop();
}

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one', 'anthropic-version': '2023-06-01' };

let upstream: ScriptedUpstream;
let directory: { path: string; remove: () => Promise<void> };
const running: RunningCommand[] = [];

beforeEach(async () => {
  upstream = await startScriptedUpstream((_record, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 41_000, output_tokens: 1 })),
  );
  directory = await createTemporaryDirectory('proxy-overhead-');
});

afterEach(async () => {
  await Promise.all(running.splice(0).map(stop));
  await upstream.close();
  await directory.remove();
});

describe('a fixed part at or over the trigger', () => {
  it('forwards the request unchanged and says once which window works', async () => {
    const command = await startCommand(
      ['--port', '0', '--upstream', upstream.origin, '--window', '20000'],
      directory.path,
    );
    running.push(command);
    const body = claudeCodeSizedBody();

    await sendRaw(command.origin, '/v1/messages', { headers: HEADERS, body });
    await sendRaw(command.origin, '/v1/messages', { headers: HEADERS, body });
    await stop(command);

    expect(upstream.requests.map((record) => record.rawBody.toString('utf8'))).toEqual([body, body]);
    const lines = command.stderr().split('\n');
    const said = lines.filter((line) => line.includes('smallest window'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/The smallest window that works with them is \d+ tokens/);
    expect(lines.filter((line) => line.startsWith('/v1/messages'))).toHaveLength(2);
    expect(command.stderr()).not.toMatch(/compacted [\d,]+ -> /);
  });

  it('decides alike in six fresh proxies: the same first request goes on unchanged through each', async () => {
    const body = claudeCodeSizedBody();
    for (let index = 0; index < 6; index += 1) {
      const command = await startCommand(
        ['--port', '0', '--upstream', upstream.origin, '--window', '20000', '--dir', `store-${index}`],
        directory.path,
      );
      running.push(command);
      await sendRaw(command.origin, '/v1/messages', { headers: HEADERS, body });
      await stop(command);
    }

    expect(upstream.requests.map((record) => record.rawBody.toString('utf8'))).toEqual(Array(6).fill(body));
  });
});
