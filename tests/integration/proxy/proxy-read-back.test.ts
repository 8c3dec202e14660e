/**
 * Read-backs stay read: a tool result that the agent's own tool produced by opening a reference
 * (Claude Code's Read of the path, a shell's `cat` of it) reaches the model as content, not as
 * one more reference, while the result it came from stays offloaded.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  responsesBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const TEST_LOG = Array.from(
  { length: 600 },
  (_, index) => `PASS tests/case-${index}.spec.ts > handles input ${index} (2 ms)`,
).join('\n');
const REFERENCE = /\[Tool result offloaded to file: ([^\]]+)\]/;

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((request, response) =>
    request.url.startsWith('/v1/responses')
      ? sendJson(response, responsesBody([{ type: 'message', text: 'ok' }], 100))
      : sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 1 })),
  );
  proxy = await startProxy(upstream.origin);
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

/** The reference path in the text the upstream received. */
function referenceIn(text: string): string {
  const match = REFERENCE.exec(text);
  expect(match, text.slice(0, 300)).not.toBeNull();
  return match![1]!;
}

describe('read-backs through the proxy', () => {
  it("brings the content back to the model when Claude Code's Read opens a reference", async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Run the tests.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_tests', name: 'Bash', input: { command: 'npm test' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_tests', content: TEST_LOG }] },
    ];
    await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: history });
    const path = referenceIn(JSON.stringify(upstream.requests[0]?.body));
    // what Claude Code's Read returns: the file, line-numbered
    const read = (await readFile(path, 'utf8'))
      .split('\n')
      .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
      .join('\n');

    await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [
        ...history,
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: path } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: read }] },
      ],
    });

    const sent = upstream.requests[1]?.body?.messages as { content: { content: unknown }[] }[];
    expect(sent[2]?.content[0]?.content).toBe(`[Tool result offloaded to file: ${path}]`);
    expect(sent[4]?.content[0]?.content).toBe(read);
  });

  it("brings the content back when a shell's cat prints a reference (OpenAI Responses)", async () => {
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'Run the tests.' },
      {
        type: 'function_call',
        call_id: 'call_tests',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'npm test' }),
      },
      { type: 'function_call_output', call_id: 'call_tests', output: TEST_LOG },
    ];
    await client.responses.create({ model: 'gpt-test', input });
    const path = referenceIn(JSON.stringify(upstream.requests[0]?.body));
    const printed = await readFile(path, 'utf8');

    await client.responses.create({
      model: 'gpt-test',
      input: [
        ...input,
        {
          type: 'function_call',
          call_id: 'call_cat',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: `cat '${path}'` }),
        },
        { type: 'function_call_output', call_id: 'call_cat', output: printed },
      ],
    });

    const sent = upstream.requests[1]?.body?.input as { output?: unknown }[];
    expect(sent[2]?.output).toBe(`[Tool result offloaded to file: ${path}]`);
    expect(sent[4]?.output).toBe(TEST_LOG);
  });

  it('still offloads a large result whose call names no reference', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });

    await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Read the log.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_log', name: 'Read', input: { file_path: '/var/log/tests.log' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_log', content: TEST_LOG }] },
      ],
    });

    expect(referenceIn(JSON.stringify(upstream.requests[0]?.body)).startsWith(proxy.dir)).toBe(true);
  });
});
