/**
 * The proxy between the official SDKs and a scripted upstream, over real HTTP on 127.0.0.1: the
 * three managed routes, streamed and not; the rest of the body and the headers forwarded as they
 * came; answers streamed back byte for byte as they arrive; usage read off them for the next
 * request; every other route passed through untouched.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { isAbsolute } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guessProvider } from '../../../src/proxy/routes.js';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  anthropicStreamEvents,
  chatBody,
  chatStreamChunks,
  responsesBody,
  responsesStreamEvents,
  sendJson,
  sendStream,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const BUILD_LOG = Array.from(
  { length: 1500 },
  (_, index) => `[build] step ${index}: compiled src/module-${index}.ts`,
).join('\n');
const TOOLS: Anthropic.Tool[] = [
  {
    name: 'Bash',
    description: 'Runs a shell command.',
    input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
  },
];
const SYSTEM = 'You are a build agent.';
const REFERENCE = /^\[Tool result offloaded to file: (.+)\]$/;

/** An Anthropic history whose last message holds a large tool result. */
function anthropicHistory(): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: 'Run the build and tell me what failed.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: 'npm run build' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_build', content: BUILD_LOG }] },
  ];
}

/** The SDK sends the key as `x-api-key` or as a bearer token, depending on its version. */
function sentKey(headers: Record<string, unknown>): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  const authorization = headers.authorization;
  return typeof authorization === 'string' ? authorization.replace(/^Bearer /, '') : undefined;
}

/** The text of the tool result the upstream received in message `index`. */
function sentToolResult(body: Record<string, unknown> | undefined, index: number): unknown {
  const messages = body?.messages as { content: { content?: unknown }[] }[];
  return messages[index]?.content[0]?.content;
}

/** The reference's path, after checking the text is exactly a reference to an absolute path under `dir`. */
function referencePath(text: unknown, dir: string): string {
  const match = REFERENCE.exec(String(text));
  expect(match, String(text).slice(0, 200)).not.toBeNull();
  const path = match![1]!;
  expect(isAbsolute(path)).toBe(true);
  expect(path.startsWith(dir)).toBe(true);
  return path;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream();
  proxy = await startProxy(upstream.origin);
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('POST /v1/messages (Anthropic)', () => {
  it('offloads a large tool result to a file the reference names, and forwards everything else as it came', async () => {
    upstream.answer((_request, response) =>
      sendJson(
        response,
        anthropicBody([{ type: 'text', text: 'The build passed.' }], { input_tokens: 900, output_tokens: 7 }),
      ),
    );
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });

    const reply = await client.messages.create({
      model: 'claude-test',
      max_tokens: 512,
      system: SYSTEM,
      tools: TOOLS,
      messages: anthropicHistory(),
    });

    expect(reply.content).toEqual([{ type: 'text', text: 'The build passed.' }]);
    const [received] = upstream.requests;
    expect(received?.url).toBe('/v1/messages');
    expect(sentKey(received!.headers)).toBe('sk-ant-one');
    expect(received?.headers['anthropic-version']).toBeDefined();
    expect(received?.headers['content-length']).toBe(String(received?.rawBody.length));
    const { messages, ...rest } = received!.body!;
    expect(rest).toEqual({ model: 'claude-test', max_tokens: 512, system: SYSTEM, tools: TOOLS });
    expect((messages as unknown[]).slice(0, 2)).toEqual(anthropicHistory().slice(0, 2));
    const path = referencePath(sentToolResult(received?.body, 2), proxy.dir);
    expect(await readFile(path, 'utf8')).toBe(BUILD_LOG);
    expect(proxy.events).toMatchObject([
      {
        route: '/v1/messages',
        outcome: 'managed',
        messagesIn: 3,
        messagesOut: 3,
        actions: [{ type: 'direct-offload', toolCallIds: ['toolu_build'] }],
      },
    ]);
  });

  it('forwards a history with nothing to offload byte for byte', async () => {
    upstream.answer((_request, response) =>
      sendJson(response, anthropicBody([], { input_tokens: 20, output_tokens: 1 })),
    );
    const body =
      '{ "model" : "claude-test",\n  "max_tokens": 64, "messages": [ {"role": "user", "content": "caf\\u00e9?"} ] }';

    const reply = await sendRaw(proxy.origin, '/v1/messages?beta=true', {
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one' },
      body,
    });

    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.url).toBe('/v1/messages?beta=true');
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    expect(proxy.events[0]?.outcome).toBe('unchanged');
  });

  it('streams the answer back byte for byte, each chunk as it arrives', async () => {
    const events = anthropicStreamEvents([{ type: 'text', text: 'Ça compile — 構築は成功しました.' }], {
      input_tokens: 700,
      output_tokens: 9,
    });
    const bytes = Buffer.from(events.join(''), 'utf8');
    // split anywhere, inside events and inside a multi-byte character
    const chunks = [
      bytes.subarray(0, 37),
      bytes.subarray(37, 301),
      bytes.subarray(301, bytes.indexOf('構') + 1),
      bytes.subarray(bytes.indexOf('構') + 1),
    ];
    let releaseRest!: () => void;
    const rest = new Promise<void>((resolve) => (releaseRest = resolve));
    upstream.answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunks[0]);
      // the rest only after the client holds the first chunk: a proxy that buffered would never get here
      await rest;
      for (const chunk of chunks.slice(1)) response.write(chunk);
      response.end();
    });

    const received = await new Promise<Buffer>((resolve, reject) => {
      const outgoing = httpRequest(
        `${proxy.origin}/v1/messages`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one' } },
        (response) => {
          const parts: Buffer[] = [];
          response.on('data', (chunk: Buffer) => {
            parts.push(chunk);
            if (parts.length === 1) releaseRest();
          });
          response.on('end', () => resolve(Buffer.concat(parts)));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(
        JSON.stringify({ model: 'claude-test', max_tokens: 64, stream: true, messages: anthropicHistory() }),
      );
    });

    expect(received.equals(bytes)).toBe(true);
  });

  it('reads the usage of a streamed answer and anchors the next request on it', async () => {
    upstream.answer((_request, response) =>
      sendStream(
        response,
        anthropicStreamEvents([{ type: 'text', text: 'Done.' }], {
          input_tokens: 120_000,
          cache_read_input_tokens: 30_000,
          cache_creation_input_tokens: 5_000,
          output_tokens: 3,
        }),
      ),
    );
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const history = anthropicHistory();

    const first = await client.messages
      .stream({ model: 'claude-test', max_tokens: 64, system: SYSTEM, messages: history })
      .finalMessage();
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      system: SYSTEM,
      messages: [...history, { role: 'assistant', content: first.content }, { role: 'user', content: 'Thanks.' }],
    });

    expect(first.content).toEqual([{ type: 'text', text: 'Done.' }]);
    const [, second] = proxy.events;
    expect(second?.sessionId).toBe(proxy.events[0]?.sessionId);
    expect(second?.stats?.anchoredMessages).toBe(3);
    // the provider's 155,000 tokens for the first three messages, plus an estimate of the two new ones
    expect(second?.stats?.tokensBefore).toBeGreaterThanOrEqual(155_000);
    expect(second?.stats?.tokensBefore).toBeLessThan(155_100);
  });
});

describe('POST /v1/responses (OpenAI Responses)', () => {
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: 'Run the build.' },
    {
      type: 'function_call',
      call_id: 'call_build',
      name: 'shell',
      arguments: JSON.stringify({ command: 'npm run build' }),
    },
    { type: 'function_call_output', call_id: 'call_build', output: BUILD_LOG },
  ];

  it('offloads a large function output, streamed, and reads the usage of response.completed', async () => {
    upstream.answer((request, response) =>
      request.body?.stream === true
        ? sendStream(response, responsesStreamEvents([{ type: 'message', text: 'Built.' }], 64_000))
        : sendJson(response, responsesBody([], 65_000)),
    );
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });

    const stream = await client.responses.create({ model: 'gpt-test', instructions: SYSTEM, input, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    await client.responses.create({
      model: 'gpt-test',
      instructions: SYSTEM,
      input: [...input, { role: 'assistant', content: 'Built.' }, { role: 'user', content: 'Thanks.' }],
    });

    expect(types.at(-1)).toBe('response.completed');
    const [received] = upstream.requests;
    expect(received?.url).toBe('/v1/responses');
    expect(received?.headers.authorization).toBe('Bearer sk-openai-one');
    expect(received?.body?.instructions).toBe(SYSTEM);
    const output = (received?.body?.input as { output?: unknown }[])[2]?.output;
    expect(await readFile(referencePath(output, proxy.dir), 'utf8')).toBe(BUILD_LOG);
    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(3);
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(64_000);
  });

  it('returns a non-streamed Response as the upstream wrote it', async () => {
    upstream.answer((_request, response) =>
      sendJson(response, responsesBody([{ type: 'message', text: 'Built.' }], 500)),
    );
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });

    const reply = await client.responses.create({ model: 'gpt-test', input });

    expect(reply.output_text).toBe('Built.');
    expect(proxy.events[0]).toMatchObject({ route: '/v1/responses', outcome: 'managed' });
  });
});

describe('POST /v1/chat/completions (OpenAI Chat)', () => {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Run the build.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_build', type: 'function', function: { name: 'shell', arguments: '{"command":"npm run build"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_build', content: BUILD_LOG },
  ];

  it('offloads a large tool message and reads the usage chunk of a stream', async () => {
    upstream.answer((request, response) =>
      request.body?.stream === true
        ? sendStream(response, chatStreamChunks('Built.', 42_000))
        : sendJson(response, chatBody('Thanks.', 43_000)),
    );
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });

    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    const reply = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [...messages, { role: 'assistant', content: text }, { role: 'user', content: 'Thanks.' }],
    });

    expect(text).toBe('Built.');
    expect(reply.choices[0]?.message.content).toBe('Thanks.');
    const sent = upstream.requests[0]?.body?.messages as { content?: unknown }[];
    expect(sent[0]).toEqual({ role: 'system', content: SYSTEM });
    expect(await readFile(referencePath(sent[3]?.content, proxy.dir), 'utf8')).toBe(BUILD_LOG);
    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(4);
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(42_000);
  });
});

describe('other routes', () => {
  it('passes GET /v1/models through untouched, credentials included', async () => {
    upstream.answer((_request, response) =>
      sendJson(
        response,
        { object: 'list', data: [{ id: 'gpt-test', object: 'model', created: 0, owned_by: 'test' }] },
        200,
        { 'x-request-id': 'req_1' },
      ),
    );
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });

    const models = await client.models.list();

    expect(models.data.map((model) => model.id)).toEqual(['gpt-test']);
    expect(upstream.requests[0]).toMatchObject({
      method: 'GET',
      url: '/v1/models',
      headers: { authorization: 'Bearer sk-openai-one' },
    });
    expect(proxy.events).toEqual([]);
  });

  it('passes POST /v1/messages/count_tokens of a history with nothing to manage on with the body as it came', async () => {
    upstream.answer((_request, response) => sendJson(response, { input_tokens: 4242 }, 200, { 'x-scripted': 'yes' }));
    const body = JSON.stringify({ model: 'claude-test', messages: anthropicHistory().slice(0, 2) });

    const reply = await sendRaw(proxy.origin, '/v1/messages/count_tokens', {
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one' },
      body,
    });

    expect(reply.status).toBe(200);
    expect(reply.headers['x-scripted']).toBe('yes');
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ input_tokens: 4242 });
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    expect(upstream.requests[0]?.headers['x-api-key']).toBe('sk-ant-one');
  });

  it('passes an upstream error on as it came', async () => {
    upstream.answer((_request, response) =>
      sendJson(response, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, 429, {
        'retry-after': '7',
      }),
    );

    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });

    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('7');
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
  });

  it("puts the upstream's own path before the request's", async () => {
    const prefixed = await startProxy(`${upstream.origin}/gateway/`);
    upstream.answer((_request, response) =>
      sendJson(response, anthropicBody([], { input_tokens: 1, output_tokens: 1 })),
    );

    await sendRaw(prefixed.origin, '/v1/messages?beta=true', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await sendRaw(prefixed.origin, '/v1/models', { method: 'GET' });
    await prefixed.close();

    expect(upstream.requests.map((request) => request.url)).toEqual([
      '/gateway/v1/messages?beta=true',
      '/gateway/v1/models',
    ]);
  });

  it('picks the default upstream of a request it does not manage from its headers', () => {
    expect(guessProvider('/v1/models', { authorization: 'Bearer sk-openai-one' })).toBe('openai');
    expect(guessProvider('/v1/models', { authorization: 'Bearer oauth', 'anthropic-version': '2023-06-01' })).toBe(
      'anthropic',
    );
    expect(guessProvider('/v1/messages/count_tokens', { authorization: 'Bearer oauth' })).toBe('anthropic');
    // Claude Code's connectivity check, HEAD /api/hello, carries no credential
    expect(guessProvider('/api/hello', {})).toBe('anthropic');
  });
});
