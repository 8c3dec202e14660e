/**
 * Proxies sharing sessions through a real redis-server: the context manager's session records go
 * to Redis, offloaded content stays in the local files the agent opens, and a second proxy (a
 * restart, another process behind a balancer) continues a session the first one compacted
 * without summarizing it again; records Redis cannot serve are named as Redis names them.
 */
import { Redis } from 'ioredis';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisStore } from '../../../src/stores/redis-store.js';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from '../stores/redis-server.js';

const skipReason = redisSuiteSkipReason('proxy with a Redis store (tests/integration/proxy/proxy-store.test.ts)');

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-agent-key' };
const TOOL_OUTPUT = Array.from({ length: 300 }, (_, index) => `row ${index}: value ${index * 7}`).join('\n');

/** A summary request: the agent's request repeated with the summary instruction, or the summary prompt (in parts when the window asks for it). */
function isSummaryRequest(record: UpstreamRecord): boolean {
  const text = JSON.stringify(record.body ?? {});
  return text.includes('Stop working on the task now') || text.includes('<conversation>');
}

/** A long conversation with one large tool result near its start. */
function history(): unknown[] {
  const talk = Array.from({ length: 36 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `Message ${index}: ${'the exporter batches rows and retries a failed flush twice; '.repeat(10)}`,
  }));
  return [
    { role: 'user', content: 'Export the table.' },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_rows', name: 'Bash', input: { command: 'psql -c "select * from rows"' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_rows', content: TOOL_OUTPUT }] },
    ...talk,
  ];
}

async function listKeys(store: RedisStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list('')) keys.push(key);
  return keys.sort();
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1));
}

describe.skipIf(skipReason !== undefined)('proxies sharing sessions in Redis', () => {
  let redis: RedisServer;
  let store: RedisStore;
  let upstream: ScriptedUpstream;
  const proxies: RunningProxy[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
    await store.close();
    await upstream.close();
  });

  it('keeps records in Redis and content in files, and a second proxy continues without summarizing again', async () => {
    upstream = await startScriptedUpstream((record, response) =>
      sendJson(
        response,
        anthropicBody(
          [{ type: 'text', text: isSummaryRequest(record) ? '## Goals & Decisions\nScripted summary.' : 'ok' }],
          { input_tokens: 100, output_tokens: 5 },
        ),
      ),
    );
    store = createRedisStore({ url: redis.url, prefix: 'proxy-test' });
    const first = await startProxy(upstream.origin, { store, contextTokenLimit: 6000, summarizer: 'upstream' });
    proxies.push(first);
    const second = await startProxy(upstream.origin, {
      store,
      dir: first.dir,
      contextTokenLimit: 6000,
      summarizer: 'upstream',
    });
    proxies.push(second);
    const body = (messages: unknown[]) =>
      JSON.stringify({ model: 'claude-test', max_tokens: 64, system: 'You export tables.', messages });

    await sendRaw(first.origin, '/v1/messages', { headers: HEADERS, body: body(history()) });
    const summaryRequests = upstream.requests.filter(isSummaryRequest).length;
    await sendRaw(second.origin, '/v1/messages', {
      headers: HEADERS,
      body: body([...history(), { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Next table.' }]),
    });

    expect(summaryRequests).toBeGreaterThan(0);
    expect(upstream.requests.filter(isSummaryRequest)).toHaveLength(summaryRequests);
    const [compacted, continued] = upstream.requests
      .filter((record) => !isSummaryRequest(record))
      .map((record) => record.body?.messages as unknown[]);
    expect(JSON.stringify(compacted)).toContain('Scripted summary.');
    expect(continued!.slice(0, compacted!.length)).toEqual(compacted);
    const session = first.events[0]?.sessionId;
    expect(second.events[0]?.sessionId).toBe(session);
    const keys = await listKeys(store);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith(`${session}/.records/`))).toBe(true);
    const files = await listFiles(first.dir);
    expect(files.some((file) => file.startsWith(`${session}/`) && file.endsWith('.md'))).toBe(true);
    expect(files.some((file) => file.includes('.records'))).toBe(false);
  });

  it('names the records in Redis, not a file path, when Redis cannot serve them', async () => {
    upstream = await startScriptedUpstream((_record, response) =>
      sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 100, output_tokens: 5 })),
    );
    store = createRedisStore({ url: redis.url, prefix: 'proxy-unreadable' });
    // a window the history is over: the compaction is a record
    const first = await startProxy(upstream.origin, { store, contextTokenLimit: 6000 });
    proxies.push(first);
    const body = JSON.stringify({
      model: 'claude-test',
      max_tokens: 64,
      system: 'You export tables.',
      messages: history(),
    });
    await sendRaw(first.origin, '/v1/messages', { headers: HEADERS, body });
    const session = first.events[0]?.sessionId;
    // the records are there, but Redis now refuses to read them out
    const admin = new Redis(redis.url);
    await admin.call('ACL', 'SETUSER', 'default', '-get', '-getrange', '-eval');
    try {
      const second = await startProxy(upstream.origin, { store, dir: first.dir, contextTokenLimit: 6000 });
      proxies.push(second);
      await sendRaw(second.origin, '/v1/messages', { headers: HEADERS, body });

      const warning = second.warnings.find((line) => line.includes('.records/ could not be read'));
      expect(warning).toContain(`records in redis://proxy-unreadable/${session!}/.records/ could not be read`);
      expect(warning).not.toContain(first.dir);
    } finally {
      await admin.call('ACL', 'SETUSER', 'default', '+get', '+getrange', '+eval');
      admin.disconnect();
    }
  });
});
