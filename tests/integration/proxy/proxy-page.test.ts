/**
 * The proxy's live page and the content it serves back by reference, over real HTTP through the
 * real handler: the page is one self-contained document under a strict Content-Security-Policy,
 * a session's detail lists its offloaded results and archives with their sizes, and the content
 * route serves only what the proxy wrote for that session.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';
import { BUILD_LOG, buildAgentBody as body, buildHistory, conversation } from './proxy-sessions-fixture.js';

const TOKEN = 'a-token-of-32-characters-0123456';
const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-key', 'anthropic-version': '2023-06-01' };

interface Content {
  kind: string;
  reference: string;
  toolCallId: string | null;
  bytes: number | null;
}

async function detail(origin: string, id: string, headers: Record<string, string> = {}): Promise<Content[]> {
  const reply = await sendRaw(origin, `/_agent-context/api/sessions/${encodeURIComponent(id)}`, {
    method: 'GET',
    headers,
  });
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body.toString('utf8')) as { contents: Content[] }).contents;
}

function contentPath(id: string, reference: string): string {
  return `/_agent-context/api/sessions/${encodeURIComponent(id)}/content?ref=${encodeURIComponent(reference)}`;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy | undefined;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_record, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 5 })),
  );
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
});

describe('the live page', () => {
  it('is one HTML document that loads nothing from elsewhere, under a hash-pinned Content-Security-Policy', async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await sendRaw(proxy.origin, '/_agent-context/', { method: 'GET' });

    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['referrer-policy']).toBe('no-referrer');
    const csp = reply.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = reply.body.toString('utf8');
    expect(html).toMatch(/^<!doctype html>/);
    // nothing fetched from another origin, no script or style file of its own either
    expect(html).not.toMatch(/\ssrc=|<link\b|https?:\/\//);
    // untrusted strings (session ids, summaries, warnings) reach the page through textContent only
    expect(html).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers at /_agent-context without the slash too', async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await sendRaw(proxy.origin, '/_agent-context', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe("a session's offloaded results and archives", () => {
  it('lists each offloaded result with its tool call, its reference and its size in bytes', async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'build' },
      body: body(buildHistory()),
    });
    const contents = await detail(proxy.origin, 'build');
    expect(contents).toEqual([
      {
        kind: 'offloaded',
        time: expect.any(String),
        toolCallId: 'toolu_1',
        reference: expect.any(String),
        bytes: expect.any(Number),
      },
    ]);
    expect(contents[0]!.reference.startsWith(proxy.dir)).toBe(true);
    expect(contents[0]!.bytes).toBe(Buffer.byteLength(BUILD_LOG));
  });

  it('serves an offloaded result back as plain text, never sniffed', async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'build' },
      body: body(buildHistory()),
    });
    const [offloaded] = await detail(proxy.origin, 'build');
    const reply = await sendRaw(proxy.origin, contentPath('build', offloaded!.reference), { method: 'GET' });

    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(reply.body.toString('utf8')).toBe(BUILD_LOG);
  });

  it("lists and serves a compaction's archive", async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000 });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'long' },
      body: body(conversation(20)),
    });
    const archives = (await detail(proxy.origin, 'long')).filter((content) => content.kind === 'archive');
    expect(archives).toHaveLength(1);
    // the summary's archive link names the same reference
    const session = JSON.parse(
      (await sendRaw(proxy.origin, '/_agent-context/api/sessions/long', { method: 'GET' })).body.toString('utf8'),
    ) as { summaries: { archive: string }[] };
    expect(session.summaries[0]!.archive).toBe(archives[0]!.reference);
    const reply = await sendRaw(proxy.origin, contentPath('long', archives[0]!.reference), { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBe(archives[0]!.bytes);
    expect(reply.body.toString('utf8')).toContain('the module under review keeps its state');
  });

  it.each([
    ['a path that climbs out of the directory', (dir: string) => join(dir, '..', '..', 'etc', 'passwd')],
    ['an absolute path outside the directory', () => '/etc/passwd'],
    ['a relative key with dot segments', () => './build/../../secret.md'],
  ])('refuses %s with 404, reading nothing', async (_name, reference) => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'build' },
      body: body(buildHistory()),
    });
    const reply = await sendRaw(proxy.origin, contentPath('build', reference(proxy.dir)), { method: 'GET' });
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(reply.body.toString('utf8')).error).toContain('is not content this proxy offloaded or archived');
  });

  it("refuses a file in the proxy's directory it did not list for the session", async () => {
    proxy = await startProxy(upstream.origin);
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'build' },
      body: body(buildHistory()),
    });
    const [offloaded] = await detail(proxy.origin, 'build');
    // a file of the same kind, next to the offloaded one, that no action of the proxy wrote
    const planted = offloaded!.reference.replace(/[^/]+$/, 'toolu_9-0123456789abcdef.md');
    await writeFile(planted, "not the proxy's");
    const reply = await sendRaw(proxy.origin, contentPath('build', planted), { method: 'GET' });
    expect(reply.status).toBe(404);
  });

  it("refuses another session's content", async () => {
    proxy = await startProxy(upstream.origin);
    for (const session of ['one', 'two'])
      await sendRaw(proxy.origin, '/v1/messages', {
        headers: { ...HEADERS, 'x-agent-context-session': session },
        body: body(buildHistory(`${session}: ${BUILD_LOG}`)),
      });
    const [ofOne] = await detail(proxy.origin, 'one');
    const reply = await sendRaw(proxy.origin, contentPath('two', ofOne!.reference), { method: 'GET' });
    expect(reply.status).toBe(404);
    const own = await sendRaw(proxy.origin, contentPath('one', ofOne!.reference), { method: 'GET' });
    expect(own.body.toString('utf8')).toMatch(/^one: /);
  });

  it('answers 400 without a ref, and 404 for a session not in memory', async () => {
    proxy = await startProxy(upstream.origin);
    const missing = await sendRaw(proxy.origin, '/_agent-context/api/sessions/build/content', { method: 'GET' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body.toString('utf8')).error).toContain('needs one ref');
    const unknown = await sendRaw(proxy.origin, contentPath('nobody', '/etc/passwd'), { method: 'GET' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString('utf8')).error).toContain('no session "nobody"');
  });
});

describe('the live page with an auth token', () => {
  it('opens with the token in its address, and not without it', async () => {
    proxy = await startProxy(upstream.origin, { authToken: TOKEN });
    expect((await sendRaw(proxy.origin, '/_agent-context/', { method: 'GET' })).status).toBe(401);
    expect(
      (await sendRaw(proxy.origin, '/_agent-context/?token=wrong-token-of-32-characters-000', { method: 'GET' }))
        .status,
    ).toBe(401);
    const page = await sendRaw(proxy.origin, `/_agent-context/?token=${TOKEN}`, { method: 'GET' });
    expect(page.status).toBe(200);
    expect(page.body.toString('utf8')).toContain("headers['x-agent-context-token'] = token");
    const byHeader = await sendRaw(proxy.origin, '/_agent-context/', {
      method: 'GET',
      headers: { 'x-agent-context-token': TOKEN },
    });
    expect(byHeader.status).toBe(200);
  });

  it('takes the token in the address for the page only: the JSON, the content and the model routes need the header', async () => {
    proxy = await startProxy(upstream.origin, { authToken: TOKEN });
    for (const path of [
      `/_agent-context/api/sessions?token=${TOKEN}`,
      `/_agent-context/api/sessions/build/content?ref=x&token=${TOKEN}`,
      `/_agent-context/metrics?token=${TOKEN}`,
    ])
      expect((await sendRaw(proxy.origin, path, { method: 'GET' })).status, path).toBe(401);
    const forwarded = await sendRaw(proxy.origin, `/v1/messages?token=${TOKEN}`, { headers: HEADERS, body: body([]) });
    expect(forwarded.status).toBe(401);
    expect(upstream.requests).toHaveLength(0);
  });

  it('serves content with the header', async () => {
    proxy = await startProxy(upstream.origin, { authToken: TOKEN });
    const auth = { 'x-agent-context-token': TOKEN };
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, ...auth, 'x-agent-context-session': 'build' },
      body: body(buildHistory()),
    });
    const [offloaded] = await detail(proxy.origin, 'build', auth);
    const path = contentPath('build', offloaded!.reference);
    expect((await sendRaw(proxy.origin, path, { method: 'GET' })).status).toBe(401);
    const reply = await sendRaw(proxy.origin, path, { method: 'GET', headers: auth });
    expect(reply.status).toBe(200);
    expect(reply.body.toString('utf8')).toBe(BUILD_LOG);
  });
});
