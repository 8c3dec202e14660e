/**
 * An S3 protocol server for tests and benchmarks: s3rver 3.7.1, run in this process on a free
 * 127.0.0.1 port over a temporary directory, with one bucket, and the real `S3Client` pointed
 * at it.
 *
 * What s3rver does (checked against 3.7.1 with @aws-sdk/client-s3 3.x on Node 20): PutObject,
 * GetObject with `Range` (206 + `Content-Range`; `bytes=0-0` is served as the whole object from
 * byte 0, which the store cuts to the range asked; 416 InvalidRange past the end), HeadObject,
 * ListObjectsV2 (1,000 keys a page), DeleteObject, SigV4 signatures with the `S3RVER` keys.
 * What it does not: `If-None-Match` on PutObject is ignored (a second conditional put
 * overwrites, answered 200); a put writes the object file in place, so a concurrent read can
 * return half of it; a listing longer than one page fails on Node 20 (500, see
 * {@link startS3ServerProcess}); a range read of an empty object is aborted.
 * {@link emulateAwsWriteSemantics} gives AWS's documented semantics on top of it for the
 * contract run.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { S3ClientLike } from '../../../src/stores/s3-store.js';

/** The part of s3rver's API used here (it ships no types). */
interface S3rverInstance {
  run(): Promise<{ port: number; address: string }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
  vhostBuckets?: boolean;
}) => S3rverInstance;

const require = createRequire(import.meta.url);

/** A running s3rver. */
export interface S3TestServer {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** The bucket created at start. */
  bucket: string;
  /** Where the server keeps its data (objects of `bucket` are under `<directory>/<bucket>/`). */
  directory: string;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/** The keys s3rver accepts signatures from. */
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** Starts s3rver on a free 127.0.0.1 port with `bucket`, over a fresh temporary directory. */
export async function startS3Server(bucket = 'offload-test'): Promise<S3TestServer> {
  const S3rver = require('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
    vhostBuckets: false,
  });
  try {
    const { port } = await server.run();
    return {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      directory,
      async close() {
        try {
          await server.close();
        } finally {
          await rm(directory, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Starts s3rver in a child Node process run with `--openssl-legacy-provider`: s3rver 3.7.1 makes
 * its ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 refuses without that
 * flag, so in this process any truncated listing (more than 1,000 keys) answers 500 InternalError.
 * Only the pagination test needs it.
 */
export async function startS3ServerProcess(bucket = 'offload-test'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const script = `
    const S3rver = require(${JSON.stringify(require.resolve('s3rver'))});
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(directory)}, configureBuckets: [{ name: ${JSON.stringify(bucket)} }], vhostBuckets: false });
    server.run().then(({ port }) => console.log(JSON.stringify({ port })), (error) => { console.error(error); process.exit(1); });
  `;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
      });
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`s3rver exited with code ${code} before listening`)));
    });
    return { endpoint: `http://127.0.0.1:${port}`, bucket, directory, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A real `S3Client` for `endpoint`: path-style, s3rver's keys, us-east-1. */
export function createTestS3Client(endpoint: string, extra: Record<string, unknown> = {}): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    ...extra,
  });
}

/** A port on 127.0.0.1 nothing listens on (bound, then released). */
export async function findClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The error AWS's SDK throws for a `412 Precondition Failed` answer to a conditional PutObject. */
export function createPreconditionFailedError(): S3ServiceException {
  return new S3ServiceException({
    name: 'PreconditionFailed',
    $fault: 'client',
    $metadata: { httpStatusCode: 412 },
    message: 'At least one of the pre-conditions you specified did not hold',
  });
}

/**
 * `client` with two of AWS's documented write semantics added on top of s3rver, which lacks them:
 * - `If-None-Match: *` on PutObject: the put is preceded by a `HeadObject` and fails with a
 *   412-shaped {@link S3ServiceException} when the key is taken (s3rver ignores the header);
 * - a put is atomic to readers ("S3 never adds partial objects"; s3rver writes the object file
 *   in place, so a concurrent GetObject can return half of it).
 * Both come from running every keyed command (Put, Get, Head, Delete) of one key one at a time,
 * for the clients of this wrapper only. It exists so that the contract suite runs the store's real
 * code path (412 -> read -> compare) against a real server; it proves nothing about a server's
 * own conditional writes, which `s3-store.test.ts` tests at the driver's edge instead. Listing and
 * everything else are sent unchanged.
 */
export function emulateAwsWriteSemantics(client: S3Client): S3ClientLike {
  const queues = new Map<string, Promise<unknown>>();
  return {
    async send(command: object): Promise<unknown> {
      const input = (command as { input?: { Bucket?: string; Key?: string } }).input;
      if (input?.Key === undefined) return await client.send(command as PutObjectCommand);
      const name = `${input.Bucket}/${input.Key}`;
      const turn = (queues.get(name) ?? Promise.resolve()).then(async () => {
        if (
          command instanceof PutObjectCommand &&
          command.input.IfNoneMatch === '*' &&
          (await objectExists(client, input.Bucket, input.Key))
        ) {
          throw createPreconditionFailedError();
        }
        return await client.send(command as PutObjectCommand);
      });
      const settled = turn.catch(() => undefined);
      queues.set(name, settled);
      try {
        return await turn;
      } finally {
        if (queues.get(name) === settled) queues.delete(name);
      }
    },
  };
}

async function objectExists(client: S3Client, bucket: string | undefined, key: string | undefined): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}
