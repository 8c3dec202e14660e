import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/index.js';
import { createProxyHandler } from '../../src/proxy.js';

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
