/**
 * The usage read off answers on the side: a compressed JSON answer (passed to the client still
 * compressed, byte for byte), a stream cut into one-byte chunks, and an error answer, whose
 * figures are never taken for the next request.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  anthropicStreamEvents,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamAnswer,
} from '../../fixtures/scripted-llm-server.js';

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-one', 'accept-encoding': 'gzip' };
const FIRST = [{ role: 'user', content: 'Summarize the release notes.' }];
const SECOND = [...FIRST, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Shorter.' }];

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

/** Sends the first request answered by `first`, then the second, and returns the second's event. */
async function twoRequests(first: UpstreamAnswer) {
  upstream.answer(first);
  const reply = await sendRaw(proxy.origin, '/v1/messages', {
    headers: HEADERS,
    body: JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: FIRST }),
  });
  upstream.answer((_request, response) => {
    response.end(JSON.stringify(anthropicBody([], { input_tokens: 1, output_tokens: 1 })));
  });
  await sendRaw(proxy.origin, '/v1/messages', {
    headers: HEADERS,
    body: JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: SECOND }),
  });
  return { reply, second: proxy.events[1] };
}

describe('usage read off the answer', () => {
  it('reads a gzip-compressed JSON answer, which reaches the client as compressed as it came', async () => {
    const compressed = gzipSync(
      JSON.stringify(
        anthropicBody([{ type: 'text', text: 'Done.' }], {
          input_tokens: 80_000,
          cache_read_input_tokens: 20_000,
          output_tokens: 2,
        }),
      ),
    );

    const { reply, second } = await twoRequests((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': compressed.length,
      });
      response.end(compressed);
    });

    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.body.equals(compressed)).toBe(true);
    expect(second?.stats?.anchoredMessages).toBe(1);
    expect(second?.stats?.tokensBefore).toBeGreaterThanOrEqual(100_000);
  });

  it('reads the usage after the content of a JSON answer over 16 MiB', async () => {
    const body = JSON.stringify(
      anthropicBody([{ type: 'text', text: 'x'.repeat(20 * 1024 * 1024) }], { input_tokens: 70_000, output_tokens: 2 }),
    );

    const { reply, second } = await twoRequests((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });

    expect(reply.body.length).toBe(Buffer.byteLength(body));
    expect(second?.stats?.anchoredMessages).toBe(1);
    expect(second?.stats?.tokensBefore).toBeGreaterThanOrEqual(70_000);
  });

  it('reads a stream that arrives one byte at a time', async () => {
    const bytes = Buffer.from(
      anthropicStreamEvents([{ type: 'text', text: 'Done.' }], { input_tokens: 90_000, output_tokens: 2 }).join(''),
    );

    const { reply, second } = await twoRequests((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const byte of bytes) response.write(Buffer.from([byte]));
      response.end();
    });

    expect(reply.body.equals(bytes)).toBe(true);
    expect(second?.stats?.anchoredMessages).toBe(1);
    expect(second?.stats?.tokensBefore).toBeGreaterThanOrEqual(90_000);
  });

  it('takes no figure from an error answer', async () => {
    const { reply, second } = await twoRequests((_request, response) => {
      response.writeHead(529, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'overloaded_error', message: 'busy' },
          usage: { input_tokens: 90_000 },
        }),
      );
    });

    expect(reply.status).toBe(529);
    expect(second?.stats?.anchoredMessages).toBe(0);
    expect(second?.stats?.tokensBefore).toBeLessThan(1000);
  });
});
