/**
 * Credentials through the real proxy with no `upstream` set: a request the proxy cannot
 * attribute to the provider its key belongs to is refused with 400 naming `--upstream`, and
 * nothing is sent anywhere.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';

let proxy: RunningProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const GEMINI_BODY = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

describe('without an upstream', () => {
  it.each([
    ['a Gemini x-goog-api-key on an Anthropic path', '/v1/messages', { 'x-goog-api-key': 'AIza-secret' }],
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
