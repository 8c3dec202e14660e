/**
 * The proxy loads the tokenizer when its handler is created, before any server listens with it:
 * loading holds the event loop for about half a second, which no request should wait for.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTokenizerLoaded } from '../../../src/infrastructure/tokenizer.js';
import { createProxyHandler } from '../../../src/proxy/proxy-handler.js';

describe('proxy handler: the tokenizer', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('is not loaded by importing the proxy', () => {
    expect(isTokenizerLoaded()).toBe(false);
  });

  it('is loaded when the handler is created, before the first request', async () => {
    dir = await mkdtemp(join(tmpdir(), 'aco-proxy-preload-'));
    createProxyHandler({ dir, logger: { warn: () => undefined } });
    expect(isTokenizerLoaded()).toBe(true);
  });
});
