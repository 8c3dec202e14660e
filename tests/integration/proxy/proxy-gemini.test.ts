/**
 * The Gemini API through the real proxy, over real HTTP: `generateContent`, `streamGenerateContent`
 * as server-sent events (`?alt=sse`) and as a JSON array, the key in a header or in the query.
 * The client is `fetch` as the Gemini SDKs send: the official `@google/genai` SDK needs Node 22.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import { sendJson, startScriptedUpstream, type ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';

const MODEL_PATH = '/v1beta/models/gemini-2.5-pro';
const KEY_HEADERS = { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-one' };
const LARGE_LOG = Array.from({ length: 900 }, (_, index) => `PASS tests/case-${index}.spec.ts (3 ms)`).join('\n');

/** A Gemini CLI-like history: the model called the shell without an id, the CLI answered with one. */
function history(output = LARGE_LOG): unknown[] {
  return [
    { role: 'user', parts: [{ text: 'Run the tests and tell me what failed.' }] },
    {
      role: 'model',
      parts: [
        { text: 'Running them.' },
        { functionCall: { name: 'run_shell_command', args: { command: 'npm test' } }, thoughtSignature: 'c2ln' },
      ],
    },
    {
      role: 'user',
      parts: [{ functionResponse: { id: 'run_shell_command-1', name: 'run_shell_command', response: { output } } }],
    },
  ];
}

function body(contents: unknown[]): string {
  return JSON.stringify({
    systemInstruction: { parts: [{ text: 'You are a coding agent.' }] },
    contents,
    tools: [{ functionDeclarations: [{ name: 'run_shell_command', parameters: { type: 'object' } }] }],
    generationConfig: { temperature: 0 },
  });
}

/** A `generateContent` answer reporting `promptTokenCount`. */
function answer(text: string, promptTokenCount: number): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount,
      cachedContentTokenCount: 0,
      candidatesTokenCount: 3,
      totalTokenCount: promptTokenCount + 3,
    },
    modelVersion: 'gemini-2.5-pro',
  };
}

/** A request whose answer is read to its end: the proxy records the usage before the last bytes. */
async function post(url: string, init: RequestInit): Promise<string> {
  const reply = await fetch(url, init);
  return reply.text();
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) => sendJson(response, answer('Done.', 12)));
  proxy = await startProxy(upstream.origin, { offload: { directThreshold: 2_000 } });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

function sentContents(index: number): Array<{ role: string; parts: Array<Record<string, unknown>> }> {
  return upstream.requests[index]!.body!.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
}

describe('Gemini generateContent through the proxy', () => {
  it('offloads a large function response: a reference in its output, its id, name and every other content kept', async () => {
    const reply = await fetch(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(history()),
    });

    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual(answer('Done.', 12));
    const sent = sentContents(0);
    expect(sent.slice(0, 2)).toEqual(history().slice(0, 2));
    const response = sent[2]!.parts[0]!.functionResponse as { id: string; name: string; response: { output: string } };
    expect(response).toMatchObject({ id: 'run_shell_command-1', name: 'run_shell_command' });
    const reference = /offloaded to file: (\S+)\]/.exec(response.response.output)?.[1];
    expect(reference?.startsWith(proxy.dir)).toBe(true);
    expect(await readFile(reference!, 'utf8')).toBe(LARGE_LOG);
    expect(upstream.requests[0]!.rawBody.length).toBeLessThan(Buffer.byteLength(body(history())) / 4);
    expect(proxy.events[0]).toMatchObject({ route: '/v1beta/models/*:generateContent', outcome: 'managed' });
  });

  it('forwards the key, the path and the query as they came, and the body bytes untouched when nothing is offloaded', async () => {
    const small = body(history('2 passed'));
    await post(`${proxy.origin}${MODEL_PATH}:generateContent?key=AIza-query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: small,
    });

    const [request] = upstream.requests;
    expect(request?.url).toBe(`${MODEL_PATH}:generateContent?key=AIza-query`);
    expect(request?.rawBody.toString('utf8')).toBe(small);
    expect(proxy.events[0]?.outcome).toBe('unchanged');
  });

  it('reads usageMetadata off the answer: the next request starts from the figure Gemini gave', async () => {
    upstream.answer((_request, response) => sendJson(response, answer('Looking.', 90_000)));
    const first = [{ role: 'user', parts: [{ text: 'Review the diff.' }] }];
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(first),
    });
    upstream.answer((_request, response) => sendJson(response, answer('Done.', 1)));
    const second = [
      ...first,
      { role: 'model', parts: [{ text: 'Looking.' }] },
      { role: 'user', parts: [{ text: 'And?' }] },
    ];
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(second),
    });

    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(1);
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(90_000);
  });

  it('never shares a session between two keys, in a header or in the query, that open with the same words', async () => {
    const opening = body([{ role: 'user', parts: [{ text: 'hi' }] }]);
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: opening,
    });
    await post(`${proxy.origin}${MODEL_PATH}:generateContent?key=AIza-two`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: opening,
    });
    await post(`${proxy.origin}${MODEL_PATH}:generateContent?key=AIza-three`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: opening,
    });

    expect(new Set(proxy.events.map((event) => event.sessionId)).size).toBe(3);
  });
});

describe('Gemini streamGenerateContent through the proxy', () => {
  const chunks = [
    {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Do' }] }, index: 0 }],
      usageMetadata: { promptTokenCount: 70_000 },
    },
    {
      candidates: [{ content: { role: 'model', parts: [{ text: 'ne.' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 70_000, candidatesTokenCount: 2, totalTokenCount: 70_002 },
    },
  ];

  async function followUp(): Promise<void> {
    upstream.answer((_request, response) => sendJson(response, answer('ok', 1)));
    const next = [
      ...history('2 passed'),
      { role: 'model', parts: [{ text: 'Done.' }] },
      { role: 'user', parts: [{ text: 'Thanks.' }] },
    ];
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(next),
    });
  }

  it('passes server-sent events (alt=sse) through byte for byte and reads their usage', async () => {
    const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
    upstream.answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of events) for (let at = 0; at < event.length; at += 7) response.write(event.slice(at, at + 7));
      response.end();
    });
    const reply = await fetch(`${proxy.origin}${MODEL_PATH}:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(history('2 passed')),
    });
    expect(await reply.text()).toBe(events.join(''));
    expect(upstream.requests[0]?.url).toBe(`${MODEL_PATH}:streamGenerateContent?alt=sse`);

    await followUp();
    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(3);
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(70_000);
  });

  it('passes a stream without alt=sse (one JSON array written as it grows) through and reads its usage', async () => {
    const text = `[${chunks.map((chunk) => JSON.stringify(chunk, null, 2)).join(',\r\n')}]`;
    upstream.answer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      for (let at = 0; at < text.length; at += 11) response.write(text.slice(at, at + 11));
      response.end();
    });
    const reply = await fetch(`${proxy.origin}${MODEL_PATH}:streamGenerateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(history('2 passed')),
    });
    expect(await reply.text()).toBe(text);

    await followUp();
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(70_000);
  });
});

describe('Gemini errors in Google shape', () => {
  it('answers a body that is not JSON with 400 INVALID_ARGUMENT', async () => {
    const reply = await sendRaw(proxy.origin, `${MODEL_PATH}:generateContent`, {
      headers: KEY_HEADERS,
      body: '{"contents": [',
    });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
      error: { code: 400, message: expect.stringContaining('not valid JSON'), status: 'INVALID_ARGUMENT' },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 502 UNAVAILABLE when the upstream cannot be reached', async () => {
    await upstream.close();
    const reply = await sendRaw(proxy.origin, `${MODEL_PATH}:generateContent`, {
      headers: KEY_HEADERS,
      body: body(history()),
    });
    expect(reply.status).toBe(502);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({ error: { code: 502, status: 'UNAVAILABLE' } });
    upstream = await startScriptedUpstream();
  });

  it('sends a history that is not Gemini contents on unchanged, saying why', async () => {
    const bad = JSON.stringify({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] });
    const reply = await sendRaw(proxy.origin, `${MODEL_PATH}:generateContent`, { headers: KEY_HEADERS, body: bad });
    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(bad);
    expect(proxy.warnings.join('\n')).toContain('messages[0].role: must be "user" or "model"');
    expect(proxy.events[0]?.outcome).toBe('fail-open');
  });
});

describe('Gemini compaction through the proxy', () => {
  function longSession(): unknown[] {
    const contents: unknown[] = [{ role: 'user', parts: [{ text: 'Go through every module.' }] }];
    for (let turn = 0; turn < 14; turn += 1) {
      contents.push({
        role: 'model',
        parts: [
          { text: `Module ${turn}: ${'checking the contract again '.repeat(120)}` },
          { functionCall: { name: 'read_file', args: { path: `src/module-${turn}.ts` } } },
        ],
      });
      contents.push({
        role: 'user',
        parts: [
          { functionResponse: { name: 'read_file', response: { output: `export const value${turn} = ${turn};` } } },
        ],
      });
    }
    return contents;
  }

  it('compacts a long session into contents where each response still follows its call', async () => {
    await proxy.close();
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6_000 });
    const contents = longSession();
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(contents),
    });

    expect(proxy.events[0]?.actions.some((action) => action.type === 'compact')).toBe(true);
    const sent = sentContents(0);
    expect(sent.length).toBeLessThan(contents.length);
    expect(sent[0]?.role).toBe('user');
    sent.forEach((content, index) => {
      for (const part of content.parts) {
        const response = part.functionResponse as { name: string } | undefined;
        if (response === undefined) continue;
        const previous = sent[index - 1];
        expect(previous?.role).toBe('model');
        expect(
          previous?.parts.some((call) => (call.functionCall as { name?: string } | undefined)?.name === response.name),
        ).toBe(true);
      }
    });
  });

  it('writes the extractive summary when asked for upstream summaries: only Anthropic and OpenAI APIs are asked', async () => {
    await proxy.close();
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6_000, summarizer: 'upstream' });
    await post(`${proxy.origin}${MODEL_PATH}:generateContent`, {
      method: 'POST',
      headers: KEY_HEADERS,
      body: body(longSession()),
    });

    const compaction = proxy.events[0]?.actions.find((action) => action.type === 'compact');
    expect(compaction).toMatchObject({ summarizer: 'extractive' });
    expect(upstream.requests).toHaveLength(1);
  });
});
