/**
 * An answer streamed as one line of hundreds of megabytes (a `response.completed` event holding
 * a huge output), produced lazily by a local upstream and read through the real proxy: the proxy
 * passes every byte on, keeps running, and still reads the usage after the output.
 */
import { request as httpRequest, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';

/** Over V8's longest string (about 512 MiB): a line this long cannot be held as one string. */
const LINE_BYTES = 600 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 'x');
const INPUT_TOKENS = 4321;

let upstream: ScriptedUpstream | undefined;
let proxy: RunningProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** Writes one `response.completed` event whose output text is `LINE_BYTES` long, chunk by chunk, as the reader drains it. */
async function streamHugeEvent(response: ServerResponse): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const write = (chunk: Buffer | string): Promise<void> =>
    response.write(chunk) ? Promise.resolve() : new Promise((resolve) => response.once('drain', () => resolve()));
  await write(
    'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1","object":"response","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"',
  );
  for (let sent = 0; sent < LINE_BYTES; sent += CHUNK.length) await write(CHUNK);
  await write(
    `"}]}],"usage":{"input_tokens":${INPUT_TOKENS},"output_tokens":1,"total_tokens":${INPUT_TOKENS + 1}}}}\n\n`,
  );
  response.end();
}

/** Posts `body` and counts the answer's bytes without keeping them. */
function postCounting(origin: string, body: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${origin}/v1/responses`,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-one' } },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('a streamed line of any length', () => {
  it('passes a 600 MB line through whole and reads the usage after it', { timeout: 120_000 }, async () => {
    upstream = await startScriptedUpstream((_request, response) => streamHugeEvent(response));
    proxy = await startProxy(upstream.origin);
    const input = [{ role: 'user', content: 'Write a very long answer.' }];

    const first = await postCounting(proxy.origin, JSON.stringify({ model: 'gpt-test', stream: true, input }));
    upstream.answer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'resp_2', object: 'response', output: [], usage: { input_tokens: 1 } }));
    });
    const second = await postCounting(
      proxy.origin,
      JSON.stringify({
        model: 'gpt-test',
        input: [...input, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Thanks.' }],
      }),
    );

    expect(first.status).toBe(200);
    expect(first.bytes).toBeGreaterThan(LINE_BYTES);
    expect(second.status).toBe(200);
    // the usage reported after the output anchored the next request
    expect(proxy.events[1]?.stats?.anchoredMessages).toBe(1);
    expect(proxy.events[1]?.stats?.tokensBefore).toBeGreaterThanOrEqual(INPUT_TOKENS);
  });
});
