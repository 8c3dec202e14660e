import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/index.js';
import { createProxyHandler } from '../../../src/proxy.js';
import { resolveProxyOptions } from '../../../src/proxy/proxy-options.js';

describe('createProxyHandler options', () => {
  it('refuses a key that is not an option, naming it and the options there are', () => {
    const create = (): unknown => createProxyHandler({ uptream: 'http://127.0.0.1:9' } as never);

    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(/^uptream is not an option of createProxyHandler: expected one of upstream, dir, store, /);
  });

  it('lets a key given as undefined pass, as an absent one', () => {
    expect(() => createProxyHandler({ upstream: 'http://127.0.0.1:9', dir: undefined })).not.toThrow();
  });

  it.each([
    ['threshold', 1000, 'threshold is not an option of createProxyHandler any more: pass offload: { directThreshold }'],
    [
      'offloadTiming',
      'on-arrival',
      'offloadTiming is not an option of createProxyHandler any more: pass offload: { timing }',
    ],
    [
      'compactThresholdRatio',
      0.5,
      'compactThresholdRatio is not an option of createProxyHandler any more: pass compaction: { triggerRatio }',
    ],
  ])('refuses the flat spelling %s, naming the grouped option that replaces it', (key, value, message) => {
    expect(() => createProxyHandler({ [key]: value } as never)).toThrow(message);
  });

  it("checks the context manager's groups when the handler is created, naming the option by its path", () => {
    expect(() => createProxyHandler({ offload: { directThreshold: 0 } })).toThrow(
      'offload.directThreshold must be a number >= 1, got 0',
    );
    expect(() => createProxyHandler({ compaction: { triggerRatio: 2 } })).toThrow(
      'compaction.triggerRatio must be a number in [0, 1], got 2',
    );
    expect(() => createProxyHandler({ contextTokenLimit: 0 })).toThrow(
      'contextTokenLimit must be an integer >= 1, got 0',
    );
  });

  it('reads no environment variable: a bad CONTEXT_TOKEN_LIMIT does not reach it', () => {
    const saved = process.env.CONTEXT_TOKEN_LIMIT;
    process.env.CONTEXT_TOKEN_LIMIT = 'many';
    try {
      expect(() => createProxyHandler({ upstream: 'http://127.0.0.1:9' })).not.toThrow();
    } finally {
      if (saved === undefined) delete process.env.CONTEXT_TOKEN_LIMIT;
      else process.env.CONTEXT_TOKEN_LIMIT = saved;
    }
  });
});

describe('default upstreams', () => {
  it("sends each provider's requests to its own API without an upstream, and everything to the upstream given", () => {
    const defaults = resolveProxyOptions({});
    expect(['anthropic', 'openai', 'gemini'].map((provider) => defaults.upstreamFor(provider as never).origin)).toEqual(
      ['https://api.anthropic.com', 'https://api.openai.com', 'https://generativelanguage.googleapis.com'],
    );
    expect(resolveProxyOptions({ upstream: 'http://127.0.0.1:9' }).upstreamFor('gemini').origin).toBe(
      'http://127.0.0.1:9',
    );
  });
});
