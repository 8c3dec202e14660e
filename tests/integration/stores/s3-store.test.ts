/**
 * The S3 store against a real S3 protocol server (s3rver, in this process) through the real
 * `S3Client`, and its write-once logic against AWS's documented answers.
 *
 * s3rver ignores `If-None-Match` on PutObject (checked below) and writes objects in place, so the
 * contract suite runs with the client wrapped by `emulateAwsWriteSemantics` (AWS's semantics: 412
 * when the key is taken, a put atomic to readers),
 * and the driver's own part of write-once (the header it sends, what it makes of a 412 or a 409)
 * is tested directly: on the wire against s3rver, and with a recording `send` for the answers
 * s3rver cannot give.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3ServiceException,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { collectKeys } from '../../../src/core/store/store-keys.js';
import { createS3Store, DEFAULT_S3_STORE_PREFIX, type S3ClientLike } from '../../../src/stores/s3-store.js';
import { testStore } from '../../../src/testing/test-store.js';
import {
  createPreconditionFailedError,
  createTestS3Client,
  emulateAwsWriteSemantics,
  findClosedPort,
  startS3Server,
  startS3ServerProcess,
  type S3TestServer,
} from './s3-server.js';

let server: S3TestServer;
let client: S3Client;
let emulated: S3ClientLike;
let unreachable: S3Client;

beforeAll(async () => {
  server = await startS3Server();
  client = createTestS3Client(server.endpoint);
  emulated = emulateAwsWriteSemantics(client);
  // a closed port, one attempt, short timeouts: a failure must come back quickly
  unreachable = createTestS3Client(`http://127.0.0.1:${await findClosedPort()}`, {
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
});

afterAll(async () => {
  client?.destroy();
  unreachable?.destroy();
  await server?.close();
});

testStore(
  's3 store (s3rver; AWS write semantics emulated on the client)',
  () => createS3Store({ client: emulated, bucket: server.bucket, prefix: 'contract' }),
  {
    createFailingStore: () => createS3Store({ client: unreachable, bucket: server.bucket }),
  },
);

/** A `send` that records each command and answers from `answer` (a value, or an error to throw). */
function createRecordingClient(
  answer: (command: { constructor: { name: string }; input: Record<string, unknown> }, index: number) => unknown,
): {
  client: S3ClientLike;
  commands: Array<{ name: string; input: Record<string, unknown> }>;
} {
  const commands: Array<{ name: string; input: Record<string, unknown> }> = [];
  return {
    commands,
    client: {
      async send(command) {
        const typed = command as { constructor: { name: string }; input: Record<string, unknown> };
        commands.push({ name: typed.constructor.name, input: typed.input });
        const result = answer(typed, commands.length - 1);
        if (result instanceof Error) throw result;
        return result;
      },
    },
  };
}

/** A GetObject output holding `text`, recording whether its body was read or discarded. */
function objectOutput(text: string): {
  ContentLength: number;
  Body: { transformToByteArray(): Promise<Uint8Array>; destroy(): void };
  read: boolean;
  destroyed: boolean;
} {
  const bytes = new TextEncoder().encode(text);
  const output = {
    ContentLength: bytes.length,
    read: false,
    destroyed: false,
    Body: {
      transformToByteArray: async () => {
        output.read = true;
        return bytes;
      },
      destroy: () => {
        output.destroyed = true;
      },
    },
  };
  return output;
}

function serviceError(name: string, httpStatusCode: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: httpStatusCode >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode },
    message: name,
  });
}

describe('createS3Store', () => {
  describe('write-once (the driver against AWS-shaped answers)', () => {
    it("sends PutObject with IfNoneMatch '*' under the prefix, and answers 'created'", async () => {
      const { client: recording, commands } = createRecordingClient(() => ({}));
      const store = createS3Store({ client: recording, bucket: 'b', prefix: 'p' });
      expect(await store.putIfAbsent('s1/a.md', 'héllo')).toBe('created');
      expect(commands).toHaveLength(1);
      expect(commands[0]?.name).toBe('PutObjectCommand');
      expect(commands[0]?.input).toMatchObject({ Bucket: 'b', Key: 'p/s1/a.md', IfNoneMatch: '*' });
      expect(new TextDecoder().decode(commands[0]?.input.Body as Uint8Array)).toBe('héllo');
    });

    it("reads a 412 as a value being there: 'identical' when its bytes are the same", async () => {
      const stored = objectOutput('same 😀');
      const { client: recording, commands } = createRecordingClient((command) =>
        command.constructor.name === 'PutObjectCommand' ? createPreconditionFailedError() : stored,
      );
      const store = createS3Store({ client: recording, bucket: 'b' });
      expect(await store.putIfAbsent('a.md', ['same ', '😀'])).toBe('identical');
      expect(commands.map((command) => command.name)).toEqual(['PutObjectCommand', 'GetObjectCommand']);
      expect(commands[1]?.input).toMatchObject({ Bucket: 'b', Key: `${DEFAULT_S3_STORE_PREFIX}/a.md` });
      expect(commands[1]?.input.Range).toBeUndefined();
    });

    it("reads a 412 as 'exists' when the bytes differ, and without reading the body when the sizes do", async () => {
      const sameSize = objectOutput('other');
      const recordingSameSize = createRecordingClient((command) =>
        command.constructor.name === 'PutObjectCommand' ? createPreconditionFailedError() : sameSize,
      );
      expect(await createS3Store({ client: recordingSameSize.client, bucket: 'b' }).putIfAbsent('a.md', 'first')).toBe(
        'exists',
      );
      expect(sameSize.read).toBe(true);

      const longer = objectOutput('a longer value');
      const recordingLonger = createRecordingClient((command) =>
        command.constructor.name === 'PutObjectCommand' ? createPreconditionFailedError() : longer,
      );
      expect(await createS3Store({ client: recordingLonger.client, bucket: 'b' }).putIfAbsent('a.md', 'first')).toBe(
        'exists',
      );
      expect(longer.read).toBe(false);
      expect(longer.destroyed).toBe(true);
    });

    it('reads a bare 412 status (no error name) the same way', async () => {
      const bare = Object.assign(new Error('Precondition Failed'), { $metadata: { httpStatusCode: 412 } });
      const { client: recording } = createRecordingClient((command) =>
        command.constructor.name === 'PutObjectCommand' ? bare : objectOutput('x'),
      );
      expect(await createS3Store({ client: recording, bucket: 'b' }).putIfAbsent('a.md', 'x')).toBe('identical');
    });

    it('retries the conditional put after a 409 ConditionalRequestConflict, as AWS documents, and logs the retry', async () => {
      const warnings: string[] = [];
      const logger = { warn: (message: string) => void warnings.push(message) };
      const { client: recording, commands } = createRecordingClient((_command, index) =>
        index === 0 ? serviceError('ConditionalRequestConflict', 409) : {},
      );
      const store = createS3Store({ client: recording, bucket: 'b', logger });
      expect(await store.putIfAbsent('a.md', 'x')).toBe('created');
      expect(commands.map((command) => command.name)).toEqual(['PutObjectCommand', 'PutObjectCommand']);
      expect(commands[1]?.input.IfNoneMatch).toBe('*');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('409');
    });

    it('settles a 409 followed by a 412 by comparing', async () => {
      const { client: recording } = createRecordingClient((command, index) =>
        index === 0
          ? serviceError('ConditionalRequestConflict', 409)
          : command.constructor.name === 'PutObjectCommand'
            ? createPreconditionFailedError()
            : objectOutput('theirs'),
      );
      expect(
        await createS3Store({ client: recording, bucket: 'b', logger: { warn: () => undefined } }).putIfAbsent(
          'a.md',
          'mine!',
        ),
      ).toBe('exists');
    });

    it('rejects with WRITE_FAILED, the 409 as cause, after 3 conflicted attempts', async () => {
      const conflict = serviceError('ConditionalRequestConflict', 409);
      const { client: recording, commands } = createRecordingClient(() => conflict);
      const error = await createS3Store({ client: recording, bucket: 'b', logger: { warn: () => undefined } })
        .putIfAbsent('a.md', 'x')
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'WRITE_FAILED', cause: conflict });
      expect(commands).toHaveLength(3);
    });

    it('tries again when the value behind a 412 was deleted before it could be read', async () => {
      const { client: recording, commands } = createRecordingClient((command, index) =>
        index === 0
          ? createPreconditionFailedError()
          : command.constructor.name === 'GetObjectCommand'
            ? serviceError('NoSuchKey', 404)
            : {},
      );
      expect(
        await createS3Store({ client: recording, bucket: 'b', logger: { warn: () => undefined } }).putIfAbsent(
          'a.md',
          'x',
        ),
      ).toBe('created');
      expect(commands.map((command) => command.name)).toEqual([
        'PutObjectCommand',
        'GetObjectCommand',
        'PutObjectCommand',
      ]);
    });

    it('wraps any other error as WRITE_FAILED with the SDK error as cause, and does not retry it', async () => {
      const denied = serviceError('AccessDenied', 403);
      const { client: recording, commands } = createRecordingClient(() => denied);
      const error = await createS3Store({ client: recording, bucket: 'b' })
        .putIfAbsent('a.md', 'x')
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'WRITE_FAILED', cause: denied });
      expect((error as Error).message).toContain('s3://b/agent-context-offload/a.md');
      expect(commands).toHaveLength(1);
    });

    it('says so when the server does not implement conditional writes (501)', async () => {
      const notImplemented = serviceError('NotImplemented', 501);
      const { client: recording } = createRecordingClient(() => notImplemented);
      await expect(createS3Store({ client: recording, bucket: 'b' }).putIfAbsent('a.md', 'x')).rejects.toMatchObject({
        code: 'WRITE_FAILED',
        cause: notImplemented,
        message: expect.stringContaining('does not implement conditional writes'),
      });
    });

    it('sends the If-None-Match header on the wire (recorded before it leaves the real client)', async () => {
      const wired = createTestS3Client(server.endpoint);
      const headers: Array<Record<string, string>> = [];
      wired.middlewareStack.add(
        (next) => async (args) => {
          headers.push({ ...(args.request as { headers: Record<string, string> }).headers });
          return next(args);
        },
        { step: 'finalizeRequest', name: 'recordHeaders' },
      );
      try {
        const store = createS3Store({ client: wired, bucket: server.bucket, prefix: 'wire' });
        expect(await store.putIfAbsent('a.md', 'x')).toBe('created');
        expect(headers.at(-1)?.['if-none-match']).toBe('*');
        await store.put('a.md', 'y');
        expect(headers.at(-1)?.['if-none-match']).toBeUndefined();
        await store.delete('a.md');
      } finally {
        wired.destroy();
      }
    });
  });

  describe('s3rver itself (why the contract run emulates If-None-Match)', () => {
    it('ignores If-None-Match: a second conditional put overwrites, answered 200', async () => {
      const key = 'caveat/overwritten.md';
      await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'first', IfNoneMatch: '*' }));
      const second = await client.send(
        new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'second', IfNoneMatch: '*' }),
      );
      expect(second.$metadata.httpStatusCode).toBe(200);
      const read = await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
      expect(await read.Body?.transformToString()).toBe('second');
      await client.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: key }));
    });

    it('without the emulation, the store cannot tell a second writer apart (the caveat, stated)', async () => {
      const store = createS3Store({ client, bucket: server.bucket, prefix: 'caveat' });
      expect(await store.putIfAbsent('b.md', 'first')).toBe('created');
      expect(await store.putIfAbsent('b.md', 'second')).toBe('created');
      expect(await store.get('b.md')).toBe('second');
      await store.delete('b.md');
    });
  });

  describe('against s3rver', () => {
    it('lists more than one page (1,001 keys, ListObjectsV2 paginated with ContinuationToken; s3rver in a child process, see startS3ServerProcess)', async () => {
      const paging = await startS3ServerProcess();
      const pagingClient = createTestS3Client(paging.endpoint);
      const listed: Array<Record<string, unknown>> = [];
      const counting: S3ClientLike = {
        send: (command) => {
          if (command instanceof ListObjectsV2Command) listed.push({ ...command.input });
          return pagingClient.send(command as ListObjectsV2Command);
        },
      };
      onTestFinished(async () => {
        pagingClient.destroy();
        await paging.close();
      });
      const store = createS3Store({ client: counting, bucket: paging.bucket, prefix: 'many' });
      const keys = Array.from({ length: 1_001 }, (_, index) => `k/${String(index).padStart(4, '0')}.md`);
      for (let start = 0; start < keys.length; start += 50) {
        await Promise.all(keys.slice(start, start + 50).map((key) => store.put(key, key)));
      }
      const found = await collectKeys(store, 'k/');
      expect(found.sort()).toEqual(keys);
      expect(listed).toHaveLength(2);
      expect(listed[0]).toMatchObject({ Prefix: 'many/k/' });
      expect(listed[1]?.ContinuationToken).toEqual(expect.any(String));
      for (let start = 0; start < keys.length; start += 50) {
        await Promise.all(keys.slice(start, start + 50).map((key) => store.delete(key)));
      }
      expect(await collectKeys(store, '')).toEqual([]);
    });

    it('reads one byte at offset 0 (s3rver serves bytes=0-0 as the whole object; the store cuts it)', async () => {
      const store = createS3Store({ client, bucket: server.bucket, prefix: 'range' });
      await store.put('r.md', 'hello');
      expect(await store.get('r.md', { offset: 0, length: 1 })).toBe('h');
      expect(await store.get('r.md', { offset: 1, length: 1 })).toBe('e');
      expect(await store.get('r.md', { offset: 4 })).toBe('o');
      await store.delete('r.md');
    });

    it('stores keys with unicode, spaces and URL characters, and lists them back', async () => {
      const store = createS3Store({ client: emulated, bucket: server.bucket, prefix: 'unicode' });
      const keys = ['中文/😀 a+b.md', 'with space/%20&=?.md', 'ä\u0308/é.md'];
      for (const key of keys) expect(await store.putIfAbsent(key, key)).toBe('created');
      for (const key of keys) expect(await store.get(key)).toBe(key);
      expect((await collectKeys(store, '')).sort()).toEqual([...keys].sort());
      for (const key of keys) await store.delete(key);
    });

    it('keeps a leading byte order mark', async () => {
      const store = createS3Store({ client, bucket: server.bucket, prefix: 'bom' });
      await store.put('b.md', '\ufeffbom');
      expect(await store.get('b.md')).toBe('\ufeffbom');
      expect(await store.holds('b.md', '\ufeffbom')).toBe(true);
      await store.delete('b.md');
    });

    it('constructs its own S3Client from config on first use', async () => {
      const store = createS3Store({
        config: {
          endpoint: server.endpoint,
          region: 'us-east-1',
          forcePathStyle: true,
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        },
        bucket: server.bucket,
        prefix: 'configured',
      });
      expect(store).toMatchObject({ kind: 's3', bucket: server.bucket, prefix: 'configured' });
      await store.put('c.md', 'from config');
      expect(await store.stat('c.md')).toMatchObject({ size: 11 });
      await store.close();
      // a call after close constructs a new client
      expect(await store.get('c.md')).toBe('from config');
      await store.delete('c.md');
      await store.close();
    });

    it('does not take a missing bucket for a missing key: READ_FAILED / WRITE_FAILED with NoSuchBucket as cause', async () => {
      const store = createS3Store({ client, bucket: 'no-such-bucket' });
      await expect(store.get('a.md')).rejects.toMatchObject({
        code: 'READ_FAILED',
        cause: expect.objectContaining({ name: 'NoSuchBucket' }),
      });
      await expect(store.putIfAbsent('a.md', 'x')).rejects.toMatchObject({
        code: 'WRITE_FAILED',
        cause: expect.objectContaining({ name: 'NoSuchBucket' }),
      });
      await expect(collectKeys(store, '')).rejects.toMatchObject({ code: 'READ_FAILED' });
    });

    it('fails on an unreachable endpoint: WRITE_FAILED with the connection error as cause', async () => {
      const store = createS3Store({ client: unreachable, bucket: server.bucket });
      const error = await store.putIfAbsent('a.md', 'x').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'WRITE_FAILED' });
      expect(String((error as Error).cause)).toMatch(/ECONNREFUSED|connect/i);
    });
  });

  describe('references', () => {
    const store = createS3Store({ client: { send: async () => ({}) }, bucket: 'agent-data', prefix: 'offload' });

    it('names a key s3://<bucket>/<prefix>/<key>, and maps it back', () => {
      expect(store.referenceFor('s1/tool-result-a.md')).toBe('s3://agent-data/offload/s1/tool-result-a.md');
      expect(store.keyFor('s3://agent-data/offload/s1/tool-result-a.md')).toBe('s1/tool-result-a.md');
    });

    it('gives undefined for another bucket, another prefix or a path', () => {
      expect(store.keyFor('s3://other/offload/a.md')).toBeUndefined();
      expect(store.keyFor('s3://agent-data/offloaded/a.md')).toBeUndefined();
      expect(store.keyFor('s3://agent-data/a.md')).toBeUndefined();
      expect(store.keyFor('s3://agent-data/offload/')).toBeUndefined();
      expect(store.keyFor('s3://agent-data/offload/../a.md')).toBeUndefined();
      expect(store.keyFor('./offload/a.md')).toBeUndefined();
    });

    it('uses the bucket root for the prefix "", and takes a prefix with or without a trailing "/"', () => {
      expect(createS3Store({ client: { send: async () => ({}) }, bucket: 'b', prefix: '' }).referenceFor('a.md')).toBe(
        's3://b/a.md',
      );
      expect(
        createS3Store({ client: { send: async () => ({}) }, bucket: 'b', prefix: 'x/y/' }).referenceFor('a.md'),
      ).toBe('s3://b/x/y/a.md');
      expect(createS3Store({ client: { send: async () => ({}) }, bucket: 'b' }).referenceFor('a.md')).toBe(
        `s3://b/${DEFAULT_S3_STORE_PREFIX}/a.md`,
      );
    });
  });

  describe('options', () => {
    it('refuses a bad bucket, client or config with INVALID_OPTION, naming it', () => {
      expect(() => createS3Store({ bucket: '' })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringContaining('bucket') }),
      );
      expect(() => createS3Store({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
      expect(() => createS3Store({ bucket: 'a/b' })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
      expect(() => createS3Store({ bucket: 'b', client: {} as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringContaining('client') }),
      );
      expect(() =>
        createS3Store({ bucket: 'b', client: { send: async () => ({}) }, config: { region: 'us-east-1' } }),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          message: expect.stringContaining('cannot be combined with client'),
        }),
      );
    });

    it('refuses an unsafe prefix with INVALID_OPTION, naming it', () => {
      for (const prefix of ['../x', '/abs', 'a//b', 'a\\b', '/', 'a\u0000']) {
        expect(() => createS3Store({ bucket: 'b', prefix }), prefix).toThrow(
          expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringContaining('prefix') }),
        );
      }
    });

    it('refuses a negative or fractional range with INVALID_OPTION before any request', async () => {
      const { client: recording, commands } = createRecordingClient(() => ({}));
      const store = createS3Store({ client: recording, bucket: 'b' });
      await expect(store.get('a.md', { offset: -1 })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      await expect(store.get('a.md', { length: 1.5 })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      expect(commands).toEqual([]);
    });

    it('sends the SDK command classes also through a client of your own', async () => {
      const { client: recording, commands } = createRecordingClient((command) =>
        command.constructor.name === 'HeadObjectCommand'
          ? { ContentLength: 3, LastModified: new Date(0) }
          : command.constructor.name === 'ListObjectsV2Command'
            ? { Contents: [] }
            : {},
      );
      const store = createS3Store({ client: recording, bucket: 'b', prefix: 'p' });
      expect(await store.stat('a.md')).toEqual({ size: 3, createdAt: new Date(0) });
      await store.delete('a.md');
      await collectKeys(store, 'x/');
      expect(commands.map((command) => command.name)).toEqual([
        'HeadObjectCommand',
        'DeleteObjectCommand',
        'ListObjectsV2Command',
      ]);
      expect(commands[2]?.input).toMatchObject({ Bucket: 'b', Prefix: 'p/x/' });
    });
  });
});
