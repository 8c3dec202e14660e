import { describe, expect, it } from 'vitest';
import { createSessionStoreView } from '../../../src/core/manage/session-store.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

describe('the session view of a store', () => {
  it('puts every key under <sessionId>/ and names it by the store\'s own reference', async () => {
    const store = createMemoryStore();
    const view = createSessionStoreView(store, 's1');
    expect(await view.putIfAbsent('tool-result-a.md', 'A')).toBe('created');
    expect(await store.get('s1/tool-result-a.md')).toBe('A');
    expect(view.referenceFor('tool-result-a.md')).toBe('memory://default/s1/tool-result-a.md');
    expect(view.keyFor('memory://default/s1/tool-result-a.md')).toBe('tool-result-a.md');
    expect(view.keyFor('memory://default/s2/tool-result-a.md')).toBeUndefined();
  });

  it('lists only the session\'s keys, without the prefix', async () => {
    const store = createMemoryStore();
    await store.put('s1/tool-result-a.md', 'A');
    await store.put('s2/tool-result-b.md', 'B');
    const view = createSessionStoreView(store, 's1');
    const keys: string[] = [];
    for await (const key of view.list('tool-result-')) keys.push(key);
    expect(keys).toEqual(['tool-result-a.md']);
  });

  it('keeps write-once: another content under a taken key is "exists", the same one "identical"', async () => {
    const view = createSessionStoreView(createMemoryStore(), 's1');
    await view.putIfAbsent('k.md', 'one');
    expect(await view.putIfAbsent('k.md', 'one')).toBe('identical');
    expect(await view.putIfAbsent('k.md', 'two')).toBe('exists');
    expect(await view.holds?.('k.md', 'one')).toBe(true);
  });
});
