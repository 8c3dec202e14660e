import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../../../src/api/read-offloaded-tool.js';
import { ReadFailedError } from '../../../../src/core/errors.js';
import type { ByteRange, ContentStore } from '../../../../src/core/ports.js';
import {
  createLineIndex,
  extractReference,
  MAX_SEARCHED_LINE_CHARS,
  READ_OFFLOADED_TOOL_NAME,
  readOffloaded,
  type ResolvedReadOffloadedOptions,
} from '../../../../src/core/read/read-offloaded.js';
import { compileRe2Pattern } from '../../../../src/infrastructure/re2-pattern.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';

// ---- Fixtures ----------------------------------------------------------------------------------

const RE2_SYNTAX =
  'Patterns use RE2 syntax: a JavaScript regular expression without backreferences (\\1) or lookaround ((?=...), (?!...), (?<=...), (?<!...)), e.g. "error|warn", or "/timeout/i" for flags.';

const CUT_MARKER = ' [… line cut]';

function resolvedOptions(overrides: Partial<ResolvedReadOffloadedOptions> = {}): ResolvedReadOffloadedOptions {
  return {
    maxChars: 20_000,
    sessionId: undefined,
    contextLines: 2,
    chunkBytes: 64,
    lineIndex: createLineIndex(),
    toolName: READ_OFFLOADED_TOOL_NAME,
    compilePattern: compileRe2Pattern,
    ...overrides,
  };
}

async function createStoreWith(entries: Record<string, string>): Promise<ContentStore> {
  const store = createMemoryStore();
  for (const [key, value] of Object.entries(entries)) await store.putIfAbsent(key, value);
  return store;
}

function referenceTo(key: string): string {
  return `memory://default/${key}`;
}

/** A store whose calls are counted, with the bytes its range reads asked for. */
function countCalls(store: ContentStore): {
  store: ContentStore;
  calls: { get: number; stat: number; bytes: number; keyFor: number };
} {
  const calls = { get: 0, stat: 0, bytes: 0, keyFor: 0 };
  return {
    calls,
    store: {
      ...store,
      async get(key: string, range?: ByteRange) {
        calls.get += 1;
        calls.bytes += range?.length ?? Number.POSITIVE_INFINITY;
        return store.get(key, range);
      },
      async stat(key: string) {
        calls.stat += 1;
        return store.stat(key);
      },
      keyFor(reference: string) {
        calls.keyFor += 1;
        return store.keyFor(reference);
      },
    },
  };
}

function numbered(lines: readonly string[], first = 1): string {
  return lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`).join('\n');
}

/** The lines of `text` as `cat -n` counts them: no empty line after a final line break, `\r` before a break dropped. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

interface PageLine {
  number: number;
  text: string;
  cut: boolean;
}

function parsePage(output: string): { lines: PageLine[]; footer: string } {
  const rows = output.split('\n');
  const footer = rows.pop()!;
  const lines = rows.map((row) => {
    const match = /^ *(\d+)\t([\s\S]*)$/.exec(row);
    if (match === null) throw new Error(`not a numbered line: ${JSON.stringify(row)}`);
    const text = match[2]!;
    const cut = text.endsWith(CUT_MARKER);
    return { number: Number(match[1]), text: cut ? text.slice(0, -CUT_MARKER.length) : text, cut };
  });
  return { lines, footer };
}

function nextOffset(footer: string): number | undefined {
  const match = /"offset": ?(\d+)/.exec(footer);
  return match === null ? undefined : Number(match[1]);
}

const FIFTY_LINES = Array.from(
  { length: 50 },
  (_, index) => `line ${index + 1}${(index + 1) % 10 === 0 ? ' ERROR failed' : ' ok'}`,
);

// ---- Reading pages -----------------------------------------------------------------------------

describe('readOffloaded', () => {
  describe('pages', () => {
    it('numbers lines as cat -n does (right-aligned in 6 columns, a tab) and ends at the end of content', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'first\nsecond\n\tthird\n' });
      const output = await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions());
      expect(output).toBe('     1\tfirst\n     2\tsecond\n     3\t\tthird\n[lines 1-3 of 3; end of content]');
    });

    it('counts a last line without a line break, and no empty line after a final one', async () => {
      const store = await createStoreWith({
        'tool-result-a.md': 'a\nb',
        'tool-result-b.md': 'a\nb\n',
        'tool-result-c.md': '\n',
      });
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions())).toBe(
        `${numbered(['a', 'b'])}\n[lines 1-2 of 2; end of content]`,
      );
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-b.md') }, resolvedOptions())).toBe(
        `${numbered(['a', 'b'])}\n[lines 1-2 of 2; end of content]`,
      );
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-c.md') }, resolvedOptions())).toBe(
        `${numbered([''])}\n[line 1 of 1; end of content]`,
      );
    });

    it('drops the \\r of CRLF line breaks', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'one\r\ntwo\r\n' });
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions())).toBe(
        `${numbered(['one', 'two'])}\n[lines 1-2 of 2; end of content]`,
      );
    });

    it('says an empty value is empty', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': '' });
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions())).toBe(
        '"memory://default/tool-result-a.md" is empty (0 lines).',
      );
    });

    describe('offset and limit', () => {
      it('returns `limit` lines from `offset` and the call for the next page', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: 10, limit: 3 },
          resolvedOptions(),
        );
        expect(output).toBe(
          `${numbered(FIFTY_LINES.slice(9, 12), 10)}\n[lines 10-12 of a 590-byte text; more follow: call read_offloaded with {"ref":"memory://default/tool-result-a.md","offset":13} for the next page]`,
        );
      });

      it('ends at the last line when offset + limit passes it', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: 49, limit: 10 },
          resolvedOptions(),
        );
        expect(output).toBe(`${numbered(FIFTY_LINES.slice(48), 49)}\n[lines 49-50 of 50; end of content]`);
      });

      it('reads the last line alone (offset = the line count, limit exactly reaching it)', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        expect(
          await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), offset: 50 }, resolvedOptions()),
        ).toBe(`${numbered(['line 50 ERROR failed'], 50)}\n[line 50 of 50; end of content]`);
        expect(
          await readOffloaded(
            store,
            { ref: referenceTo('tool-result-a.md'), offset: 41, limit: 10 },
            resolvedOptions(),
          ),
        ).toMatch(/\n\[lines 41-50 of 50; end of content\]$/);
      });

      it('says when offset is past the end, and how to start over', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        expect(
          await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), offset: 51 }, resolvedOptions()),
        ).toBe(
          'Offset 51 is past the end: "memory://default/tool-result-a.md" has 50 lines. Call read_offloaded with {"ref":"memory://default/tool-result-a.md","offset":1} to read from the start.',
        );
      });

      it('reads offset 0 as the first line, and numbers given as digit strings', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        const fromZero = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: 0, limit: 1 },
          resolvedOptions(),
        );
        expect(fromZero.split('\n')[0]).toBe('     1\tline 1 ok');
        const fromText = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: '3', limit: '1' },
          resolvedOptions(),
        );
        expect(fromText.split('\n')[0]).toBe('     3\tline 3 ok');
      });
    });

    describe('maxChars', () => {
      it('ends a page at a line boundary before maxChars', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md') },
          resolvedOptions({ maxChars: 500 }),
        );
        expect(output.length).toBeLessThanOrEqual(500);
        const { lines, footer } = parsePage(output);
        expect(lines.map((line) => line.text)).toEqual(FIFTY_LINES.slice(0, lines.length));
        expect(footer).toBe(
          `[lines 1-${lines.length} of a 590-byte text; more follow: call read_offloaded with {"ref":"memory://default/tool-result-a.md","offset":${lines.length + 1}} for the next page]`,
        );
      });

      it('cuts a single line longer than the page, with a marker, and points past it', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': `${'x'.repeat(5000)}\nafter` });
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md') },
          resolvedOptions({ maxChars: 1000 }),
        );
        expect(output.length).toBeLessThanOrEqual(1000);
        const { lines, footer } = parsePage(output);
        expect(lines).toHaveLength(1);
        expect(lines[0]!.cut).toBe(true);
        expect(lines[0]!.text).toMatch(/^x{300,}$/);
        expect(footer).toBe(
          '[line 1 is too long for one page and was cut; call read_offloaded with {"ref":"memory://default/tool-result-a.md","offset":2} for any lines after it, or use "pattern" to find text inside it]',
        );
        expect(await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), offset: 2 }, resolvedOptions())).toBe(
          '     2\tafter\n[line 2 of 2; end of content]',
        );
      });

      it('says when the cut line is the last one', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': 'y'.repeat(3000) });
        const { footer } = parsePage(
          await readOffloaded(
            store,
            { ref: referenceTo('tool-result-a.md') },
            resolvedOptions({ maxChars: 1000, chunkBytes: 100_000 }),
          ),
        );
        expect(footer).toBe(
          '[line 1 is too long for one page and was cut; it is the last line: use "pattern" to find text inside it]',
        );
      });

      it('stops reading a huge line once it is longer than the page (one chunk of a 1 MB line)', async () => {
        const { store, calls } = countCalls(await createStoreWith({ 'tool-result-a.md': 'z'.repeat(1_000_000) }));
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md') },
          resolvedOptions({ chunkBytes: 65_536 }),
        );
        expect(output.length).toBeLessThanOrEqual(20_000);
        expect(calls.get).toBe(1);
      });

      it('never cuts a surrogate pair', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': '😀'.repeat(2000) });
        const { lines } = parsePage(
          await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions({ maxChars: 777 })),
        );
        expect(lines[0]!.text).toMatch(/^(😀)+$/u);
      });

      it('names the reference instead of repeating it when it is too long for the footer', async () => {
        const key = `tool-result-${'k'.repeat(150)}.md`;
        const store = await createStoreWith({ [key]: FIFTY_LINES.join('\n') });
        const output = await readOffloaded(
          store,
          { ref: referenceTo(key), limit: 2 },
          resolvedOptions({ maxChars: 500 }),
        );
        expect(output).toMatch(
          /\n\[lines 1-2 of a 590-byte text; more follow: call read_offloaded with the same ref and "offset": 3 for the next page\]$/,
        );
      });

      it('never exceeds maxChars, and successive pages cover every line exactly once (property)', async () => {
        const unit = fc.constantFrom('a', 'b', ' ', '\t', '\r', 'é', '中', '😀', '👍🏽');
        const line = fc.oneof(
          { weight: 6, arbitrary: fc.string({ unit, maxLength: 40 }) },
          { weight: 1, arbitrary: fc.string({ unit, minLength: 300, maxLength: 2500 }) },
        );
        const text = fc
          .tuple(fc.array(line, { maxLength: 60 }), fc.boolean())
          .map(([lines, finalBreak]) => lines.join('\n') + (finalBreak && lines.length > 0 ? '\n' : ''));
        await fc.assert(
          fc.asyncProperty(
            text,
            fc.integer({ min: 500, max: 2500 }),
            fc.oneof(fc.integer({ min: 4, max: 12 }), fc.integer({ min: 64, max: 4096 })),
            fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
            async (value, maxChars, chunkBytes, limit) => {
              const store = await createStoreWith({ 'tool-result-p.md': value });
              const options = resolvedOptions({ maxChars, chunkBytes });
              const expected = splitLines(value);
              const seen: PageLine[] = [];
              let offset: number | undefined = 1;
              let afterCut = false;
              for (let page = 0; offset !== undefined; page += 1) {
                if (page > 10_000) throw new Error('paging does not end');
                const output = await readOffloaded(
                  store,
                  { ref: referenceTo('tool-result-p.md'), offset, limit },
                  options,
                );
                expect(output.length).toBeLessThanOrEqual(maxChars);
                if (expected.length === 0) {
                  expect(output).toBe('"memory://default/tool-result-p.md" is empty (0 lines).');
                  break;
                }
                // after a line cut before its end was read, whether lines follow was not known
                if (afterCut && output.startsWith(`Offset ${offset} is past the end`)) break;
                const { lines, footer } = parsePage(output);
                if (limit !== undefined) expect(lines.length).toBeLessThanOrEqual(limit);
                seen.push(...lines);
                offset =
                  footer.endsWith('end of content]') || footer.includes('it is the last line')
                    ? undefined
                    : nextOffset(footer);
                afterCut = footer.includes('was cut');
                if (offset !== undefined) expect(offset).toBe(lines[lines.length - 1]!.number + 1);
              }
              expect(seen.map((line) => line.number)).toEqual(expected.map((_, index) => index + 1));
              for (const line of seen) {
                const original = expected[line.number - 1]!;
                if (line.cut) expect(original.startsWith(line.text)).toBe(true);
                else expect(line.text).toBe(original);
              }
            },
          ),
          { numRuns: 300 },
        );
      });
    });

    describe('chunks', () => {
      it('reads multi-byte characters cut by every chunk edge whole (chunks of 4 to 9 bytes)', async () => {
        const lines = ['é中😀a👍🏽', '中中中', '😀😀', 'ascii', 'ü', '', '𝄞x𝄞'];
        const store = await createStoreWith({ 'tool-result-a.md': lines.join('\n') });
        for (let chunkBytes = 4; chunkBytes <= 9; chunkBytes += 1) {
          const output = await readOffloaded(
            store,
            { ref: referenceTo('tool-result-a.md') },
            resolvedOptions({ chunkBytes }),
          );
          expect(output, `chunks of ${chunkBytes} bytes`).toBe(`${numbered(lines)}\n[lines 1-7 of 7; end of content]`);
          const third = await readOffloaded(
            store,
            { ref: referenceTo('tool-result-a.md'), offset: 3, limit: 2 },
            resolvedOptions({ chunkBytes }),
          );
          expect(third.split('\n').slice(0, 2)).toEqual(['     3\t😀😀', '     4\tascii']);
        }
      });

      it('reads only the chunks a first page needs', async () => {
        const value = Array.from({ length: 20_000 }, (_, index) => `row ${index + 1} ${'.'.repeat(40)}`).join('\n');
        const { store, calls } = countCalls(await createStoreWith({ 'tool-result-a.md': value }));
        await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, resolvedOptions({ chunkBytes: 4096 }));
        // 20,000 chars of ASCII: ranges of 4, 8 and 16 KB (each twice the last); the value is 1 MB
        expect(calls.get).toBe(3);
        expect(calls.bytes).toBe(7 * 4096);
      });

      it('remembers where lines start, so a later page of the same value does not rescan it', async () => {
        const value = Array.from({ length: 5000 }, (_, index) => `line ${index + 1}`).join('\n');
        const { store, calls } = countCalls(await createStoreWith({ 'tool-result-a.md': value }));
        const options = resolvedOptions({ chunkBytes: 256 });
        const first = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: 4000, limit: 2 },
          options,
        );
        const bytesOfFirst = calls.bytes;
        const again = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: 4001, limit: 2 },
          options,
        );
        expect(first.split('\n').slice(0, 2)).toEqual(['  4000\tline 4000', '  4001\tline 4001']);
        expect(again.split('\n').slice(0, 2)).toEqual(['  4001\tline 4001', '  4002\tline 4002']);
        expect(bytesOfFirst).toBeGreaterThan(30_000);
        // from the position remembered last: at most the largest range (4x the first) and a page
        expect(calls.bytes - bytesOfFirst).toBeLessThanOrEqual(5 * 256);
        // an earlier page, from an index built further on, is still right
        expect(
          (await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), offset: 7, limit: 1 }, options)).split(
            '\n',
          )[0],
        ).toBe('     7\tline 7');
      });

      it('forgets the positions of a value that changed', async () => {
        let time = 0;
        const store = createMemoryStore({ now: () => new Date((time += 1000)) });
        await store.put('s1/a.md', Array.from({ length: 3000 }, (_, index) => `old ${index + 1}`).join('\n'));
        const options = resolvedOptions({ chunkBytes: 128 });
        await readOffloaded(store, { ref: referenceTo('s1/a.md'), offset: 2500, limit: 1 }, options);
        await store.put('s1/a.md', Array.from({ length: 3000 }, (_, index) => `new line ${index + 1}`).join('\n'));
        expect(
          (await readOffloaded(store, { ref: referenceTo('s1/a.md'), offset: 2500, limit: 1 }, options)).split('\n')[0],
        ).toBe('  2500\tnew line 2500');
      });
    });
  });

  // ---- Pattern search --------------------------------------------------------------------------

  describe('pattern', () => {
    it('returns the matching lines with 2 lines of context, groups apart separated by --', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: 'ERROR', limit: 2 },
        resolvedOptions(),
      );
      expect(output).toBe(
        [
          'Lines matching /ERROR/ (":" marks a match, "-" context):',
          '     8-\tline 8 ok',
          '     9-\tline 9 ok',
          '    10:\tline 10 ERROR failed',
          '    11-\tline 11 ok',
          '    12-\tline 12 ok',
          '--',
          '    18-\tline 18 ok',
          '    19-\tline 19 ok',
          '    20:\tline 20 ERROR failed',
          '    21-\tline 21 ok',
          '    22-\tline 22 ok',
          '[2 matching lines shown (lines 10-20); more may match: call read_offloaded with {"ref":"memory://default/tool-result-a.md","pattern":"ERROR","offset":23} to search on]',
        ].join('\n'),
      );
    });

    it('searches from offset and ends at the end of content', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: 'ERROR', offset: 45 },
        resolvedOptions(),
      );
      expect(output).toBe(
        [
          'Lines matching /ERROR/ from line 45 (":" marks a match, "-" context):',
          '    48-\tline 48 ok',
          '    49-\tline 49 ok',
          '    50:\tline 50 ERROR failed',
          '[1 matching line; searched lines 45-50 of 50; end of content]',
        ].join('\n'),
      );
    });

    it('joins overlapping context and never shows a line twice', async () => {
      const store = await createStoreWith({
        'tool-result-a.md': ['a', 'hit 1', 'b', 'hit 2', 'c', 'd', 'e', 'f', 'hit 3'].join('\n'),
      });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: '^hit' },
        resolvedOptions(),
      );
      expect(output).toBe(
        [
          'Lines matching /^hit/ (":" marks a match, "-" context):',
          '     1-\ta',
          '     2:\thit 1',
          '     3-\tb',
          '     4:\thit 2',
          '     5-\tc',
          '     6-\td',
          '     7-\te',
          '     8-\tf',
          '     9:\thit 3',
          '[3 matching lines; searched lines 1-9 of 9; end of content]',
        ].join('\n'),
      );
    });

    it('takes /source/flags, and ignores g (each line is tested afresh)', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'Error one\nerror two\nERROR three' });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: '/error/gi' },
        resolvedOptions({ contextLines: 0 }),
      );
      expect(output).toBe(
        [
          'Lines matching /error/gi (":" marks a match, "-" context):',
          '     1:\tError one',
          '     2:\terror two',
          '     3:\tERROR three',
          '[3 matching lines; searched lines 1-3 of 3; end of content]',
        ].join('\n'),
      );
    });

    it('says when nothing matches', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
      expect(
        await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), pattern: 'panic' }, resolvedOptions()),
      ).toBe('No line matches /panic/ in lines 1-50 of "memory://default/tool-result-a.md" (50 lines in all).');
    });

    it('rejects an invalid regular expression with a clear message', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'x' });
      expect(
        await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), pattern: 'a(b' }, resolvedOptions()),
      ).toBe(`Invalid pattern "a(b": error parsing regexp: missing closing ): \`a(b\`. ${RE2_SYNTAX}`);
    });

    it.each([
      ['a backreference', '(a)\\1'],
      ['a lookahead', 'error(?=:)'],
      ['a negative lookahead', 'error(?!:)'],
      ['a lookbehind', '(?<=x)error'],
      ['a negative lookbehind', '(?<!x)error'],
    ])('answers %s, which RE2 cannot run, with a message naming RE2 syntax', async (_kind, pattern) => {
      const store = await createStoreWith({ 'tool-result-a.md': 'x' });
      const output = await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), pattern }, resolvedOptions());
      expect(output).toMatch(
        new RegExp(
          `^Invalid pattern ${JSON.stringify(pattern).replace(/[\\()?<=!]/g, '\\$&')}: error parsing regexp: `,
        ),
      );
      expect(output.endsWith(RE2_SYNTAX)).toBe(true);
    });

    it('refuses a pattern over 1,000 characters at once, naming the field, the limit and its length', async () => {
      const { store, calls } = countCalls(await createStoreWith({ 'tool-result-a.md': 'x' }));

      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: 'a'.repeat(2_000_000) },
        resolvedOptions(),
      );

      expect(output).toBe(
        'Invalid input: "pattern" must be at most 1,000 characters, got one of 2,000,000. Search for a shorter, distinctive part of the text.',
      );
      // refused before anything else: the store is not asked
      expect(calls).toEqual({ get: 0, stat: 0, bytes: 0, keyFor: 0 });
    });

    it('searches with a pattern of 1,000 characters', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': `x\n${'a'.repeat(1_000)}` });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: 'a'.repeat(1_000) },
        resolvedOptions({ contextLines: 0 }),
      );

      expect(output).toContain('[1 matching line;');
    });

    it('answers a pattern that backtracks for days, (\\w+\\s*)+: on a git hash line, as RE2 does', async () => {
      const hash = 'a3f9c2e17b4d08e5f6a7b8c9d0e1f2a3b4c5d6e7';
      const store = await createStoreWith({ 'tool-result-a.md': `commit ${hash}\nAuthor name: Ada\ncommit ${hash}` });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: '(\\w+\\s*)+:' },
        resolvedOptions({ contextLines: 0 }),
      );
      expect(output).toBe(
        [
          'Lines matching /(\\w+\\s*)+:/ (":" marks a match, "-" context):',
          '     2:\tAuthor name: Ada',
          '[1 matching line; searched lines 1-3 of 3; end of content]',
        ].join('\n'),
      );
    });

    it('keeps the i, m and s flags', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'ERROR: a.b\nfine' });
      const search = (pattern: string): Promise<string> =>
        readOffloaded(store, { ref: referenceTo('tool-result-a.md'), pattern }, resolvedOptions({ contextLines: 0 }));
      expect(await search('/error/i')).toContain('     1:\tERROR: a.b');
      expect(await search('/error/')).toMatch(/^No line matches/);
      expect(await search('/^fine$/m')).toContain('     2:\tfine');
      expect(await search('/a.b/s')).toContain('     1:\tERROR: a.b');
    });

    describe('a line longer than the searched length', () => {
      const cap = MAX_SEARCHED_LINE_CHARS;
      const longLine = `${'x'.repeat(cap - 100)}early${'y'.repeat(200)}late`;

      it('finds a match in its first searched characters and says the line goes on', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': `short\n${longLine}` });
        const output = await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), pattern: 'early' },
          resolvedOptions({ chunkBytes: 65_536, contextLines: 0 }),
        );
        const rows = output.split('\n');
        expect(rows[1]).toMatch(/^ {5}2:\t….*early.*… \[char 999,901\/over 1,000,000\]$/);
        expect(rows[2]).toBe(
          '[1 matching line; searched lines 1-2 of 2; 1 line longer than 1,000,000 characters searched in its first 1,000,000 only; end of content]',
        );
      });

      it('does not search past it, and says so when nothing matched', async () => {
        const store = await createStoreWith({ 'tool-result-a.md': `short\n${longLine}` });
        expect(
          await readOffloaded(
            store,
            { ref: referenceTo('tool-result-a.md'), pattern: 'late' },
            resolvedOptions({ chunkBytes: 65_536 }),
          ),
        ).toBe(
          'No line matches /late/ in lines 1-2 of "memory://default/tool-result-a.md" (2 lines in all; 1 line longer than 1,000,000 characters searched in its first 1,000,000 only).',
        );
      });
    });

    it('shows a match deep inside a huge line around the match', async () => {
      const line = `${'{"id":1},'.repeat(50_000)}{"needle":"found"}${',{"id":2}'.repeat(1000)}`;
      const store = await createStoreWith({ 'tool-result-a.md': `head\n${line}\ntail` });
      const output = await readOffloaded(
        store,
        { ref: referenceTo('tool-result-a.md'), pattern: 'needle' },
        resolvedOptions({ chunkBytes: 65_536 }),
      );
      expect(output.length).toBeLessThanOrEqual(20_000);
      const matchRow = output.split('\n').find((row) => row.startsWith('     2:\t'))!;
      expect(matchRow).toContain('{"needle":"found"}');
      expect(matchRow).toMatch(/^ {5}2:\t….*… \[char 450,003\/459,018\]$/);
      expect(matchRow.length).toBeLessThanOrEqual(8 + 500);
    });

    it('never exceeds maxChars, and successive searches show every match exactly once (property)', async () => {
      const unit = fc.constantFrom('a', 'b', ' ', 'é', '中', '😀', 'x');
      const line = fc.oneof(
        { weight: 6, arbitrary: fc.string({ unit, maxLength: 30 }) },
        { weight: 1, arbitrary: fc.string({ unit, minLength: 300, maxLength: 2000 }) },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(line, { maxLength: 80 }),
          fc.integer({ min: 500, max: 3000 }),
          fc.oneof(fc.integer({ min: 4, max: 12 }), fc.integer({ min: 64, max: 4096 })),
          fc.integer({ min: 0, max: 3 }),
          fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
          async (lines, maxChars, chunkBytes, contextLines, limit) => {
            const value = lines.join('\n');
            const store = await createStoreWith({ 'tool-result-p.md': value });
            const options = resolvedOptions({ maxChars, chunkBytes, contextLines });
            const expected = splitLines(value)
              .map((text, index) => ({ text, number: index + 1 }))
              .filter(({ text }) => /é|中/.test(text))
              .map(({ number }) => number);
            const shown: number[] = [];
            let offset: number | undefined = 1;
            for (let page = 0; offset !== undefined; page += 1) {
              if (page > 10_000) throw new Error('searching does not end');
              const output = await readOffloaded(
                store,
                { ref: referenceTo('tool-result-p.md'), pattern: 'é|中', offset, limit },
                options,
              );
              expect(output.length).toBeLessThanOrEqual(maxChars);
              const rows = output.split('\n');
              const matches = rows.flatMap((row) => {
                const match = /^ *(\d+):\t/.exec(row);
                return match === null ? [] : [Number(match[1])];
              });
              if (limit !== undefined) expect(matches.length).toBeLessThanOrEqual(limit);
              shown.push(...matches);
              offset = rows[rows.length - 1]!.includes('more may match')
                ? nextOffset(rows[rows.length - 1]!)
                : undefined;
            }
            expect(shown).toEqual(expected);
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  // ---- References and refusals -----------------------------------------------------------------

  describe('references', () => {
    it('takes the whole reference line (with a preview after it) or the reference alone', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'hello' });
      const expected = '     1\thello\n[line 1 of 1; end of content]';
      for (const ref of [
        '[Content offloaded to: memory://default/tool-result-a.md]',
        '  [Content offloaded to: memory://default/tool-result-a.md]\nPreview (all 5 chars):\nhello',
        'memory://default/tool-result-a.md',
      ]) {
        expect(await readOffloaded(store, { ref }, resolvedOptions())).toBe(expected);
      }
      expect(extractReference('[Tool result offloaded to file: /srv/offload/s1/toolu_1.md]')).toBe(
        '/srv/offload/s1/toolu_1.md',
      );
    });

    it('takes a reference with the quotes a summary ledger writes it in (a JSON string)', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'hello' });
      expect(await readOffloaded(store, { ref: ' "memory://default/tool-result-a.md" ' }, resolvedOptions())).toBe(
        '     1\thello\n[line 1 of 1; end of content]',
      );
      expect(extractReference('"not json')).toBe('"not json');
    });

    it("opens a compaction archive: the package's own write, at the top or in a session", async () => {
      const archive = '[\n  {\n    "role": "user",\n    "content": "hi"\n  }\n]';
      const store = await createStoreWith({
        'compact-2026-11-21T23-45-12Z-1.json': archive,
        's1/compact-2026-11-21T23-45-12Z-2.json': archive,
      });
      for (const key of ['compact-2026-11-21T23-45-12Z-1.json', 's1/compact-2026-11-21T23-45-12Z-2.json']) {
        expect(await readOffloaded(store, { ref: referenceTo(key), pattern: 'content' }, resolvedOptions())).toContain(
          '     4:\t    "content": "hi"',
        );
      }
      expect(
        await readOffloaded(
          store,
          { ref: referenceTo('s1/compact-2026-11-21T23-45-12Z-2.json') },
          resolvedOptions({ sessionId: 's2' }),
        ),
      ).toMatch(/^Refused: .* belongs to another session/);
    });

    it('takes its arguments as JSON text, as a model wrote them', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'hello' });
      expect(await readOffloaded(store, '{"ref":"memory://default/tool-result-a.md"}', resolvedOptions())).toBe(
        '     1\thello\n[line 1 of 1; end of content]',
      );
    });

    it('refuses, before any read, references this store did not write', async () => {
      const { store, calls } = countCalls(
        await createStoreWith({ 'tool-result-a.md': 'hello', 'notes.txt': 'private', 'a/b/c.md': 'deep' }),
      );
      for (const ref of [
        '/etc/passwd',
        './tool-result-a.md',
        'memory://other/tool-result-a.md',
        'memory://default/../tool-result-a.md',
        'memory://default/s1/../../etc/passwd.md',
        'memory://default//tool-result-a.md',
        'memory://default/notes.txt',
        'memory://default/a/b/c.md',
        'memory://default/tool-result-a.md\u0000',
        'redis://offload/tool-result-a.md',
      ]) {
        expect(await readOffloaded(store, { ref }, resolvedOptions())).toBe(
          `Refused: ${JSON.stringify(ref.trim().length > 80 ? `${ref.trim().slice(0, 77)}...` : ref.trim())} is not a reference to content offloaded here, so it is not read. Pass a reference exactly as it appears in "[Content offloaded to: ...]" or "[Tool result offloaded to file: ...]".`,
        );
      }
      expect(calls.get + calls.stat).toBe(0);
    });

    describe('sessionId', () => {
      it('reads its own session only, and refuses other sessions and top-level keys before any read', async () => {
        const { store, calls } = countCalls(
          await createStoreWith({
            's1/toolu_1.md': 'mine',
            's2/toolu_1.md': 'theirs',
            'tool-result-a.md': 'shared',
            's1/compact-2026-01-02T03-04-05Z-1.json': '[]',
          }),
        );
        const options = resolvedOptions({ sessionId: 's1' });
        expect(await readOffloaded(store, { ref: referenceTo('s1/toolu_1.md') }, options)).toBe(
          '     1\tmine\n[line 1 of 1; end of content]',
        );
        expect(
          await readOffloaded(store, { ref: referenceTo('s1/compact-2026-01-02T03-04-05Z-1.json') }, options),
        ).toBe('     1\t[]\n[line 1 of 1; end of content]');
        const reads = calls.get + calls.stat;
        expect(await readOffloaded(store, { ref: referenceTo('s2/toolu_1.md') }, options)).toBe(
          'Refused: "memory://default/s2/toolu_1.md" belongs to another session; this tool reads only the content offloaded in session "s1".',
        );
        expect(await readOffloaded(store, { ref: referenceTo('tool-result-a.md') }, options)).toMatch(
          /^Refused: .* belongs to another session/,
        );
        expect(await readOffloaded(store, { ref: referenceTo('s1/../s2/toolu_1.md') }, options)).toMatch(
          /^Refused: .* is not a reference to content offloaded here/,
        );
        expect(await readOffloaded(store, { ref: referenceTo('s10/toolu_1.md') }, options)).toMatch(
          /^Refused: .* belongs to another session/,
        );
        expect(calls.get + calls.stat).toBe(reads);
      });
    });

    it('says when nothing is stored at a reference, without throwing', async () => {
      const store = await createStoreWith({});
      expect(await readOffloaded(store, { ref: referenceTo('tool-result-gone.md') }, resolvedOptions())).toBe(
        'No offloaded content at "memory://default/tool-result-gone.md": nothing is stored under that reference (it may have been pruned).',
      );
    });

    it('says so when the value disappears while it is read', async () => {
      const inner = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
      const store: ContentStore = {
        ...inner,
        get: async (key, range) => ((range?.offset ?? 0) > 0 ? undefined : inner.get(key, range)),
      };
      expect(
        await readOffloaded(store, { ref: referenceTo('tool-result-a.md'), offset: 40 }, resolvedOptions()),
      ).toMatch(/^No offloaded content at /);
    });

    it('turns a failing backend into a message with its error', async () => {
      const inner = await createStoreWith({ 'tool-result-a.md': 'hello' });
      const failing: ContentStore = {
        ...inner,
        get: async () => {
          throw new ReadFailedError('could not read /srv/x.md: EIO: i/o error');
        },
      };
      expect(await readOffloaded(failing, { ref: referenceTo('tool-result-a.md') }, resolvedOptions())).toBe(
        'Could not read "memory://default/tool-result-a.md": could not read /srv/x.md: EIO: i/o error',
      );
      const failingStat: ContentStore = {
        ...inner,
        stat: async () => {
          throw new Error('connection refused');
        },
      };
      expect(await readOffloaded(failingStat, { ref: referenceTo('tool-result-a.md') }, resolvedOptions())).toBe(
        'Could not read "memory://default/tool-result-a.md": connection refused',
      );
    });
  });

  describe('invalid input', () => {
    it.each([
      [null, 'Invalid input: expected an object { ref, offset?, limit?, pattern? }, got null.'],
      [[1], 'Invalid input: expected an object { ref, offset?, limit?, pattern? }, got an array of 1.'],
      [
        {},
        'Invalid input: "ref" must be the reference to read (the "[Content offloaded to: ...]" line, or the path or URI in it), got undefined.',
      ],
      [
        { ref: '  ' },
        'Invalid input: "ref" must be the reference to read (the "[Content offloaded to: ...]" line, or the path or URI in it), got "  ".',
      ],
      [
        { ref: 'x', offset: -1 },
        'Invalid input: "offset" must be a whole number >= 1 (the first line to read), got -1.',
      ],
      [
        { ref: 'x', offset: 1.5 },
        'Invalid input: "offset" must be a whole number >= 1 (the first line to read), got 1.5.',
      ],
      [{ ref: 'x', limit: 0 }, 'Invalid input: "limit" must be a whole number >= 1 (how many lines), got 0.'],
      [{ ref: 'x', limit: 'all' }, 'Invalid input: "limit" must be a whole number >= 1 (how many lines), got "all".'],
      [
        { ref: 'x', pattern: 3 },
        'Invalid input: "pattern" must be a string (a regular expression in RE2 syntax), got 3.',
      ],
    ])('answers %j with a message', async (input, message) => {
      const store = await createStoreWith({});
      expect(await readOffloaded(store, input, resolvedOptions())).toBe(message);
    });

    it('reads null and empty optional fields as absent', async () => {
      const store = await createStoreWith({ 'tool-result-a.md': 'hello' });
      expect(
        await readOffloaded(
          store,
          { ref: referenceTo('tool-result-a.md'), offset: null, limit: null, pattern: '' },
          resolvedOptions(),
        ),
      ).toBe('     1\thello\n[line 1 of 1; end of content]');
    });
  });
});

// ---- The public tool ---------------------------------------------------------------------------

describe('createReadOffloadedTool', () => {
  it('gives one definition shaped for each API', () => {
    const tool = createReadOffloadedTool({ store: createMemoryStore() });
    expect(tool.name).toBe('read_offloaded');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        ref: { type: 'string', description: expect.stringContaining('[Content offloaded to: ...]') },
        offset: { type: 'integer', minimum: 1, description: expect.any(String) },
        limit: { type: 'integer', minimum: 1, description: expect.stringContaining('2000') },
        pattern: { type: 'string', description: expect.stringContaining('regular expression') },
      },
      required: ['ref'],
      additionalProperties: false,
    });
    expect(tool.description).toContain('at most 20,000 characters per call');
    expect(tool.anthropic).toEqual({
      name: 'read_offloaded',
      description: tool.description,
      input_schema: tool.inputSchema,
    });
    expect(tool.openai).toEqual({
      type: 'function',
      function: { name: 'read_offloaded', description: tool.description, parameters: tool.inputSchema },
    });
    expect(tool.openaiResponses).toEqual({
      type: 'function',
      name: 'read_offloaded',
      description: tool.description,
      parameters: tool.inputSchema,
      strict: false,
    });
    expect(tool.aiSdk).toEqual({
      description: tool.description,
      inputSchema: tool.inputSchema,
      execute: expect.any(Function),
    });
    // the SDKs' own types accept them
    const anthropicTool: Anthropic.Tool = tool.anthropic;
    const chatTool: OpenAI.Chat.Completions.ChatCompletionTool = tool.openai;
    const responsesTool: OpenAI.Responses.FunctionTool = tool.openaiResponses;
    expect([anthropicTool, chatTool, responsesTool]).toHaveLength(3);
    expect(JSON.parse(JSON.stringify(tool.anthropic))).toEqual(tool.anthropic);
  });

  it('runs calls through execute, with its own name in the footers', async () => {
    const store = await createStoreWith({ 'tool-result-a.md': FIFTY_LINES.join('\n') });
    const tool = createReadOffloadedTool({ store, name: 'fetch_offloaded', maxChars: 500 });
    expect(tool.openai.function.name).toBe('fetch_offloaded');
    const output = await tool.execute({ ref: `[Content offloaded to: ${referenceTo('tool-result-a.md')}]` });
    expect(output.length).toBeLessThanOrEqual(500);
    expect(output).toMatch(
      /call fetch_offloaded with \{"ref":"memory:\/\/default\/tool-result-a.md","offset":\d+\} for the next page\]$/,
    );
    expect(await tool.aiSdk.execute({ ref: referenceTo('tool-result-a.md'), offset: 50 })).toBe(
      '    50\tline 50 ERROR failed\n[line 50 of 50; end of content]',
    );
  });

  it('reads only its session with sessionId', async () => {
    const store = await createStoreWith({ 's1/toolu_1.md': 'mine', 's2/toolu_1.md': 'theirs' });
    const tool = createReadOffloadedTool({ store, sessionId: 's1' });
    expect(await tool.execute({ ref: referenceTo('s1/toolu_1.md') })).toBe(
      '     1\tmine\n[line 1 of 1; end of content]',
    );
    expect(await tool.execute({ ref: referenceTo('s2/toolu_1.md') })).toMatch(/belongs to another session/);
  });

  it.each([
    [{}, 'pass store or outputDir: where the offloaded content is (the same as the offload was given)'],
    [
      { store: createMemoryStore(), outputDir: '/tmp/x' },
      'pass either store or outputDir, not both: the tool reads the one store the offload wrote to',
    ],
    [{ store: { get: () => undefined } }, /^store must be a ContentStore/],
    [{ store: createMemoryStore(), maxChars: 100 }, 'maxChars must be an integer >= 500, got 100'],
    [{ store: createMemoryStore(), maxChars: 1000.5 }, 'maxChars must be an integer >= 500, got 1000.5'],
    [{ store: createMemoryStore(), contextLines: -1 }, 'contextLines must be an integer in [0, 20], got -1'],
    [
      { store: createMemoryStore(), name: 'read offloaded' },
      'name must be 1-64 characters of [A-Za-z0-9_-] (a tool name every API accepts), got "read offloaded"',
    ],
    [
      { store: createMemoryStore(), sessionId: '../s1' },
      'sessionId must be 1-200 characters of [A-Za-z0-9._-] and not "." or "..", got "../s1"',
    ],
  ])('rejects bad options: %#', (options, message) => {
    expect(() => createReadOffloadedTool(options as never)).toThrow(message);
  });
});
