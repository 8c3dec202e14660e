import { describe, expect, it } from 'vitest';
import { createLruMap } from '../../../../src/core/util/lru-map.js';

describe('createLruMap', () => {
  it('forgets the least recently used entry past maxEntries', () => {
    const map = createLruMap<number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.get('a');
    map.set('c', 3);

    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3]);
  });

  describe('maxBytes', () => {
    it('forgets the least recently used entries until the rest fit', () => {
      const map = createLruMap<string>(10, 100);
      map.set('a', 'a', 40);
      map.set('b', 'b', 40);
      map.set('c', 'c', 40);

      expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, 'b', 'c']);
      expect(map.bytes).toBe(80);
    });

    it('keeps the entry just set even when it alone is over the limit', () => {
      const map = createLruMap<string>(10, 100);
      map.set('a', 'a', 10);
      map.set('big', 'big', 500);

      expect([map.get('a'), map.get('big')]).toEqual([undefined, 'big']);
      expect(map.bytes).toBe(500);
    });

    it('counts an entry set again at its new size', () => {
      const map = createLruMap<string>(10, 100);
      map.set('a', 'a', 90);
      map.set('a', 'a', 10);
      map.set('b', 'b', 80);

      expect([map.get('a'), map.get('b')]).toEqual(['a', 'b']);
      expect(map.bytes).toBe(90);
    });
  });
});
