/**
 * The proxy's own routes under `/_agent-context/`, over real HTTP through the real handler:
 * health, the sessions' figures as JSON, the metrics in Prometheus text format; none of them
 * reaches the upstream.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';
import { BUILD_LOG, buildAgentBody as body, buildHistory, conversation } from './proxy-sessions-fixture.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-key', 'anthropic-version': '2023-06-01' };

async function getJson(origin: string, path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const reply = await sendRaw(origin, path, { method: 'GET' });
  return { status: reply.status, json: JSON.parse(reply.body.toString('utf8')) as Record<string, unknown> };
}

/** The value of the sample `name{labels}` in a Prometheus text exposition. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
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

describe('/_agent-context/health', () => {
  it("answers ok with the package's version, without reaching the upstream", async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await getJson(proxy.origin, '/_agent-context/health');
    expect(reply).toEqual({ status: 200, json: { ok: true, version: VERSION } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 404 for a path of its own it does not know, still without reaching the upstream', async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await getJson(proxy.origin, '/_agent-context/nothing');
    expect(reply.status).toBe(404);
    expect(reply.json.error).toContain('/_agent-context/nothing is not a route of the proxy');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('/_agent-context/api/sessions', () => {
  it('lists each session with its requests, tokens and costs sent vs unmanaged, offloads and compactions', async () => {
    proxy = await startProxy(upstream.origin);
    const history = buildHistory();
    const headers = { ...HEADERS, 'x-agent-context-session': 'build' };
    const firstSent = Date.now();
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(history) });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers,
      body: body([...history, { role: 'assistant', content: 'It built.' }, { role: 'user', content: 'Thanks.' }]),
    });
    const lastAnswered = Date.now();

    const { status, json } = await getJson(proxy.origin, '/_agent-context/api/sessions');
    expect(status).toBe(200);
    const sessions = json.sessions as Record<string, unknown>[];
    expect(sessions).toHaveLength(1);
    const [session] = sessions;
    expect(Object.keys(session!).sort()).toEqual(
      [
        'id',
        'requests',
        'tokensSent',
        'tokensUnmanaged',
        'costSent',
        'costUnmanaged',
        'offloads',
        'compactions',
        'lastActivity',
        'lastWarning',
      ].sort(),
    );
    expect(session).toMatchObject({ id: 'build', requests: 2, offloads: 1, compactions: 0, lastWarning: null });
    expect(session!.tokensSent as number).toBeGreaterThan(0);
    expect(session!.tokensUnmanaged as number).toBeGreaterThan((session!.tokensSent as number) * 2);
    expect(session!.costUnmanaged as number).toBeGreaterThan(session!.costSent as number);
    // the last activity falls between the first request sent and the last answer
    expect(Date.parse(session!.lastActivity as string)).toBeGreaterThanOrEqual(firstSent);
    expect(Date.parse(session!.lastActivity as string)).toBeLessThanOrEqual(lastAnswered);
    // only the two model requests reached the upstream
    expect(upstream.requests).toHaveLength(2);
  });

  it("prices an OpenAI route's requests with no write premium, its cached prefix at the model's discount", async () => {
    proxy = await startProxy(upstream.origin);
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-openai-key',
      'x-agent-context-session': 'chat',
    };
    const first = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Name three primes.' },
    ];
    const second = [...first, { role: 'assistant', content: '2, 3, 5.' }, { role: 'user', content: 'And three more.' }];
    for (const messages of [first, second]) {
      await sendRaw(proxy.origin, '/v1/chat/completions', {
        headers,
        body: JSON.stringify({ model: 'gpt-4.1', messages }),
      });
    }

    const { json } = await getJson(proxy.origin, '/_agent-context/api/sessions/chat');
    const [one, two] = json.requestLog as { tokensAfter: number; costSent: number; costUnmanaged: number }[];
    // gpt-4.1: $2 per million input tokens, nothing cached before the first request, written at 1x
    expect(one!.costSent).toBeCloseTo((one!.tokensAfter * 2) / 1e6, 12);
    // the first request's tokens read again at 0.25x, the rest at 1x
    expect(two!.costSent).toBeCloseTo(
      ((one!.tokensAfter * 0.25 + (two!.tokensAfter - one!.tokensAfter)) * 2) / 1e6,
      12,
    );
  });

  it('details one session: its requests in order, its offloaded results with their references and sizes', async () => {
    proxy = await startProxy(upstream.origin);
    const headers = { ...HEADERS, 'x-agent-context-session': 'build' };
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(buildHistory()) });

    const { status, json } = await getJson(proxy.origin, '/_agent-context/api/sessions/build');
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 'build', requests: 1, offloads: 1, summaries: [], archives: [] });
    const [logged] = json.requestLog as Record<string, unknown>[];
    expect(logged).toMatchObject({ route: '/v1/messages', outcome: 'managed', messagesIn: 3, messagesOut: 3 });
    expect(logged!.tokensBefore as number).toBeGreaterThan(logged!.tokensAfter as number);
    expect(logged!.actions).toEqual([expect.stringMatching(/^direct-offload: 1 \(\d+ chars freed\)$/)]);
    const [offloaded] = json.offloaded as Record<string, unknown>[];
    expect(offloaded).toMatchObject({ type: 'direct-offload', toolCallIds: ['toolu_1'] });
    expect((offloaded!.references as string[])[0]).toContain(proxy.dir);
    expect(offloaded!.freedChars as number).toBeGreaterThan(BUILD_LOG.length - 2000);
  });

  it("keeps a compaction's summary text and archive", async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000 });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...HEADERS, 'x-agent-context-session': 'long' },
      body: body(conversation(20)),
    });
    const { json } = await getJson(proxy.origin, '/_agent-context/api/sessions/long');
    expect(json).toMatchObject({ compactions: 1 });
    const [summary] = json.summaries as Record<string, unknown>[];
    expect((summary!.text as string).length).toBeGreaterThan(50);
    expect(summary!.text).not.toContain('[Conversation compressed]');
    expect(json.archives).toEqual([expect.objectContaining({ reference: summary!.archive })]);
  });

  it('answers 404 for a session it does not hold', async () => {
    proxy = await startProxy(upstream.origin);
    const reply = await getJson(proxy.origin, '/_agent-context/api/sessions/unknown');
    expect(reply.status).toBe(404);
    expect(reply.json.error).toContain('no session "unknown"');
  });
});

describe('/_agent-context/metrics', () => {
  it('scrapes in Prometheus text format, with counts that match the requests made', async () => {
    proxy = await startProxy(upstream.origin);
    const headers = { ...HEADERS, 'x-agent-context-session': 'build' };
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body(buildHistory()) });
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: body([{ role: 'user', content: 'Hello.' }]) });
    await sendRaw(proxy.origin, '/v1/messages', { headers, body: '{not json' });
    await sendRaw(proxy.origin, '/v1/models', { method: 'GET', headers: HEADERS });

    const reply = await sendRaw(proxy.origin, '/_agent-context/metrics', { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = reply.body.toString('utf8');
    for (const name of [
      'agent_context_requests_total',
      'agent_context_tokens_before_total',
      'agent_context_tokens_after_total',
      'agent_context_bytes_before_total',
      'agent_context_bytes_after_total',
      'agent_context_offloads_total',
      'agent_context_compactions_total',
      'agent_context_fail_open_total',
      'agent_context_added_latency_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(sample(text, 'agent_context_requests_total', 'route="/v1/messages",outcome="managed"')).toBe(1);
    expect(sample(text, 'agent_context_requests_total', 'route="/v1/messages",outcome="unchanged"')).toBe(1);
    expect(sample(text, 'agent_context_requests_total', 'route="/v1/messages",outcome="refused"')).toBe(1);
    expect(sample(text, 'agent_context_requests_total', 'route="other",outcome="passed-through"')).toBe(1);
    expect(sample(text, 'agent_context_offloads_total', 'route="/v1/messages"')).toBe(1);
    expect(sample(text, 'agent_context_added_latency_seconds_count', 'route="/v1/messages"')).toBe(2);
    const bytesBefore = sample(text, 'agent_context_bytes_before_total', 'route="/v1/messages"')!;
    const bytesAfter = sample(text, 'agent_context_bytes_after_total', 'route="/v1/messages"')!;
    expect(bytesBefore).toBe(proxy.events.reduce((sum, event) => sum + event.bytesIn, 0));
    expect(bytesAfter).toBe(proxy.events.reduce((sum, event) => sum + event.bytesOut, 0));
    expect(bytesAfter).toBeLessThan(bytesBefore);
    // the scrape itself is not a request to the upstream
    expect(upstream.requests.map((record) => record.url)).toEqual(['/v1/messages', '/v1/messages', '/v1/models']);
  });
});
