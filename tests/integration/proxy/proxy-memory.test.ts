/**
 * What the proxy keeps in memory is bounded in bytes, not only in sessions: sessions of large
 * requests through the real proxy leave at most about `maxKeptBytes` of them behind, and a
 * session forgotten this way is prepared alike at its next request (from its records).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const MIB = 1024 * 1024;
const REQUEST_BYTES = 4 * MIB;
const MAX_KEPT_BYTES = 8 * MIB;

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((_request, response) =>
    sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 10, output_tokens: 1 })),
  );
  proxy = await startProxy(upstream.origin, { maxKeptBytes: MAX_KEPT_BYTES });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

/** A session's request: a user message and a tool result of about `REQUEST_BYTES`. */
function sessionBody(session: number, extra: readonly unknown[] = []): string {
  return JSON.stringify({
    model: 'claude-test',
    max_tokens: 8,
    messages: [
      { role: 'user', content: `session ${session}: read the log` },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat log' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: `${session} `.padEnd(REQUEST_BYTES, 'log line\n') },
        ],
      },
      ...extra,
    ],
  });
}

function send(session: number, body: string): ReturnType<typeof sendRaw> {
  return sendRaw(proxy.origin, '/v1/messages', {
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-one',
      'x-agent-context-session': `s${session}`,
    },
    body,
  });
}

/** Heap and buffers in use once garbage is collected. */
function keptBytes(): number {
  collectGarbage();
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

describe('memory kept across sessions', () => {
  it('keeps about maxKeptBytes of requests, however many sessions sent large ones', async () => {
    // what the first request loads once (the tokenizer, the modules) is not what a session keeps
    await send(
      99,
      JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    );
    const before = keptBytes();

    for (let session = 0; session < 12; session += 1) {
      expect((await send(session, sessionBody(session))).status).toBe(200);
      // an event's figures are counted when read, off the history: the test keeps none of them
      proxy.events.length = 0;
    }
    const grown = keptBytes() - before;

    // each request is held as its bytes and as parsed text: 12 sessions of 4 MiB kept whole would be over 96 MiB
    expect(grown).toBeLessThan(4 * MAX_KEPT_BYTES);
  });

  it('prepares a forgotten session alike at its next request', async () => {
    const next = [
      { role: 'assistant', content: 'Read.' },
      { role: 'user', content: 'Thanks.' },
    ];
    await send(0, sessionBody(0));
    for (let session = 1; session < 4; session += 1) await send(session, sessionBody(session));
    await send(0, sessionBody(0, next));

    const first = upstream.requests[0]?.body?.messages as unknown[];
    const again = upstream.requests[4]?.body?.messages as unknown[];
    expect(again.slice(0, 3)).toEqual(first);
  });
});
