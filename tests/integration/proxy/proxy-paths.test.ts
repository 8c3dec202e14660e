/**
 * Request paths through the real proxy, sent byte for byte as a client may write them: dot
 * segments (plain, percent-encoded, with backslashes) are resolved before the route is chosen,
 * and a path that climbs above its root, out of the upstream's base path, is refused.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeRequestPath } from '../../../src/proxy/forward.js';
import { startProxy, type RawReply, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
  proxy = await startProxy(`${upstream.origin}/gateway`);
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

/** Sends `path` exactly as written (a URL string would have its dot segments resolved by the client). */
function sendPath(path: string, method = 'GET', body?: string): Promise<RawReply> {
  const { hostname, port } = new URL(proxy.origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { hostname, port, path, method, headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('request paths', () => {
  it.each(['/../admin', '/v1/../../admin', '/v1/%2e%2e/%2E%2E/admin', '/v1/..\\..\\admin', '/.%2e/admin?x=1'])(
    'refuses %s, which climbs out of the base path, with 400 and nothing sent on',
    async (path) => {
      const reply = await sendPath(path);

      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining("'..'") },
      });
      expect(upstream.requests).toEqual([]);
    },
  );

  it('resolves dot segments that stay inside, before the route is chosen', async () => {
    const body = JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });

    await sendPath('/v1/./models/%2e%2e/models?limit=2');
    await sendPath('/v1/models/../messages?beta=true', 'POST', body);

    expect(upstream.requests.map((request) => request.url)).toEqual([
      '/gateway/v1/models?limit=2',
      '/gateway/v1/messages?beta=true',
    ]);
    expect(proxy.events).toMatchObject([{ route: '/v1/messages' }]);
  });

  it('leaves a path without dot segments as it came', () => {
    expect(normalizeRequestPath('/v1/messages?beta=true')).toBe('/v1/messages?beta=true');
    expect(normalizeRequestPath('/v1/files/')).toBe('/v1/files/');
    expect(normalizeRequestPath('/v1/a..b/.x')).toBe('/v1/a..b/.x');
    expect(normalizeRequestPath('/v1/q?path=/../x')).toBe('/v1/q?path=/../x');
  });

  it('refuses a target that is not a path (an absolute URL, an asterisk)', () => {
    expect(normalizeRequestPath('http://other.example/v1/models')).toBeUndefined();
    expect(normalizeRequestPath('*')).toBeUndefined();
  });
});
