import { describe, expect, it } from 'vitest';
import { createDecisionLog, fingerprintText, readResultTexts } from '../../../src/core/manage/decisions.js';
import type { ContentStore } from '../../../src/core/ports.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

/** A memory store holding `content` under `key`, counting its reads. */
async function storeWith(entries: Record<string, string>): Promise<ContentStore & { reads: number }> {
  const inner = createMemoryStore();
  for (const [key, content] of Object.entries(entries)) await inner.put(key, content);
  const store = { ...inner, reads: 0 };
  store.get = async (key, range) => {
    store.reads += 1;
    return inner.get(key, range);
  };
  return store;
}

describe('the decision log (issue 9: decisions already taken never change)', () => {
  it('finds the reference a content got under its call id, confirmed against the stored content', async () => {
    const store = await storeWith({ 's1/call_1.md': 'output' });
    const log = createDecisionLog();
    log.record('call_1', { reference: 'ref-1', key: 's1/call_1.md', chars: 6, mode: 'direct' });
    expect(log.has('call_1')).toBe(true);
    expect(await log.find('call_1', 'output', store)).toBe('ref-1');
  });

  it('reads the stored content once, and never for a content of another length', async () => {
    const store = await storeWith({ 's1/a.md': 'output' });
    const log = createDecisionLog();
    log.record('a', { reference: 'ref', key: 's1/a.md', chars: 6, mode: 'direct' });
    expect(await log.find('a', 'much longer output', store)).toBeUndefined();
    expect(store.reads).toBe(0);
    await log.find('a', 'output', store);
    await log.find('a', 'output', store);
    expect(store.reads).toBe(1);
  });

  it('tells two contents of the same length under one id apart', async () => {
    const store = await storeWith({ 's1/call_0.md': 'first' });
    const log = createDecisionLog();
    log.record('call_0', { reference: 'ref-1', key: 's1/call_0.md', chars: 5, mode: 'direct' });
    expect(await log.find('call_0', 'other', store)).toBeUndefined();
  });

  it('never matches a decision whose content cannot be read back', async () => {
    const store = await storeWith({});
    const log = createDecisionLog();
    log.record('a', { reference: 'ref', key: 's1/gone.md', chars: 6, mode: 'batch' });
    log.record('b', { reference: 'ref', key: undefined, chars: 6, mode: 'batch' });
    expect(await log.find('a', 'output', store)).toBeUndefined();
    expect(await log.find('b', 'output', store)).toBeUndefined();
  });

  it('matches a hook output against the same text wrapped in a text block', async () => {
    const store = await storeWith({ 's1/c.md': 'plain output' });
    const log = createDecisionLog();
    log.record('c', { reference: 'ref-c', key: 's1/c.md', chars: 12, mode: 'direct' });
    expect(await log.find('c', [{ type: 'text', text: 'plain output' }], store)).toBe('ref-c');
  });

  it('says which ids were offloaded directly', () => {
    const log = createDecisionLog();
    log.record('d', { reference: 'r', key: 'k', chars: 1, mode: 'direct' });
    log.record('b', { reference: 'r', key: 'k', chars: 1, mode: 'batch' });
    expect([log.hasDirect('d'), log.hasDirect('b'), log.hasDirect('x')]).toEqual([true, false, false]);
  });
});

describe('fingerprints and result texts', () => {
  it('reads a result as offload writes it, and a lone text block as its text too', () => {
    expect(readResultTexts('plain')).toEqual(['plain']);
    expect(readResultTexts([{ type: 'text', text: 'plain' }])).toEqual(['[{"type":"text","text":"plain"}]', 'plain']);
    expect(readResultTexts('bad \ud800 half')).toEqual(['bad \ufffd half']);
  });

  it('differ for contents of the same length that differ by one character', () => {
    expect(fingerprintText('abc-1')).not.toBe(fingerprintText('abc-2'));
    expect(fingerprintText('same')).toBe(fingerprintText('same'));
  });
});
