/** The store contract's write cases: putIfAbsent (alone, racing, in parts) and put. */
import { expect, it } from 'vitest';
import { collectKeys } from '../../core/store/store-keys.js';
import { CASE_TIMEOUT_MS, pause, type StoreContractContext } from './contract-helpers.js';

/** Writers racing for one key in the write-once case. */
const CONCURRENT_WRITERS = 20;

/** Registers the groups `putIfAbsent`, `putIfAbsent under concurrent writers`, `putIfAbsent with parts` and `put`. */
export function registerWriteCases(context: StoreContractContext): void {
  const { store: currentStore, root, key, group } = context;
  group('putIfAbsent', () => {
    it('creates a missing value and reads it back', async () => {
      const store = currentStore();
      expect(await store.putIfAbsent(key('a.md'), 'hello')).toBe('created');
      expect(await store.get(key('a.md'))).toBe('hello');
    });

    it("answers 'exists' for other content and keeps the first value", async () => {
      const store = currentStore();
      await store.putIfAbsent(key('a.md'), 'first');
      expect(await store.putIfAbsent(key('a.md'), 'second')).toBe('exists');
      expect(await store.putIfAbsent(key('a.md'), 'firs')).toBe('exists');
      expect(await store.putIfAbsent(key('a.md'), 'first ')).toBe('exists');
      expect(await store.get(key('a.md'))).toBe('first');
    });

    it("answers 'identical' for the same content and rewrites nothing", async () => {
      const store = currentStore();
      await store.putIfAbsent(key('a.md'), 'same 😀');
      const before = await store.stat(key('a.md'));
      await pause(30);
      expect(await store.putIfAbsent(key('a.md'), 'same 😀')).toBe('identical');
      expect(await store.putIfAbsent(key('a.md'), ['sa', 'me ', '😀'])).toBe('identical');
      expect(await store.get(key('a.md'))).toBe('same 😀');
      expect((await store.stat(key('a.md')))?.createdAt.getTime()).toBe(before?.createdAt.getTime());
    });

    it('stores the empty text', async () => {
      const store = currentStore();
      expect(await store.putIfAbsent(key('empty.md'), '')).toBe('created');
      expect(await store.get(key('empty.md'))).toBe('');
      expect((await store.stat(key('empty.md')))?.size).toBe(0);
      expect(await store.putIfAbsent(key('empty.md'), '')).toBe('identical');
      expect(await store.putIfAbsent(key('empty.md'), 'x')).toBe('exists');
    });
  });

  group('putIfAbsent under concurrent writers', () => {
    it(
      `lets exactly one of ${CONCURRENT_WRITERS} writers of different contents create the value, whole, while readers never see half of one`,
      async () => {
        const store = currentStore();
        const contents = Array.from(
          { length: CONCURRENT_WRITERS },
          (_, index) => `writer ${index} ${'é中😀'.repeat(4_000 + index)}`,
        );
        const target = key('raced.md');
        const seen: (string | undefined)[] = [];
        const reads = Array.from({ length: 10 }, async () => {
          for (let attempt = 0; attempt < 5; attempt += 1) seen.push(await store.get(target));
        });
        const [outcomes] = await Promise.all([
          Promise.all(contents.map((content) => store.putIfAbsent(target, content))),
          ...reads,
        ]);
        expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome === 'exists')).toHaveLength(CONCURRENT_WRITERS - 1);
        const winner = contents[outcomes.indexOf('created')];
        expect(await store.get(target)).toBe(winner);
        for (const value of seen) expect(value === undefined || contents.includes(value)).toBe(true);
      },
      CASE_TIMEOUT_MS,
    );

    it(
      `answers 'created' once and 'identical' to the others when ${CONCURRENT_WRITERS} writers race with the same content`,
      async () => {
        const store = currentStore();
        const target = key('same.md');
        const outcomes = await Promise.all(
          Array.from({ length: CONCURRENT_WRITERS }, () => store.putIfAbsent(target, 'one text')),
        );
        expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome === 'identical')).toHaveLength(CONCURRENT_WRITERS - 1);
        expect(await store.get(target)).toBe('one text');
      },
      CASE_TIMEOUT_MS,
    );
  });

  group('putIfAbsent with parts', () => {
    it('stores the parts joined, a surrogate pair split across two parts included', async () => {
      const store = currentStore();
      const parts = ['head ', '中文 ', '\ud83d', '\ude00', ' tail', '', 'end'];
      expect(await store.putIfAbsent(key('parts.md'), parts)).toBe('created');
      expect(await store.get(key('parts.md'))).toBe(parts.join(''));
      expect(await store.get(key('parts.md'))).toBe('head 中文 😀 tailend');
    });

    it('iterates a generator once and compares parts with a stored value', async () => {
      const store = currentStore();
      let iterations = 0;
      function* generate(): Generator<string> {
        iterations += 1;
        for (let index = 0; index < 1_000; index += 1) yield `line ${index} é\n`;
      }
      const joined = [...generate()].join('');
      iterations = 0;
      expect(await store.putIfAbsent(key('generated.md'), generate())).toBe('created');
      expect(iterations).toBe(1);
      expect(await store.get(key('generated.md'))).toBe(joined);
      expect(await store.putIfAbsent(key('generated.md'), generate())).toBe('identical');
      expect(await store.putIfAbsent(key('generated.md'), ['other'])).toBe('exists');
      expect(await store.get(key('generated.md'))).toBe(joined);
    });

    it('rejects when the parts throw, leaving no value', async () => {
      const store = currentStore();
      function* failing(): Generator<string> {
        yield 'partial ';
        throw new Error('serialization failed');
      }
      await expect(store.putIfAbsent(key('failed.md'), failing())).rejects.toBeInstanceOf(Error);
      expect(await store.get(key('failed.md'))).toBeUndefined();
      expect(await collectKeys(store, `${root()}/`)).toEqual([]);
    });
  });

  group('put', () => {
    it('creates and then overwrites a value', async () => {
      const store = currentStore();
      await store.put(key('p.md'), 'first');
      expect(await store.get(key('p.md'))).toBe('first');
      await store.put(key('p.md'), 'second, longer 😀');
      expect(await store.get(key('p.md'))).toBe('second, longer 😀');
      await store.put(key('p.md'), 's');
      expect(await store.get(key('p.md'))).toBe('s');
      expect((await store.stat(key('p.md')))?.size).toBe(1);
    });

    it('overwrites a value made by putIfAbsent, which then answers by the new value', async () => {
      const store = currentStore();
      await store.putIfAbsent(key('p.md'), 'first');
      await store.put(key('p.md'), 'second');
      expect(await store.putIfAbsent(key('p.md'), 'second')).toBe('identical');
      expect(await store.putIfAbsent(key('p.md'), 'first')).toBe('exists');
    });

    it(
      'leaves one whole value when writers race',
      async () => {
        const store = currentStore();
        const contents = Array.from({ length: CONCURRENT_WRITERS }, (_, index) => `put ${index} ${'ü'.repeat(10_000)}`);
        await Promise.all(contents.map((content) => store.put(key('p.md'), content)));
        expect(contents).toContain(await store.get(key('p.md')));
      },
      CASE_TIMEOUT_MS,
    );
  });
}
