/**
 * The proxy with the manager's default timing: a tool result reaches the upstream whole in the
 * request that acts on it, and goes to the store once it is older and the older results still
 * inline pass their budget.
 */
import Anthropic from '@anthropic-ai/sdk';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** A test run's output of `lines` lines (about 60 characters each). */
function testLog(lines: number, seed: string): string {
  return Array.from(
    { length: lines },
    (_, index) => `PASS tests/${seed}-${index}.spec.ts > handles input ${index}`,
  ).join('\n');
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 1 })),
  );
  // a 10,000-token window: older results stay inline up to 8,000 characters (a fifth of it)
  proxy = await startProxy(upstream.origin, { offload: { timing: 'as-they-age' }, contextTokenLimit: 10_000 });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('the proxy, as results age (the default timing)', () => {
  it('sends a result whole to the request that acts on it, and offloads it once older results pass their budget', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const first = testLog(110, 'unit');
    const second = testLog(110, 'e2e');
    const call = (id: string): Anthropic.MessageParam => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `npm test ${id}` } }],
    });
    const result = (id: string, content: string): Anthropic.MessageParam => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content }],
    });
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Run the tests.' },
      call('toolu_1'),
      result('toolu_1', first),
    ];

    await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: history });
    history.push(call('toolu_2'), result('toolu_2', second));
    await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: history });
    history.push(call('toolu_3'), result('toolu_3', 'done'));
    await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: history });

    const sent = upstream.requests.map(
      (request) => request.body?.messages as Array<{ content: Array<{ content?: unknown }> | string }>,
    );
    const resultAt = (request: number, index: number): unknown =>
      (sent[request]?.[index]?.content as Array<{ content?: unknown }>)[0]?.content;
    expect(resultAt(0, 2)).toBe(first);
    expect(resultAt(1, 2)).toBe(first);
    expect(resultAt(1, 4)).toBe(second);
    // both older now, about 10,000 characters together: offloaded in one batch, readable where the reference says
    const reference = resultAt(2, 2) as string;
    expect(reference).toMatch(/^\[Content offloaded to: /);
    expect(await readFile(reference.slice('[Content offloaded to: '.length, -1), 'utf8')).toBe(first);
    expect(resultAt(2, 4)).toMatch(/^\[Content offloaded to: /);
  });
});
