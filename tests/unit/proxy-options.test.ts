import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/index.js';
import { createProxyHandler } from '../../src/proxy.js';
import { resolveProxyOptions } from '../../src/proxy/proxy-options.js';

describe('createProxyHandler options', () => {
  it('refuses a key that is not an option, naming it and the options there are', () => {
    const create = (): unknown => createProxyHandler({ uptream: 'http://127.0.0.1:9' } as never);

    expect(create).toThrow(InvalidOptionError);
    expect(create).toThrow(/^uptream is not an option of createProxyHandler: expected one of upstream, dir, store, /);
  });

  it('lets a key given as undefined pass, as an absent one', () => {
    expect(() => createProxyHandler({ upstream: 'http://127.0.0.1:9', dir: undefined })).not.toThrow();
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
