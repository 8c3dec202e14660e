/**
 * The proxy's usage figures: each recorded under the fingerprint of the history it counted and
 * found by the request that follows its answer, in this process or another over the same store.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { createHistoryFingerprinter, createUsageRecords } from '../../../src/proxy/usage-records.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

const silent = { warn: () => undefined };
const request1: Message[] = [{ role: 'user', content: 'Run the tests.' }];
const request2: Message[] = [
  ...request1,
  { role: 'assistant', content: 'They pass.' },
  { role: 'user', content: 'Now the linter.' },
];

describe('history fingerprints', () => {
  it('are the same whether the history extends the one fingerprinted before or comes alone', () => {
    const warm = createHistoryFingerprinter(4);
    warm.fingerprint('s', request1);
    const incremental = warm.fingerprint('s', request2);
    const alone = createHistoryFingerprinter(4).fingerprint('s', JSON.parse(JSON.stringify(request2)) as Message[]);
    expect(incremental).toEqual(alone);
  });

  it('name the request before as the history up to the last assistant turn', () => {
    const fingerprinter = createHistoryFingerprinter(4);
    const first = fingerprinter.fingerprint('s', request1);
    const second = createHistoryFingerprinter(4).fingerprint('s', request2);
    expect(first.previous).toBeUndefined();
    expect(second.previous).toEqual(first.whole);
  });

  it('leave prompt-cache markers out', () => {
    const marked: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Run the tests.', cache_control: { type: 'ephemeral' } }] },
    ];
    const plain: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Run the tests.' }] }];
    expect(createHistoryFingerprinter(4).fingerprint('s', marked).whole).toEqual(
      createHistoryFingerprinter(4).fingerprint('s', plain).whole,
    );
  });
});

describe('usage records', () => {
  it('give the next request the figure another process recorded for the request its last answer answered', async () => {
    const store = createMemoryStore();
    const usage = { input_tokens: 1234, messageCount: 1 };
    await createUsageRecords(store, 4, silent).record(
      's',
      's',
      createHistoryFingerprinter(4).fingerprint('s', request1).whole,
      usage,
    );

    const found = await createUsageRecords(store, 4, silent).find(
      's',
      's',
      createHistoryFingerprinter(4).fingerprint('s', request2),
    );
    expect(found).toEqual(usage);
  });

  it('give nothing to a history that does not follow the recorded one', async () => {
    const store = createMemoryStore();
    const records = createUsageRecords(store, 4, silent);
    await records.record('s', 's', createHistoryFingerprinter(4).fingerprint('s', request1).whole, {
      input_tokens: 1234,
      messageCount: 1,
    });
    const other: Message[] = [
      { role: 'user', content: 'Something else.' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'Go on.' },
    ];
    expect(await records.find('s', 's', createHistoryFingerprinter(4).fingerprint('s', other))).toBeUndefined();
    expect(await records.find('t', 't', createHistoryFingerprinter(4).fingerprint('t', request2))).toBeUndefined();
  });

  it('give nothing to another credential under the same session name', async () => {
    const store = createMemoryStore();
    const records = createUsageRecords(store, 4, silent);
    await records.record(
      's',
      's\u0000key-a',
      createHistoryFingerprinter(4).fingerprint('s\u0000key-a', request1).whole,
      {
        input_tokens: 1234,
        messageCount: 1,
      },
    );
    const other = createUsageRecords(store, 4, silent);
    expect(
      await other.find('s', 's\u0000key-b', createHistoryFingerprinter(4).fingerprint('s\u0000key-b', request2)),
    ).toBeUndefined();
    expect(
      await other.find('s', 's\u0000key-a', createHistoryFingerprinter(4).fingerprint('s\u0000key-a', request2)),
    ).toEqual({ input_tokens: 1234, messageCount: 1 });
  });
});
