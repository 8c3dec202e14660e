/**
 * An agent's requests repeat the history of the one before: through the proxy, over real HTTP to
 * a scripted upstream, each request still reaches the upstream as its own body says (a changed
 * message, a message added), the messages the manager left alone in the client's own bytes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const BUILD_LOG = Array.from(
  { length: 800 },
  (_, index) => `[build] step ${index}: compiled src/module-${index}.ts`,
).join('\n');
// written with escapes and spaces JSON.stringify would not use: they show where the client's bytes went on
const OPENING = '{"role": "user", "content": "Fix the caf\\u00e9 menu build; it says \\"failed\\"."}';
const CALL =
  '{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "npm run build"}}]}';
const RESULT = JSON.stringify({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: BUILD_LOG }],
});

function body(messages: readonly string[]): string {
  return `{"model": "claude-test", "max_tokens": 64, "system": "You are a build agent.", "messages": [${messages.join(', ')}]}`;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 900, output_tokens: 1 })),
  );
  // a small window: the build log is offloaded however the manager times it
  proxy = await startProxy(upstream.origin, { contextTokenLimit: 20_000 });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('requests that repeat the history of the one before', () => {
  it('reach the upstream as each body says, the untouched messages in the bytes the client sent', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' };
    const marked =
      '{"role": "user", "content": [{"type": "text", "text": "Go on.", "cache_control": {"type": "ephemeral"}}]}';
    const first = [OPENING, CALL, RESULT, '{"role": "assistant", "content": "Reading the log."}', marked];
    const second = [
      ...first.slice(0, 4),
      '{"role": "user", "content": [{"type": "text", "text": "Go on."}]}',
      '{"role": "assistant", "content": "Done."}',
      '{"role": "user", "content": "Thanks \\u2014 bye"}',
    ];
    for (const messages of [first, second])
      expect((await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(messages) })).status).toBe(200);

    const sent = upstream.requests[1];
    const { messages: given, ...fields } = JSON.parse(body(second)) as { messages: unknown[] };
    const { messages: received, ...receivedFields } = sent?.body as { messages: unknown[] };
    expect(receivedFields).toEqual(fields);
    expect(received).toHaveLength(given.length);
    // the build log was offloaded (the window is small); every other message went on as it came, in its own bytes
    expect(received[2]).not.toEqual(given[2]);
    const raw = sent?.rawBody.toString('utf8') ?? '';
    for (const index of [0, 1, 3, 4, 5, 6]) {
      expect(received[index]).toEqual(given[index]);
      expect(raw).toContain(second[index]);
    }
    expect(
      raw.startsWith('{"model": "claude-test", "max_tokens": 64, "system": "You are a build agent.", "messages": ['),
    ).toBe(true);
  });
});
