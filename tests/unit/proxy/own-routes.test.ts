import { describe, expect, it } from 'vitest';
import { readPageToken } from '../../../src/proxy/own-routes.js';

describe('readPageToken', () => {
  it('reads the token of the page, with or without its slash', () => {
    expect(readPageToken('/_agent-context/?token=abc')).toBe('abc');
    expect(readPageToken('/_agent-context?token=abc')).toBe('abc');
  });

  it('decodes the token as a query value', () => {
    expect(readPageToken('/_agent-context/?token=a%2Bb%20c')).toBe('a+b c');
  });

  it.each([
    ['a JSON route', '/_agent-context/api/sessions?token=abc'],
    ['the content route', '/_agent-context/api/sessions/s/content?ref=x&token=abc'],
    ['the metrics', '/_agent-context/metrics?token=abc'],
    ['a model route', '/v1/messages?token=abc'],
    ['a path that only normalizes to the page', '/_agent-context/x/../?token=abc'],
  ])('takes no token on %s', (_name, url) => {
    expect(readPageToken(url)).toBeUndefined();
  });

  it('takes no token when there is none, or more than one', () => {
    expect(readPageToken('/_agent-context/')).toBeUndefined();
    expect(readPageToken(undefined)).toBeUndefined();
    expect(readPageToken('/_agent-context/?token=a&token=b')).toBeUndefined();
  });
});
