/**
 * The default counter on the real `gpt-tokenizer` (o200k_base): loaded lazily, exact against
 * the library's own count, tolerant of special-token text, and counting long text in pieces
 * without changing counts where pieces end at pre-token boundaries.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as packageRoot from '../../../src/index.js';
import { countTextYielding, MESSAGE_TOKEN_OVERHEAD } from '../../../src/core/text/tokens.js';
import {
  isPieceBoundary,
  MAX_COUNTED_PIECE_CHARS,
  MAX_UNBROKEN_STRETCH_CHARS,
  splitIntoPieces,
} from '../../../src/core/text/text-pieces.js';
import {
  BYPASSED_PIECES,
  countTextTokens,
  forgetRememberedCounts,
  isTokenizerLoaded,
} from '../../../src/infrastructure/tokenizer.js';
import { createRandom } from '../../fixtures/random.js';

const require = createRequire(import.meta.url);

describe('default token counter (gpt-tokenizer o200k_base)', () => {
  it('is not loaded by importing the package, nor by counting empty text', () => {
    expect(typeof packageRoot.countTokens).toBe('function');
    expect(packageRoot.estimateTokens('')).toBe(0);
    expect(packageRoot.countTokens([])).toBe(0);
    expect(isTokenizerLoaded()).toBe(false);
  });

  it('loads on the first count', () => {
    expect(packageRoot.estimateTokens('hello world')).toBe(2);
    expect(isTokenizerLoaded()).toBe(true);
  });

  it("matches gpt-tokenizer's own count on code, JSON, prose, CJK and shell output", () => {
    const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string): number };
    const samples = [
      'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      JSON.stringify({ path: 'src/a.ts', lines: [1, 2, 3], nested: { ok: true } }),
      'The quick brown fox jumps over the lazy dog. '.repeat(20),
      '上下文压缩：将历史消息替换为结构化摘要，并恢复最近读取的文件。',
      '$ ls -la\ntotal 8\ndrwxr-xr-x  2 root root 4096 Nov 21 23:45 .\n',
      '🙂 emoji and \u{1F680} rockets',
    ];
    for (const sample of samples) expect(countTextTokens(sample)).toBe(reference.countTokens(sample));
  });

  it('counts <|endoftext|> and other special-token strings as plain text, where the library default throws', () => {
    const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens(text: string): number };
    const text = 'log line <|endoftext|> and <|im_start|>user';
    expect(() => reference.countTokens(text)).toThrow();
    expect(countTextTokens(text)).toBeGreaterThan(10);
    expect(packageRoot.countTokens([{ role: 'user', content: text }])).toBe(
      countTextTokens(text) + MESSAGE_TOKEN_OVERHEAD,
    );
  });
});

describe('default token counter on long text', () => {
  const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
    countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  };
  /** gpt-tokenizer's own count of the whole text, special-token text counted as plain text. */
  const countWhole = (text: string): number =>
    text === '' ? 0 : reference.countTokens(text, { disallowedSpecial: new Set() });

  /** 100,000 chars of this repository's README (repeated): prose, code blocks and tables. */
  function readProse(): string {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    let text = readme;
    while (text.length < 100_000) text += `\n${readme}`;
    return text.slice(0, 100_000);
  }

  // The library's own count of a 1 MB run would take minutes: the reference is its count of two
  // pieces' worth, scaled. Runs of one ASCII character tokenize in tokens of 8, 64 or 128 of it
  // from the start, so the scaled count is the true one (to half a token).
  for (const [name, unit] of [
    ["'A'", 'A'],
    ['spaces', ' '],
    ['dashes', '-'],
  ] as const) {
    it(`counts 1,000,000 ${name} within 1% of the library's count of ${2 * MAX_COUNTED_PIECE_CHARS} of them, scaled`, () => {
      const sampleChars = 2 * MAX_COUNTED_PIECE_CHARS;
      const estimate = (countWhole(unit.repeat(sampleChars)) * 1_000_000) / sampleChars;
      const count = countTextTokens(unit.repeat(1_000_000));
      expect(Math.abs(count - estimate)).toBeLessThanOrEqual(estimate * 0.01);
    });
  }

  it('counts a run of one ASCII character exactly as the library counts it whole, length cuts included', () => {
    const length = 3 * MAX_COUNTED_PIECE_CHARS + 77;
    for (const unit of ['A', 'z', ' ', '-', '=', '.', '0', '\n', '\t']) {
      expect({ unit, count: countTextTokens(unit.repeat(length)) }).toEqual({
        unit,
        count: countWhole(unit.repeat(length)),
      });
    }
  });

  it('counts prose shorter than a piece exactly as the library does', () => {
    const prose = readProse().slice(0, MAX_COUNTED_PIECE_CHARS);
    expect(countTextTokens(prose)).toBe(countWhole(prose));
  });

  // Every cut falls at a pre-token boundary (no stretch of the README without one is longer
  // than a piece), so the sum over pieces is the library's count of the whole text.
  it('counts 100 KB of prose exactly as the library counts it whole', () => {
    const prose = readProse();
    expect(countTextTokens(prose)).toBe(countWhole(prose));
  });

  it('counts 100 KB of minified JSON exactly as the library counts it whole', () => {
    const random = createRandom(3);
    const rows = Array.from({ length: 2000 }, (_, index) => ({
      id: index,
      name: `item${Math.floor(random() * 1e6)}`,
      tags: ['a', 'b'],
      ok: random() > 0.5,
    }));
    const json = JSON.stringify(rows).slice(0, 100_000);
    expect(json.length).toBe(100_000);
    expect(countTextTokens(json)).toBe(countWhole(json));
  });

  it('counts 100 KB of random base64 exactly as the library counts it whole (it ends pre-tokens before `+` and `/`)', () => {
    const random = createRandom(5);
    const bytes = Buffer.from(Array.from({ length: 75_000 }, () => Math.floor(random() * 256)));
    const base64 = bytes.toString('base64');
    expect(countTextTokens(base64)).toBe(countWhole(base64));
  });

  it('counts a pre-token over 384 characters in 384-character pieces, within a token per cut of the library count', () => {
    const random = createRandom(9);
    const pick = (alphabet: readonly string[], length: number): string =>
      Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const range = (first: number, last: number): string[] =>
      Array.from({ length: last - first + 1 }, (_, offset) => String.fromCodePoint(first + offset));
    const texts = [
      pick(range(0x61, 0x7a), 5 * MAX_COUNTED_PIECE_CHARS), // a long "word"
      pick(range(0x430, 0x44f), 6_000), // Cyrillic with no space
      pick(range(0x4e00, 0x9fff), 6_000), // CJK with no punctuation
      pick(range(0x1f600, 0x1f64f), 6_000), // emoji
      pick([...'!"#$%&()*+,-.:;<=>?@[]^_`{|}~'], 6_000),
    ];
    for (const text of texts) {
      const pieces = splitIntoPieces(text, MAX_COUNTED_PIECE_CHARS, MAX_UNBROKEN_STRETCH_CHARS);
      expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(MAX_UNBROKEN_STRETCH_CHARS);
      expect(Math.abs(countTextTokens(text) - countWhole(text))).toBeLessThanOrEqual(pieces.length - 1);
    }
  });

  it('counts a run of one ASCII character exactly, cut every 384 characters', () => {
    for (const character of ['A', 'a', '0', '-', '=', ' ', '.']) {
      const run = character.repeat(10_000);
      expect(countTextTokens(run)).toBe(countWhole(run));
    }
  });

  it('ends pieces only where the library ends a pre-token: cut there, the two sides sum to the whole (property)', () => {
    const unit = fc.constantFrom(
      ...[
        'a',
        'Zq',
        'é',
        'ß',
        '中文',
        'ㅎ',
        '\u0301',
        '0',
        '٣',
        '²',
        ' ',
        '\t',
        '\n',
        '\r',
        '\u00a0',
        '\u3000',
        '\u2028',
        '\ufeff',
        '\u0085',
      ],
      ...[
        '.',
        ',',
        "'",
        "'s",
        '"',
        '/',
        '\\',
        '-',
        '{',
        '}',
        '😀',
        '𝐀',
        '\ud800',
        '\udc00',
        '<|endoftext|>',
        '，',
        '_',
      ],
    );
    fc.assert(
      fc.property(fc.array(unit, { minLength: 2, maxLength: 40 }), (units) => {
        const text = units.join('');
        const whole = countWhole(text);
        for (let index = 1; index < text.length; index += 1) {
          if (
            isPieceBoundary(text, index) &&
            countWhole(text.slice(0, index)) + countWhole(text.slice(index)) !== whole
          )
            return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  // The LLM summarizer sizes prompts from the counts of their parts, joined at
  // pre-token boundaries: that must hold for the pieces' sum too, length cuts included.
  it('stays additive where two texts meet at a boundary, even with runs longer than a piece (property)', () => {
    const stretch = fc.oneof(
      fc
        .tuple(
          fc.constantFrom('A', ' ', '-', '0', 'é', 'xy'),
          fc.integer({ min: MAX_COUNTED_PIECE_CHARS, max: 3 * MAX_COUNTED_PIECE_CHARS }),
        )
        .map(([unit, count]) => unit.repeat(count)),
      fc.string({ unit: fc.constantFrom('a', 'B', ' ', '\n', '.', '7'), maxLength: 50 }),
    );
    const text = fc.array(stretch, { maxLength: 4 }).map((stretches) => stretches.join(''));
    fc.assert(
      fc.property(text, text, (left, right) => {
        const first = `${left}x`; // ends with a letter
        const second = ` ${right}`; // starts with a space: the texts meet at a boundary
        expect(isPieceBoundary(first + second, first.length)).toBe(true);
        return countTextTokens(first + second) === countTextTokens(first) + countTextTokens(second);
      }),
      { numRuns: 40 },
    );
  });
});

describe('default token counter on megabytes of base64', () => {
  const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
    countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  };
  const countWhole = (text: string): number => reference.countTokens(text, { disallowedSpecial: new Set() });

  function buildBase64(byteCount: number, seed: number): string {
    const random = createRandom(seed);
    const bytes = Buffer.alloc(byteCount);
    for (let index = 0; index < byteCount; index += 1) bytes[index] = Math.floor(random() * 256);
    return bytes.toString('base64');
  }

  // The library's merge cache fills after ~200 KB of base64, and then slowed every later
  // count with what was counted before it: this test took 120 s; ~6 s now on 2 cores. Between
  // the counts the event loop turns, so the test runner's messages with its worker are answered
  // on a loaded machine too.
  it('counts 4 MiB of random base64 as the sum of its halves, each cut where a pre-token ends', async () => {
    const text = buildBase64(3 * 1024 * 1024, 11);
    let middle = text.indexOf('+', text.length / 2);
    if (middle === -1) middle = text.indexOf('/', text.length / 2);
    expect(isPieceBoundary(text, middle)).toBe(true);
    const counts: number[] = [];
    for (const piece of [text, text.slice(0, middle), text.slice(middle)]) {
      await new Promise((resolve) => setImmediate(resolve));
      counts.push(countTextTokens(piece));
    }
    const [whole, head, tail] = counts as [number, number, number];
    expect(whole).toBe(head + tail);
    expect(whole).toBeGreaterThan(text.length / 2);
  });

  it('counts 256 KB of random base64 exactly as the library counts it whole', () => {
    const text = buildBase64(196_608, 12);
    expect(countTextTokens(text)).toBe(countWhole(text));
  });
});

describe('default token counter, remembered pre-token counts', () => {
  const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
    countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  };
  const countWhole = (text: string): number => reference.countTokens(text, { disallowedSpecial: new Set() });
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').slice(0, 20_000);
  const random = createRandom(13);
  const base64 = Buffer.from(Array.from({ length: 30_000 }, () => Math.floor(random() * 256))).toString('base64');

  it('count the same whether remembered or not: prose, base64, then prose again', () => {
    forgetRememberedCounts();
    const prose = countTextTokens(readme);
    expect(prose).toBe(countWhole(readme));
    expect(countTextTokens(base64)).toBe(countWhole(base64));
    // after base64, the next pieces go to the library whole: still the same count
    expect(countTextTokens(readme)).toBe(prose);
    forgetRememberedCounts();
    expect(countTextTokens(readme)).toBe(prose);
  });

  it('counts text mixing prose and base64 piece by piece exactly as the library counts it whole', () => {
    forgetRememberedCounts();
    const mixed = Array.from({ length: BYPASSED_PIECES + 4 }, (_, index) =>
      index % 3 === 0 ? base64.slice(index * 500, index * 500 + 3000) : readme.slice(index * 700, index * 700 + 2500),
    ).join('\n');
    expect(countTextTokens(mixed)).toBe(countWhole(mixed));
  });

  it('counts special-token text and contractions the same when remembered', () => {
    forgetRememberedCounts();
    const text = "it's <|endoftext|> we'll see <|im_start|>user\n".repeat(3);
    const first = countTextTokens(text);
    expect(countTextTokens(text)).toBe(first);
    expect(first).toBe(countWhole(text));
  });

  it("leaves gpt-tokenizer's own encoding as it was: its merge cache still serves the application", () => {
    countTextTokens(base64);
    expect(reference.countTokens(readme, { disallowedSpecial: new Set() })).toBe(countTextTokens(readme));
  });
});

describe('countTextYielding with the default counter', () => {
  const random = createRandom(17);
  const pick = (alphabet: string, length: number): string =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  const bytes = Buffer.alloc(150_000);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(random() * 256);
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const samples: Array<[string, string]> = [
    ['random base64', bytes.toString('base64')],
    ['base64 in lines of 76', bytes.toString('base64').replace(/.{76}/g, '$&\n')],
    ['prose and code', readme.repeat(Math.ceil(100_000 / readme.length)).slice(0, 100_000)],
    ['a run of one letter', 'A'.repeat(50_000)],
    ['a long word with no boundary', pick('abcdefghijklmnopqrstuvwxyz', 40_000)],
    ['CJK with no punctuation', pick('的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年', 20_000)],
    ['emoji', Array.from({ length: 10_000 }, () => String.fromCodePoint(0x1f600 + Math.floor(random() * 64))).join('')],
  ];

  for (const [name, text] of samples) {
    it(`adds its parts up to the count of the whole text: ${name}`, async () => {
      const state = { yieldToLoop: () => new Promise<void>((resolve) => setImmediate(resolve)), charsSinceYield: 0 };
      expect(await countTextYielding({ count: countTextTokens }, text, state)).toBe(countTextTokens(text));
    });
  }
});
