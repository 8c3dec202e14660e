/**
 * Reads answered by the proxy with an S3 store (s3rver, the real S3 client): two proxies, each
 * with a folder of its own, share one bucket; a session's requests alternate between them, and
 * every read is answered with the exact content, which is in the bucket and in neither folder.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store, type S3Store } from '../../../src/stores/s3-store.js';
import { startProxy, type RunningProxy } from './proxy-harness.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../fixtures/scripted-llm-server.js';
import { commandOutput, createReadingModel, linesOf, runReadingSession, type AnsweredRead } from './reading-session.js';
import { createTestS3Client, emulateAwsWriteSemantics, startS3Server, type S3TestServer } from '../stores/s3-server.js';

const TURNS = 6;

let s3: S3TestServer;
let upstream: ScriptedUpstream;
const stores: S3Store[] = [];
const proxies: RunningProxy[] = [];
const reads: AnsweredRead[] = [];

beforeAll(async () => {
  s3 = await startS3Server('proxy-reads');
  upstream = await startScriptedUpstream(createReadingModel(reads));
  for (let index = 0; index < 2; index += 1) {
    const store = createS3Store({
      bucket: s3.bucket,
      prefix: 'agent-context',
      client: emulateAwsWriteSemantics(createTestS3Client(s3.endpoint)),
    });
    stores.push(store);
    proxies.push(await startProxy(upstream.origin, { readTool: 'proxy', store }));
  }
});

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const store of stores) await store.close();
  await upstream?.close();
  await s3?.close();
});

describe('two proxies answering reads from one S3 bucket', () => {
  it('answers every read with the exact content, whichever proxy offloaded it, none of it in their folders', async () => {
    await runReadingSession(
      proxies.map((proxy) => proxy.origin),
      's3-session',
      TURNS,
    );

    expect(reads.map((read) => read.turn)).toEqual(Array.from({ length: TURNS - 1 }, (_, turn) => turn));
    for (const read of reads) expect(linesOf(read.result)).toBe(commandOutput(read.turn));
    const files = await Promise.all(
      proxies.map((proxy) => readdir(proxy.dir, { recursive: true }).catch(() => [] as string[])),
    );
    expect(files.flat()).toEqual([]);
  });
});
