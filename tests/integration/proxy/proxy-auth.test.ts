/**
 * The proxy's auth token, through the real handler over real HTTP: every route, its own and the
 * forwarded ones, asks for the `x-agent-context-token` header; a request without it is answered
 * 401 in its provider's error shape and never reaches the upstream; the header is never sent on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProxyHandler } from '../../../src/proxy.js';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  chatBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const TOKEN = 'a-token-of-32-characters-0123456';
const ANTHROPIC = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-key', 'anthropic-version': '2023-06-01' };
const OPENAI = { 'content-type': 'application/json', authorization: 'Bearer sk-openai-key' };
const MESSAGES_BODY = JSON.stringify({
  model: 'claude-test',
  max_tokens: 8,
  messages: [{ role: 'user', content: 'Hi.' }],
});
const CHAT_BODY = JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hi.' }] });

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((record, response) =>
    record.url.startsWith('/v1/chat')
      ? sendJson(response, chatBody('ok', 10))
      : sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
  proxy = await startProxy(upstream.origin, { authToken: TOKEN });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('auth token', () => {
  it('answers a Messages request without the token 401 in Anthropic error shape', async () => {
    const reply = await sendRaw(proxy.origin, '/v1/messages', { headers: ANTHROPIC, body: MESSAGES_BODY });

    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
      type: 'error',
      error: {
        type: 'authentication_error',
        message: 'agent-context proxy: this proxy asks for its token in the x-agent-context-token header',
      },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers a Chat Completions request with a wrong token 401 in OpenAI error shape', async () => {
    const reply = await sendRaw(proxy.origin, '/v1/chat/completions', {
      headers: { ...OPENAI, 'x-agent-context-token': TOKEN.slice(0, -1) },
      body: CHAT_BODY,
    });

    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({
      error: { type: 'invalid_request_error', param: null, code: null },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('asks for it on the routes the proxy passes through and on its own', async () => {
    const passed = await sendRaw(proxy.origin, '/v1/models', { method: 'GET', headers: ANTHROPIC });
    const sessions = await sendRaw(proxy.origin, '/_agent-context/api/sessions', { method: 'GET' });
    const metrics = await sendRaw(proxy.origin, '/_agent-context/metrics', { method: 'GET' });

    expect([passed.status, sessions.status, metrics.status]).toEqual([401, 401, 401]);
    expect(upstream.requests).toHaveLength(0);
  });

  it('lets a request with the token through, without the token header', async () => {
    const headers = { 'x-agent-context-token': TOKEN };
    const managed = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...ANTHROPIC, ...headers },
      body: MESSAGES_BODY,
    });
    const chat = await sendRaw(proxy.origin, '/v1/chat/completions', {
      headers: { ...OPENAI, ...headers },
      body: CHAT_BODY,
    });
    const passed = await sendRaw(proxy.origin, '/v1/models', { method: 'GET', headers: { ...ANTHROPIC, ...headers } });
    const health = await sendRaw(proxy.origin, '/_agent-context/health', { method: 'GET', headers });

    expect([managed.status, chat.status, passed.status, health.status]).toEqual([200, 200, 200, 200]);
    expect(upstream.requests.map((record) => record.url)).toEqual([
      '/v1/messages',
      '/v1/chat/completions',
      '/v1/models',
    ]);
    for (const record of upstream.requests) expect(record.headers['x-agent-context-token']).toBeUndefined();
  });

  it('refuses a token too short to resist guessing when the handler is created, without quoting it', () => {
    expect(() => createProxyHandler({ authToken: 'hunter2' })).toThrow(
      'authToken must be at least 16 visible ASCII characters (no spaces), got a string of 7 characters',
    );
  });
});
