/**
 * Stores whose server accepts the connection and never answers (a stopped process, a frozen
 * VM, a black-holing proxy): a TCP server here that accepts and never sends a byte, used as the
 * Redis URL and as the S3 endpoint. The clients the stores build have timeouts, so the read
 * tool answers with a message; a caller's signal ends an offload or a read at once.
 */
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offloadToolResult } from '../../../src/api/direct-offload.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import type { Message } from '../../../src/core/types.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';
import { createRedisStore, REDIS_CONNECT_TIMEOUT_MS } from '../../../src/stores/redis-store.js';
import { createS3Store, S3_SOCKET_TIMEOUT_MS } from '../../../src/stores/s3-store.js';

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte. */
async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const HISTORY: Message[] = [
  { role: 'user', content: 'go' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'call_0', name: 'run', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content: 'x'.repeat(500) }] },
];
const TOOL_RESULT_MESSAGE = HISTORY[2]!;

let silent: { port: number; close(): Promise<void> };
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => {
  await silent.close();
});

const redisStore = () => createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, prefix: 'silent' });
const s3Store = (maxAttempts: number) =>
  createS3Store({
    bucket: 'silent',
    config: {
      endpoint: `http://127.0.0.1:${silent.port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      maxAttempts,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    },
  });

describe('the read tool on a server that never answers', () => {
  it(
    'answers with a message once the Redis client made from a URL gives up connecting',
    async () => {
      const store = redisStore();
      try {
        const answer = await createReadOffloadedTool({ store }).execute({ ref: 'redis://silent/tool-result-a.md' });
        expect(answer).toBe(
          `Could not read "redis://silent/tool-result-a.md": Redis store could not connect to redis://127.0.0.1:${silent.port}: no answer within ${REDIS_CONNECT_TIMEOUT_MS} ms`,
        );
      } finally {
        await store.close();
      }
    },
    REDIS_CONNECT_TIMEOUT_MS + 10_000,
  );

  it(
    'answers with a message once the S3 client made from config times out',
    async () => {
      const store = s3Store(1);
      try {
        const answer = await createReadOffloadedTool({ store }).execute({
          ref: 's3://silent/agent-context-offload/tool-result-a.md',
        });
        expect(answer).toMatch(
          /^Could not read "s3:\/\/silent\/agent-context-offload\/tool-result-a\.md": .*timed out/,
        );
      } finally {
        await store.close();
      }
    },
    S3_SOCKET_TIMEOUT_MS + 10_000,
  );

  it.each([
    ['Redis', () => redisStore(), 'redis://silent/tool-result-a.md'],
    ['S3', () => s3Store(3), 's3://silent/agent-context-offload/tool-result-a.md'],
  ])('answers at once with the reason when its signal aborts (%s)', async (_name, createStore, ref) => {
    const store = createStore();
    const controller = new AbortController();
    try {
      const answer = createReadOffloadedTool({ store }).execute({ ref }, { signal: controller.signal });
      controller.abort(new Error('the user pressed stop'));
      expect(await answer).toBe(`Could not read ${JSON.stringify(ref)}: the user pressed stop`);
    } finally {
      await store.close();
    }
  });

  it("takes the AI SDK's abortSignal", async () => {
    const store = s3Store(3);
    const controller = new AbortController();
    try {
      const answer = createReadOffloadedTool({ store }).aiSdk.execute(
        { ref: 's3://silent/agent-context-offload/tool-result-a.md' },
        { abortSignal: controller.signal },
      );
      controller.abort(new Error('step aborted'));
      expect(await answer).toMatch(/: step aborted$/);
    } finally {
      await store.close();
    }
  });
});

describe('offload on a server that never answers', () => {
  it.each([
    ['Redis', () => redisStore()],
    ['S3', () => s3Store(3)],
  ])('batch offload rejects with the abort reason as soon as its signal aborts (%s)', async (_name, createStore) => {
    const store = createStore();
    const controller = new AbortController();
    const reason = new Error('cancelled by the caller');
    try {
      const offload = offloadToolResults(HISTORY, {
        store,
        charThreshold: 100,
        ratioThreshold: 0,
        signal: controller.signal,
      });
      controller.abort(reason);
      await expect(offload).rejects.toBe(reason);
    } finally {
      await store.close();
    }
  });

  it('direct offload rejects with the abort reason as soon as its signal aborts', async () => {
    const store = s3Store(3);
    const controller = new AbortController();
    const reason = new Error('cancelled by the caller');
    try {
      const offload = offloadToolResult(TOOL_RESULT_MESSAGE, { store, sessionId: 's1', signal: controller.signal });
      controller.abort(reason);
      await expect(offload).rejects.toBe(reason);
    } finally {
      await store.close();
    }
  });
});

describe('offload with a signal already aborted', () => {
  it('rejects with its reason and writes nothing', async () => {
    const store = createMemoryStore();
    const reason = new Error('too late');
    await expect(
      offloadToolResults(HISTORY, { store, charThreshold: 100, ratioThreshold: 0, signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    await expect(
      offloadToolResult(TOOL_RESULT_MESSAGE, { store, sessionId: 's1', signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    const keys: string[] = [];
    for await (const key of store.list('')) keys.push(key);
    expect(keys).toEqual([]);
  });

  it('refuses a signal that is not an AbortSignal, naming it', async () => {
    const store = createMemoryStore();
    await expect(
      offloadToolResults(HISTORY, { store, signal: 'stop' as unknown as AbortSignal }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', message: 'signal must be an AbortSignal, got "stop"' });
  });
});
