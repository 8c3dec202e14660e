/**
 * The proxy's faults and boundaries over real HTTP: bad JSON and bodies over the limit answered
 * in the provider's error shape, an unreachable upstream, a client that goes away mid-stream,
 * a context manager that fails (the request goes on unchanged), sessions that two credentials
 * never share, and logs that never hold a credential or a body.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  anthropicStreamEvents,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const SECRET_KEY = 'sk-ant-secret-0123456789';
const TOOL_OUTPUT = `secret-looking output ${'x'.repeat(3000)}`;

/** A body whose last message holds a tool result large enough to be offloaded. */
function bodyWithToolResult(firstMessage = 'hi'): Record<string, unknown> {
  return {
    model: 'claude-test',
    max_tokens: 16,
    messages: [
      { role: 'user', content: firstMessage },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat notes.txt' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: TOOL_OUTPUT }] },
    ],
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy | undefined;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await upstream.close();
});

describe('bad requests', () => {
  it('answers invalid JSON with 400 in the Anthropic error shape, without calling the upstream', async () => {
    proxy = await startProxy(upstream.origin);

    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: JSON_HEADERS,
      body: '{"model": "claude-test", "messages": [',
    });

    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('not valid JSON') },
    });
    expect(upstream.requests).toEqual([]);
  });

  it('answers invalid JSON on an OpenAI route in the OpenAI error shape', async () => {
    proxy = await startProxy(upstream.origin);

    const reply = await sendRaw(proxy.origin, '/v1/chat/completions', { headers: JSON_HEADERS, body: 'not json' });

    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
      error: {
        message: expect.stringContaining('not valid JSON'),
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
  });

  it('answers a body over the limit with 413, declared or not', async () => {
    proxy = await startProxy(upstream.origin, { maxBodyBytes: 2000 });
    const body = JSON.stringify(bodyWithToolResult());

    const declared = await sendRaw(proxy.origin, '/v1/messages', { headers: JSON_HEADERS, body });
    const streamed = await new Promise<number>((resolve, reject) => {
      // chunked: the size is only known while reading
      const outgoing = httpRequest(
        `${proxy!.origin}/v1/responses`,
        { method: 'POST', headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.write(body.slice(0, 1500));
      outgoing.end(body.slice(1500));
    });

    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body.toString('utf8'))).toMatchObject({
      type: 'error',
      error: { type: 'request_too_large' },
    });
    expect(streamed).toBe(413);
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a session header that cannot name a folder, with 400', async () => {
    proxy = await startProxy(upstream.origin);

    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...JSON_HEADERS, 'x-agent-context-session': '../other' },
      body: JSON.stringify(bodyWithToolResult()),
    });

    expect(reply.status).toBe(400);
    expect(reply.body.toString('utf8')).toContain('x-agent-context-session');
  });
});

describe('upstream faults', () => {
  it('answers 502 in the provider error shape when the upstream cannot be reached', async () => {
    proxy = await startProxy(`http://127.0.0.1:${await closedPort()}`);
    const client = new Anthropic({ apiKey: SECRET_KEY, baseURL: proxy.origin, maxRetries: 0 });

    const error = await client.messages
      .create({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: 502, error: { type: 'error', error: { type: 'api_error' } } });
    expect(proxy.warnings.join('\n')).toContain('cannot be reached');
  });

  it('answers 502 in the OpenAI shape for an OpenAI client', async () => {
    proxy = await startProxy(`http://127.0.0.1:${await closedPort()}`);
    const client = new OpenAI({ apiKey: 'sk-openai-secret', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });

    const error = await client.responses.create({ model: 'gpt-test', input: 'hi' }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 502, type: 'server_error' });
  });

  it('ends the upstream request when the client goes away mid-stream', async () => {
    upstream.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // the first event, then nothing: the stream stays open until someone closes it
      response.write(
        anthropicStreamEvents([{ type: 'text', text: 'partial' }], { input_tokens: 10, output_tokens: 1 })[0],
      );
    });
    proxy = await startProxy(upstream.origin);

    await new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        `${proxy!.origin}/v1/messages`,
        { method: 'POST', headers: JSON_HEADERS },
        (response) => {
          response.once('data', () => {
            outgoing.destroy();
            resolve();
          });
        },
      );
      outgoing.on('error', () => undefined);
      outgoing.on('timeout', reject);
      outgoing.end(
        JSON.stringify({
          model: 'claude-test',
          max_tokens: 8,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
    });

    // resolves only when the proxy closed its upstream connection
    await upstream.requests[0]?.closed;
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('fail-open', () => {
  it('forwards a new result inline when the store cannot be written, and logs why without the body or the key', async () => {
    const temp = await mkdtemp(join(tmpdir(), 'proxy-fail-open-'));
    const notADirectory = join(temp, 'store');
    await writeFile(notADirectory, 'a file where the store directory should be');
    proxy = await startProxy(upstream.origin, { dir: notADirectory });
    const body = JSON.stringify(bodyWithToolResult());

    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...JSON_HEADERS, 'x-api-key': SECRET_KEY },
      body,
    });
    await rm(temp, { recursive: true, force: true });

    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    // the store's failure holds the new offload back; the manager itself did not fail
    expect(proxy.events).toMatchObject([{ outcome: 'unchanged' }]);
    expect(proxy.events[0]?.actions).toContainEqual(
      expect.objectContaining({ type: 'writes-deferred', toolCallIds: ['toolu_1'] }),
    );
    const log = proxy.warnings.join('\n');
    expect(log).toContain('new results stay inline until it takes writes again');
    expect(log).not.toContain(SECRET_KEY);
    expect(log).not.toContain('secret-looking output');
  });

  it('forwards a history the manager cannot read unchanged, without quoting it in the log', async () => {
    proxy = await startProxy(upstream.origin);
    const body = JSON.stringify({
      model: 'claude-test',
      max_tokens: 8,
      messages: [{ role: 'narrator', content: 'secret-looking output' }],
    });

    const reply = await sendRaw(proxy.origin, '/v1/messages', { headers: JSON_HEADERS, body });

    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    expect(proxy.warnings).toHaveLength(1);
    expect(proxy.warnings[0]).not.toContain('narrator');
    expect(proxy.warnings[0]).not.toContain('secret-looking');
  });
});

describe('sessions', () => {
  it('never shares a session between two credentials, even for the same first message', async () => {
    proxy = await startProxy(upstream.origin);
    const body = JSON.stringify(bodyWithToolResult('hi'));

    await sendRaw(proxy.origin, '/v1/messages', { headers: { ...JSON_HEADERS, 'x-api-key': 'sk-ant-alice' }, body });
    await sendRaw(proxy.origin, '/v1/messages', { headers: { ...JSON_HEADERS, 'x-api-key': 'sk-ant-bob' }, body });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...JSON_HEADERS, authorization: 'Bearer sk-ant-alice' },
      body,
    });
    await sendRaw(proxy.origin, '/v1/messages', { headers: { ...JSON_HEADERS, 'x-api-key': 'sk-ant-alice' }, body });

    const [alice, bob, aliceBearer, aliceAgain] = proxy.events.map((event) => event.sessionId);
    expect(new Set([alice, bob, aliceBearer]).size).toBe(3);
    expect(aliceAgain).toBe(alice);
    const references = upstream.requests.map((request) => JSON.stringify((request.body?.messages as unknown[])[2]));
    expect(references[0]).toContain(`${alice}/`);
    expect(references[1]).toContain(`${bob}/`);
    for (const request of upstream.requests)
      expect(request.rawBody.toString('utf8')).not.toContain('secret-looking output');
  });

  it('uses the session the header names, and keeps the header from the upstream', async () => {
    proxy = await startProxy(upstream.origin);

    await sendRaw(proxy.origin, '/v1/messages', {
      headers: { ...JSON_HEADERS, 'x-agent-context-session': 'team-build-42' },
      body: JSON.stringify(bodyWithToolResult()),
    });

    expect(proxy.events[0]?.sessionId).toBe('team-build-42');
    expect(upstream.requests[0]?.headers['x-agent-context-session']).toBeUndefined();
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain('/team-build-42/');
  });

  it('ignores moved prompt-cache markers: a conversation keeps its session as it grows', async () => {
    proxy = await startProxy(upstream.origin);
    const first = {
      model: 'claude-test',
      max_tokens: 8,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    };
    const second = {
      ...first,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: [{ type: 'text', text: 'More.', cache_control: { type: 'ephemeral' } }] },
      ],
    };

    await sendRaw(proxy.origin, '/v1/messages', { headers: JSON_HEADERS, body: JSON.stringify(first) });
    await sendRaw(proxy.origin, '/v1/messages', { headers: JSON_HEADERS, body: JSON.stringify(second) });

    expect(proxy.events[1]?.sessionId).toBe(proxy.events[0]?.sessionId);
    expect(proxy.events[0]?.sessionId).toMatch(/^auto-[0-9a-f]{32}$/);
  });
});
