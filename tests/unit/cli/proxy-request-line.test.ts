import { describe, expect, it } from 'vitest';
import { formatRequestLine } from '../../../src/cli/proxy.js';
import type { ProxyRequestEvent } from '../../../src/proxy/proxy-options.js';

const EVENT: ProxyRequestEvent = {
  route: '/v1/messages',
  sessionId: 'session-1',
  outcome: 'managed',
  actions: [],
  messagesIn: 12,
  messagesOut: 12,
  bytesIn: 2048,
  bytesOut: 2048,
};

describe('the proxy log line of a request', () => {
  it('says how many new results the store refused to take', () => {
    const line = formatRequestLine({
      ...EVENT,
      actions: [{ type: 'writes-deferred', toolCallIds: ['toolu_1', 'toolu_2'], error: new Error('ENOSPC') }],
    });
    expect(line).toBe('/v1/messages  session session-1  12 messages  2.0 KB  2 kept inline (the store refused writes)');
  });

  it('says when a request went on still over the window', () => {
    const line = formatRequestLine({
      ...EVENT,
      outcome: 'over-window',
      actions: [{ type: 'compact-skipped', reason: 'archive-failed', retryInCalls: 0 }],
    });
    expect(line).toBe(
      '/v1/messages  session session-1  12 messages  2.0 KB  compaction skipped (archive-failed), still over the window',
    );
  });
});
