/** The store contract's read cases: get, range reads, unicode, large values and stat. */
import { expect, it } from 'vitest';
import { countUtf8Bytes, decodeUtf8Range } from '../../core/text/utf8.js';
import { CASE_TIMEOUT_MS, createLargeValue, UNICODE_TEXT, type StoreContractContext } from './contract-helpers.js';

/** A clock running on another host (a Redis or S3 server) may be a little ahead of ours. */
const CLOCK_SKEW_MS = 2_000;

/** Registers the groups `get`, `range reads`, `unicode`, `large values` and `stat`. */
export function registerReadCases(context: StoreContractContext): void {
  const { store: currentStore, key, group, largeValueBytes } = context;
  group('get', () => {
    it('returns undefined for a missing key, with or without a range', async () => {
      const store = currentStore();
      expect(await store.get(key('missing.md'))).toBeUndefined();
      expect(await store.get(key('missing', 'nested.md'))).toBeUndefined();
      expect(await store.get(key('missing.md'), { offset: 0, length: 10 })).toBeUndefined();
    });

    it('does not take a prefix for a key', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('dir', 'a.md'), 'x');
      expect(await store.get(key('dir'))).toBeUndefined();
      expect(await store.stat(key('dir'))).toBeUndefined();
    });
  });

  group('range reads', () => {
    it('reads by byte offset and length', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('r.md'), 'hello world');
      expect(await store.get(key('r.md'), { offset: 6 })).toBe('world');
      expect(await store.get(key('r.md'), { offset: 0, length: 5 })).toBe('hello');
      expect(await store.get(key('r.md'), { length: 4 })).toBe('hell');
      expect(await store.get(key('r.md'), { offset: 4, length: 3 })).toBe('o w');
      expect(await store.get(key('r.md'), {})).toBe('hello world');
      expect(await store.get(key('r.md'), { offset: 0, length: 0 })).toBe('');
    });

    it('returns what is there for a range past the end, and the empty text from beyond it', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('r.md'), 'hello world');
      expect(await store.get(key('r.md'), { offset: 6, length: 100 })).toBe('world');
      expect(await store.get(key('r.md'), { offset: 11 })).toBe('');
      expect(await store.get(key('r.md'), { offset: 1_000 })).toBe('');
      expect(await store.get(key('r.md'), { offset: 1_000, length: 10 })).toBe('');
    });

    it('leaves out a multi-byte character cut by either edge, never U+FFFD', async () => {
      const store = currentStore();
      // bytes: a 0 | é 1-2 | € 3-5 | 😀 6-9 | b 10
      await store.putIfAbsent(key('u.md'), 'aé€😀b');
      expect(await store.get(key('u.md'), { offset: 1, length: 5 })).toBe('é€');
      expect(await store.get(key('u.md'), { offset: 2, length: 4 })).toBe('€');
      expect(await store.get(key('u.md'), { offset: 3, length: 5 })).toBe('€');
      expect(await store.get(key('u.md'), { offset: 2, length: 6 })).toBe('€');
      expect(await store.get(key('u.md'), { offset: 7 })).toBe('b');
      expect(await store.get(key('u.md'), { offset: 7, length: 2 })).toBe('');
      expect(await store.get(key('u.md'), { offset: 6, length: 4 })).toBe('😀');
    });

    it('reassembles the value page by page when each page moves on by the bytes it returned', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('u.md'), UNICODE_TEXT);
      const total = countUtf8Bytes(UNICODE_TEXT);
      for (const pageBytes of [4, 7, 16]) {
        let offset = 0;
        let text = '';
        while (offset < total) {
          const page = await store.get(key('u.md'), { offset, length: pageBytes });
          expect(page).toBeDefined();
          expect(page).not.toContain('\ufffd');
          text += page;
          offset += countUtf8Bytes(page ?? '');
        }
        expect(text).toBe(UNICODE_TEXT);
      }
    });
  });

  group('unicode', () => {
    it('round-trips CJK, emoji, ZWJ sequences, combining marks and control-like text', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('u.md'), UNICODE_TEXT);
      expect(await store.get(key('u.md'))).toBe(UNICODE_TEXT);
      await store.put(key('v.md'), UNICODE_TEXT);
      expect(await store.get(key('v.md'))).toBe(UNICODE_TEXT);
      expect(await store.holds?.(key('u.md'), UNICODE_TEXT)).not.toBe(false);
    });

    it('keeps text that differs only by normalization apart', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('n.md'), 'caf\u00e9');
      expect(await store.putIfAbsent(key('n.md'), 'cafe\u0301')).toBe('exists');
      expect(await store.get(key('n.md'))).toBe('caf\u00e9');
    });
  });

  group('large values', () => {
    it(
      `round-trips a ${largeValueBytes}-byte value and reads a range inside it`,
      async () => {
        const store = currentStore();
        const value = createLargeValue(largeValueBytes);
        expect(await store.putIfAbsent(key('large.md'), value)).toBe('created');
        expect((await store.stat(key('large.md')))?.size).toBe(largeValueBytes);
        expect(await store.get(key('large.md'))).toBe(value);
        const encoded = new TextEncoder().encode(value);
        const offset = Math.floor(largeValueBytes / 2) + 1;
        const expected = decodeUtf8Range(encoded.subarray(offset, offset + 4_000));
        expect(await store.get(key('large.md'), { offset, length: 4_000 })).toBe(expected);
        expect(await store.putIfAbsent(key('large.md'), value)).toBe('identical');
      },
      CASE_TIMEOUT_MS,
    );

    it(
      `stores a ${largeValueBytes}-byte value given in parts`,
      async () => {
        const store = currentStore();
        const value = createLargeValue(largeValueBytes);
        const chunk = 100_003; // odd, so parts split characters and surrogate pairs
        function* parts(): Generator<string> {
          for (let index = 0; index < value.length; index += chunk) yield value.slice(index, index + chunk);
        }
        expect(await store.putIfAbsent(key('large-parts.md'), parts())).toBe('created');
        expect((await store.stat(key('large-parts.md')))?.size).toBe(largeValueBytes);
        expect(await store.get(key('large-parts.md'))).toBe(value);
      },
      CASE_TIMEOUT_MS,
    );
  });

  group('stat', () => {
    it('gives the size in UTF-8 bytes and a creation time not in the future', async () => {
      const store = currentStore();
      const started = Date.now();
      await store.putIfAbsent(key('s.md'), 'aé€😀');
      const entry = await store.stat(key('s.md'));
      expect(entry?.size).toBe(10);
      expect(entry?.createdAt).toBeInstanceOf(Date);
      const time = entry?.createdAt.getTime() ?? Number.NaN;
      expect(time).toBeLessThanOrEqual(Date.now() + CLOCK_SKEW_MS);
      expect(time).toBeGreaterThanOrEqual(started - CLOCK_SKEW_MS);
    });

    it('returns undefined for a missing key', async () => {
      const store = currentStore();
      expect(await store.stat(key('missing.md'))).toBeUndefined();
    });
  });
}
