/**
 * The example of docs/stores.md, run as written against a real `redis-server`: offload into a
 * Redis store made from a URL, then read the reference back with the read tool over that store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offloadToolResults } from '../../../src/api/offload.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import type { Message } from '../../../src/core/types.js';
import { createRedisStore, type RedisStore } from '../../../src/stores/redis-store.js';
import { redisSuiteSkipReason, startRedisServer, type RedisServer } from './redis-server.js';

const skipReason = redisSuiteSkipReason(
  'the stores guide example (tests/integration/stores/stores-doc-example.test.ts)',
);

const LOG = Array.from({ length: 3000 }, (_, index) => `line ${index + 1}: request handled`).join('\n');
const messages: Message[] = [
  { role: 'user', content: 'why is it slow?' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'cat server.log' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: LOG }] },
];

describe.skipIf(skipReason !== undefined)('docs/stores.md, the read tool over a Redis store', () => {
  let server: RedisServer;
  let redis: RedisStore;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = createRedisStore({ url: server.url, prefix: 'agent/offload', ttlSeconds: 7 * 86400 });
  });
  afterAll(async () => {
    await redis?.close();
    await server?.stop();
  });

  it('reads back, by the reference offload gave, the lines asked for', async () => {
    const result = await offloadToolResults(messages, { store: redis });
    expect((result.messages[2]!.content as Array<{ content: string }>)[0]!.content).toBe(
      '[Content offloaded to: redis://agent/offload/tool-result-toolu_01.md]',
    );

    const readTool = createReadOffloadedTool({ store: redis });
    const text = await readTool.execute({
      ref: 'redis://agent/offload/tool-result-toolu_01.md',
      offset: 1200,
      limit: 50,
    });
    expect(text.split('\n')[0]).toBe('  1200\tline 1200: request handled');
    expect(text.split('\n')[49]).toBe('  1249\tline 1249: request handled');
  });
});
