/**
 * Sessions as the client names them, through the real handler over real HTTP: Claude Code's
 * `x-claude-code-session-id` header names the session (the credential's hash folded in), and
 * `POST /v1/messages/count_tokens` is answered for the history the proxy would send.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';
import { buildAgentBody as body, buildHistory, conversation } from './proxy-sessions-fixture.js';

const CLAUDE_SESSION = '1f0c6a52-7d1e-4b8e-9a43-2f6d0c1b9e77';
const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one', 'anthropic-version': '2023-06-01' };

let upstream: ScriptedUpstream;
let proxy: RunningProxy | undefined;

beforeEach(async () => {
  upstream = await startScriptedUpstream((record, response) =>
    record.url.startsWith('/v1/messages/count_tokens')
      ? sendJson(response, { input_tokens: 321 })
      : sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 5 })),
  );
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
});

describe("Claude Code's session header", () => {
  it('names the session, so a history whose first message changed (its own compaction) stays in it', async () => {
    proxy = await startProxy(upstream.origin);
    const headers = { ...HEADERS, 'x-claude-code-session-id': CLAUDE_SESSION };
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body([{ role: 'user', content: 'Fix the build.' }]) });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers,
      body: body([{ role: 'user', content: 'Summary of the conversation so far: the build was fixed.' }]),
    });

    const [first, second] = proxy.events.map((event) => event.sessionId);
    expect(first).toMatch(new RegExp(`^claude-${CLAUDE_SESSION}-[0-9a-f]{12}$`));
    expect(second).toBe(first);
  });

  it('folds the credential in: two keys sending one session id get two sessions', async () => {
    proxy = await startProxy(upstream.origin);
    const messages = [{ role: 'user', content: 'Fix the build.' }];
    for (const key of ['sk-ant-one', 'sk-ant-two'])
      await sendRaw(proxy.origin, '/v1/messages', {
        headers: { ...HEADERS, 'x-api-key': key, 'x-claude-code-session-id': CLAUDE_SESSION },
        body: body(messages),
      });

    const [first, second] = proxy.events.map((event) => event.sessionId);
    expect(first).not.toBe(second);
    expect(second).toMatch(new RegExp(`^claude-${CLAUDE_SESSION}-`));
  });

  it('gives way to x-agent-context-session, which names the session as it is', async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-claude-code-session-id': CLAUDE_SESSION, 'x-agent-context-session': 'mine' },
      body: body([{ role: 'user', content: 'Fix the build.' }]),
    });

    expect(proxy.events.map((event) => event.sessionId)).toEqual(['mine']);
  });

  it('is ignored when it is not a usable name: the session is derived', async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-claude-code-session-id': '../../etc' },
      body: body([{ role: 'user', content: 'Fix the build.' }]),
    });

    expect(proxy.events[0]?.sessionId).toMatch(/^auto-[0-9a-f]{32}$/);
  });

  it('is forwarded to the upstream as it came', async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-claude-code-session-id': CLAUDE_SESSION },
      body: body([{ role: 'user', content: 'Fix the build.' }]),
    });

    expect(upstream.requests[0]?.headers['x-claude-code-session-id']).toBe(CLAUDE_SESSION);
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('counts the history the proxy would send: a large result as its reference', async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await sendRaw(proxy.origin, '/v1/messages/count_tokens?beta=true', {
      headers: HEADERS,
      body: body(buildHistory(), {}),
    });

    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ input_tokens: 321 });
    const [counted] = upstream.requests;
    expect(counted?.url).toBe('/v1/messages/count_tokens?beta=true');
    expect(JSON.stringify(counted?.body)).toContain('[Tool result offloaded to file: ');
    expect(JSON.stringify(counted?.body)).not.toContain('[build] step 400');
    expect(counted?.body).toMatchObject({ model: 'claude-test', system: 'You are a build agent.' });
  });

  it('counts a compacted history when the history is past the trigger, and the next request sends that very history', async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000 });
    const headers = { ...HEADERS, 'x-claude-code-session-id': CLAUDE_SESSION };
    const history = conversation(20);
    await sendRaw(proxy.origin, '/v1/messages/count_tokens', { headers, body: body(history, {}) });
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(history) });

    const [counted, sent] = upstream.requests;
    const countedMessages = counted?.body?.messages as unknown[];
    expect(JSON.stringify(countedMessages)).toContain('[Conversation compressed]');
    expect(countedMessages.length).toBeLessThan(history.length);
    expect(sent?.body?.messages).toEqual(countedMessages);
  });

  it('is not a model request: no request event, no session figures, the next request still anchored on its usage', async () => {
    proxy = await startProxy(upstream.origin);
    const headers = { ...HEADERS, 'x-agent-context-session': 'counted' };
    const first = [{ role: 'user', content: 'Fix the build.' }];
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(first) });
    const next = [...first, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Go on.' }];
    await sendRaw(proxy.origin, '/v1/messages/count_tokens', { headers, body: body(next, {}) });
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(next) });

    expect(proxy.events.map((event) => event.route)).toEqual(['/v1/messages', '/v1/messages']);
    // the usage of the first answer anchors the second request, not the count in between
    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(1);
    const sessions = await sendRaw(proxy.origin, '/_agent-context/api/sessions', { method: 'GET' });
    expect(JSON.parse(sessions.body.toString('utf8')).sessions).toMatchObject([{ id: 'counted', requests: 2 }]);
  });
});
