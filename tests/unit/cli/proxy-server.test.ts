import { describe, expect, it } from 'vitest';
import { createProxyServer } from '../../../src/cli/proxy.js';

describe('createProxyServer', () => {
  it('keeps idle connections 65 s and waits 66 s for headers, past the clients that reuse them', () => {
    const server = createProxyServer((_request, response) => response.end());

    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.headersTimeout).toBe(66_000);
  });
});
