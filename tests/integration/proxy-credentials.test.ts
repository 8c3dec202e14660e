/**
 * Credentials through the real proxy with no `upstream` set: a request the proxy cannot
 * attribute to the provider its key belongs to is refused with 400 naming `--upstream`, and
 * nothing is sent anywhere; with an upstream set, Gemini traffic passes through unmanaged and
 * the log says so once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import { sendJson, startScriptedUpstream, type ScriptedUpstream } from './proxy-scripted-upstream.js';

let proxy: RunningProxy | undefined;
let upstream: ScriptedUpstream | undefined;

afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
  proxy = undefined;
  upstream = undefined;
});

const GEMINI_BODY = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

describe('without an upstream', () => {
  it.each([
    ['a Gemini x-goog-api-key', '/v1beta/models/gemini-2.5-pro:generateContent', { 'x-goog-api-key': 'AIza-secret' }],
    ['an Azure api-key', '/v1/chat/completions', { 'api-key': 'azure-secret' }],
    ['a bearer sk-ant- key without anthropic-version', '/v1/models', { authorization: 'Bearer sk-ant-secret' }],
  ])('refuses %s with 400 naming --upstream, and never sends it on', async (_name, path, headers) => {
    // no upstream: a request that got through would go to a real provider
    proxy = await startProxy(undefined);

    const reply = await sendRaw(proxy.origin, path, {
      headers: { 'content-type': 'application/json', ...headers },
      body: GEMINI_BODY,
    });

    expect(reply.status).toBe(400);
    const text = reply.body.toString('utf8');
    expect(text).toContain('--upstream');
    expect(text).not.toContain('secret');
    expect(proxy.warnings.join('\n')).not.toContain('secret');
  });
});

describe('with an upstream', () => {
  it('passes Gemini requests through unmanaged, saying so once', async () => {
    upstream = await startScriptedUpstream((_request, response) =>
      sendJson(response, { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] } }] }),
    );
    proxy = await startProxy(upstream.origin);
    const path = '/v1beta/models/gemini-2.5-pro:generateContent';
    const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-one' };

    const first = await sendRaw(proxy.origin, path, { headers, body: GEMINI_BODY });
    const second = await sendRaw(proxy.origin, path, { headers, body: GEMINI_BODY });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(upstream.requests.map((request) => request.headers['x-goog-api-key'])).toEqual(['AIza-one', 'AIza-one']);
    expect(proxy.warnings).toEqual([expect.stringContaining('Gemini requests are passed through unmanaged')]);
  });
});
