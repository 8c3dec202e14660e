/**
 * The providers' own compaction through the proxy, with the official SDKs against a scripted
 * upstream: Anthropic's `compaction` blocks and `context_management` reach the upstream as the
 * client sent them, the history after the block is still managed; OpenAI's encrypted compaction
 * items likewise, and `POST /v1/responses/compact` passes through byte for byte, streamed or not.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  BetaCompactionBlockParam,
  BetaContextManagementConfig,
  BetaMessageParam,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  responsesBody,
  sendJson,
  sendStream,
  sseEvent,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';

const BUILD_LOG = Array.from(
  { length: 800 },
  (_, index) => `[build] step ${index}: compiled src/module-${index}.ts`,
).join('\n');
const TEST_LOG = Array.from(
  { length: 800 },
  (_, index) => `[test] case ${index}: passed in src/case-${index}.test.ts`,
).join('\n');

const COMPACTION_BLOCK: BetaCompactionBlockParam = {
  type: 'compaction',
  content: 'Summary by the provider: the build of the date parser passed; the tests are next.',
  encrypted_content: 'EuYBCkYIBRgCKkB+opaque/metadata==',
  signature: 'sig-0a1b2c3d',
};

const CONTEXT_MANAGEMENT: BetaContextManagementConfig = {
  edits: [
    {
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 30_000 },
      keep: { type: 'tool_uses', value: 3 },
    },
    { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 150_000 }, pause_after_compaction: false },
  ],
};

const BASH = {
  name: 'Bash',
  description: 'Runs a shell command.',
  input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
};

/** Everything through the provider's compaction: a build log the proxy would offload, then the block. */
function anthropicThroughCompaction(): BetaMessageParam[] {
  return [
    { role: 'user', content: 'Build the date parser, then run its tests.' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_build', name: 'Bash', input: { command: 'npm run build' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_build', content: BUILD_LOG }] },
    {
      role: 'assistant',
      content: [COMPACTION_BLOCK, { type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }],
    },
  ];
}

/** The JSON of `items` as they sit in an array the SDK wrote: what must reach the upstream unchanged. */
function itemsJson(items: readonly unknown[]): string {
  return JSON.stringify(items).slice(1, -1);
}

function bodyOf(record: UpstreamRecord | undefined): Record<string, unknown> {
  return record?.body ?? {};
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream();
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('Anthropic server-side compaction through the proxy', () => {
  it('sends the compaction block, everything before it and context_management byte for byte, and offloads after it', async () => {
    upstream.answer((_record, response) =>
      sendJson(
        response,
        anthropicBody([{ type: 'text', text: 'Tests pass.' }], { input_tokens: 900, output_tokens: 5 }),
      ),
    );
    proxy = await startProxy(upstream.origin, { offload: { directThreshold: 2000 } });
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const through = anthropicThroughCompaction();

    await client.beta.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      betas: ['compact-2026-01-12', 'context-management-2025-06-27'],
      context_management: CONTEXT_MANAGEMENT,
      tools: [BASH],
      messages: [
        ...through,
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_test', content: TEST_LOG }] },
      ],
    });

    const [record] = upstream.requests;
    const raw = record?.rawBody.toString('utf8') ?? '';
    expect(raw).toContain(`"messages":[${itemsJson(through)},`);
    expect(raw).toContain(`"context_management":${JSON.stringify(CONTEXT_MANAGEMENT)}`);
    expect(record?.headers['anthropic-beta']).toBe('compact-2026-01-12,context-management-2025-06-27');
    const messages = bodyOf(record).messages as BetaMessageParam[];
    // the result after the compaction is the proxy's to manage: offloaded to a reference
    expect(JSON.stringify(messages.at(-1))).not.toContain(TEST_LOG.slice(0, 200));
    expect(proxy.events[0]?.outcome).toBe('managed');
  });

  it('carries a compaction block streamed by the upstream into the next request unchanged', async () => {
    const streamedBlock = {
      type: 'compaction',
      content: 'Streamed summary of the session.',
      encrypted_content: 'Zm9v+YmFy/==',
    };
    upstream.answer((record, response) => {
      if (upstream.requests.length > 1)
        return sendJson(
          response,
          anthropicBody([{ type: 'text', text: 'Done.' }], { input_tokens: 50, output_tokens: 5 }),
        );
      const start = anthropicBody([], { input_tokens: 40_000, output_tokens: 1 });
      return sendStream(response, [
        sseEvent({ type: 'message_start', message: { ...start, stop_reason: null } }),
        sseEvent({
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'compaction', content: null, encrypted_content: null },
        }),
        sseEvent({
          type: 'content_block_delta',
          index: 0,
          delta: {
            type: 'compaction_delta',
            content: streamedBlock.content,
            encrypted_content: streamedBlock.encrypted_content,
          },
        }),
        sseEvent({ type: 'content_block_stop', index: 0 }),
        sseEvent({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
        sseEvent({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Continuing.' } }),
        sseEvent({ type: 'content_block_stop', index: 1 }),
        sseEvent({
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 9 },
        }),
        sseEvent({ type: 'message_stop' }),
      ]);
    });
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 20_000 });
    const client = new Anthropic({ apiKey: 'sk-ant-one', baseURL: proxy.origin, maxRetries: 0 });
    const first: BetaMessageParam[] = [{ role: 'user', content: `Summarize this log.\n${BUILD_LOG}` }];

    const reply = await client.beta.messages
      .stream({
        model: 'claude-test',
        max_tokens: 64,
        betas: ['compact-2026-01-12'],
        context_management: CONTEXT_MANAGEMENT,
        messages: first,
      })
      .finalMessage();
    expect(reply.content[0]).toEqual(streamedBlock);

    const next: BetaMessageParam[] = [
      ...first,
      { role: 'assistant', content: reply.content },
      { role: 'user', content: 'Go on.' },
    ];
    await client.beta.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      betas: ['compact-2026-01-12'],
      messages: next,
    });

    const sent = bodyOf(upstream.requests[1]).messages as BetaMessageParam[];
    // the history before the block is over this window, yet the provider dropped it: nothing is compacted
    expect(sent).toEqual(next);
    expect(proxy.events[1]?.actions).toEqual([]);
    expect(proxy.warnings).toEqual([]);
    expect(upstream.requests[1]?.rawBody.toString('utf8')).toContain(itemsJson(next.slice(0, 2)));
  });
});

describe('OpenAI compaction through the proxy', () => {
  const compactionItem: ResponseInputItem = {
    type: 'compaction',
    id: 'cmp_68c1f0',
    encrypted_content: 'gAAAAABo-opaque-ciphertext_with/slashes+and=padding==',
  };

  it('sends an encrypted compaction item and every item before it byte for byte, and offloads after it', async () => {
    upstream.answer((_record, response) =>
      sendJson(response, responsesBody([{ type: 'message', text: 'Tests pass.' }], 900)),
    );
    proxy = await startProxy(upstream.origin, { offload: { directThreshold: 2000 } });
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });
    const through: ResponseInputItem[] = [
      { role: 'user', content: 'Build the date parser, then run its tests.' },
      { type: 'function_call_output', call_id: 'call_build', output: BUILD_LOG },
      compactionItem,
      { type: 'function_call', call_id: 'call_test', name: 'bash', arguments: '{"command":"npm test"}' },
    ];

    await client.responses.create({
      model: 'gpt-test',
      context_management: [{ type: 'compaction', compact_threshold: 200_000 }],
      input: [...through, { type: 'function_call_output', call_id: 'call_test', output: TEST_LOG }],
    });

    const raw = upstream.requests[0]?.rawBody.toString('utf8') ?? '';
    expect(raw).toContain(`"input":[${itemsJson(through.slice(0, 3))},`);
    expect(raw).toContain('"context_management":[{"type":"compaction","compact_threshold":200000}]');
    const input = bodyOf(upstream.requests[0]).input as { output?: string }[];
    expect(input.at(-1)?.output).not.toBe(TEST_LOG);
  });

  it('passes POST /v1/responses/compact through byte for byte, the answer too', async () => {
    const answer = JSON.stringify({
      id: 'resp_cmp_1',
      object: 'response.compaction',
      created_at: 1_700_000_000,
      output: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Build it.' }] }, compactionItem],
      usage: { input_tokens: 900, output_tokens: 40, total_tokens: 940 },
    });
    upstream.answer((_record, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(answer);
    });
    proxy = await startProxy(upstream.origin, { offload: { directThreshold: 2000 } });
    // odd spacing and a large output: any re-serialization or offload would show
    const body = `{ "model" : "gpt-test",\n  "input": [ {"role":"user","content":"Build it."}, {"type":"function_call_output","call_id":"c1","output":${JSON.stringify(BUILD_LOG)}} ] }`;

    const reply = await sendRaw(proxy.origin, '/v1/responses/compact', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-one' },
      body,
    });

    expect(upstream.requests[0]?.url).toBe('/v1/responses/compact');
    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    expect(reply.body.toString('utf8')).toBe(answer);
    expect(proxy.events).toEqual([]);
  });

  it('passes a streamed answer of /v1/responses/compact through as it came', async () => {
    const chunks = [
      sseEvent({ type: 'response.in_progress', sequence_number: 0 }),
      sseEvent({ type: 'response.completed', sequence_number: 1 }),
    ];
    upstream.answer((_record, response) => sendStream(response, chunks));
    proxy = await startProxy(upstream.origin);
    const body = JSON.stringify({ model: 'gpt-test', stream: true, input: [{ role: 'user', content: BUILD_LOG }] });

    const reply = await sendRaw(proxy.origin, '/v1/responses/compact', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-one' },
      body,
    });

    expect(upstream.requests[0]?.rawBody.toString('utf8')).toBe(body);
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(reply.body.toString('utf8')).toBe(chunks.join(''));
  });

  it("gives the SDK's compact call the upstream's compacted window", async () => {
    upstream.answer((_record, response) =>
      sendJson(response, {
        id: 'resp_cmp_2',
        object: 'response.compaction',
        created_at: 1_700_000_000,
        output: [compactionItem],
        usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
      }),
    );
    proxy = await startProxy(upstream.origin, { offload: { directThreshold: 2000 } });
    const client = new OpenAI({ apiKey: 'sk-openai-one', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Build it.' },
      { type: 'function_call_output', call_id: 'c1', output: BUILD_LOG },
    ];

    const compacted = await client.responses.compact({ model: 'gpt-test', input });

    expect(compacted.output).toEqual([compactionItem]);
    expect(bodyOf(upstream.requests[0]).input).toEqual(input);
  });
});
