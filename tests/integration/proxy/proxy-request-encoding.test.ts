/**
 * Request bodies a client compressed, through the real proxy: gzip, deflate and br are decoded,
 * managed and forwarded decoded (no `content-encoding`, the new length), zstd too (which Codex
 * sends); a body that is not what its encoding says is answered 400, and one that unfolds past the limit 413.
 */
import { execFileSync } from 'node:child_process';
import * as zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

const TOOL_OUTPUT = Array.from({ length: 200 }, (_, index) => `line ${index} of the build log`).join('\n');
const BODY = JSON.stringify({
  model: 'claude-test',
  max_tokens: 16,
  messages: [
    { role: 'user', content: 'Build it.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: TOOL_OUTPUT }] },
  ],
});

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
  proxy = await startProxy(upstream.origin);
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

function send(body: Buffer, encoding: string): ReturnType<typeof sendRaw> {
  return sendRaw(proxy.origin, '/v1/messages', {
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body,
  });
}

const ENCODED: readonly [string, (input: Buffer) => Buffer][] = [
  ['gzip', (input) => zlib.gzipSync(input)],
  ['deflate', (input) => zlib.deflateSync(input)],
  ['br', (input) => zlib.brotliCompressSync(input)],
];

describe('compressed request bodies', () => {
  it.each(ENCODED)('decodes a %s body, manages its history and forwards it decoded', async (encoding, encode) => {
    const reply = await send(encode(Buffer.from(BODY)), encoding);

    expect(reply.status).toBe(200);
    const received = upstream.requests[0];
    expect(received?.headers['content-encoding']).toBeUndefined();
    expect(received?.headers['content-length']).toBe(String(received?.rawBody.length));
    expect(JSON.stringify(received?.body)).toContain('[Tool result offloaded to file:');
    expect(proxy.events).toMatchObject([{ outcome: 'managed' }]);
  });

  it('undoes several encodings, the last applied first', async () => {
    const reply = await send(zlib.brotliCompressSync(zlib.gzipSync(Buffer.from(BODY))), 'gzip, br');

    expect(reply.status).toBe(200);
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain('[Tool result offloaded to file:');
  });

  it('answers 400 naming the encoding when the bytes are not what it says', async () => {
    const reply = await send(Buffer.from(BODY), 'gzip');

    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body.toString('utf8'))).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('not valid gzip') },
    });
    expect(upstream.requests).toEqual([]);
  });

  it('answers 413 when a small compressed body unfolds past the limit', async () => {
    await proxy.close();
    proxy = await startProxy(upstream.origin, { maxBodyBytes: 64 * 1024 });
    const bomb = zlib.gzipSync(Buffer.from(JSON.stringify({ model: 'm', messages: [], pad: 'x'.repeat(10_000_000) })));

    const reply = await send(bomb, 'gzip');

    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(reply.status).toBe(413);
    expect(reply.body.toString('utf8')).toContain('decoded');
    expect(upstream.requests).toEqual([]);
  });
});

describe('zstd request bodies', () => {
  // the zstd command line writes a real frame, as Codex sends
  const compressed = execFileSync('zstd', ['-c', '-q'], { input: BODY });

  it('decodes a zstd body, manages its history and forwards it decoded', async () => {
    const reply = await send(compressed, 'zstd');

    expect(reply.status).toBe(200);
    expect(upstream.requests[0]?.headers['content-encoding']).toBeUndefined();
    expect(JSON.stringify(upstream.requests[0]?.body)).toContain('[Tool result offloaded to file:');
    expect(proxy.warnings).toEqual([]);
  });

  it('answers 413 for a zstd body that unfolds past the limit', async () => {
    await proxy.close();
    proxy = await startProxy(upstream.origin, { maxBodyBytes: 64 * 1024 });
    const bomb = execFileSync('zstd', ['-c', '-q'], {
      input: JSON.stringify({ model: 'm', messages: [], pad: 'x'.repeat(10_000_000) }),
    });

    const reply = await send(bomb, 'zstd');

    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(reply.status).toBe(413);
    expect(upstream.requests).toEqual([]);
  });
});
