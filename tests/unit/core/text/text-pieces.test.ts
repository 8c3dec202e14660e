/**
 * Cutting text into pieces for counting (in linear time): lossless, bounded,
 * surrogate-safe, cut at pre-token boundaries, and linear in work. Exactness against the real
 * tokenizer is in tests/integration/infrastructure/tokenizer.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  forEachPiece,
  isPieceBoundary,
  MAX_COUNTED_PIECE_CHARS,
  MAX_UNBROKEN_STRETCH_CHARS,
  splitIntoPieces,
} from '../../../../src/core/text/text-pieces.js';

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** Where each piece but the last ends, as offsets into the text. */
function cutsOf(pieces: readonly string[]): number[] {
  const cuts: number[] = [];
  let offset = 0;
  for (const piece of pieces.slice(0, -1)) {
    offset += piece.length;
    cuts.push(offset);
  }
  return cuts;
}

// ---- Arbitraries: full Unicode (lone surrogates included), tokenizer-relevant characters,
// and long runs of one character, the input the pieces exist for.
const relevantUnit = fc.constantFrom(
  'a',
  'Z',
  '中',
  'é',
  '\u0301',
  '7',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\u00a0',
  '\u3000',
  '.',
  "'",
  '/',
  '-',
  '"',
  '😀',
  '\ud800',
  '\udc00',
);
const runs = fc
  .array(fc.tuple(fc.constantFrom('A', ' ', '-', '😀', '中', 'ab '), fc.integer({ min: 1, max: 300 })), {
    maxLength: 6,
  })
  .map((parts) => parts.map(([unit, count]) => unit.repeat(count)).join(''));
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: relevantUnit, maxLength: 400 }),
  runs,
);
const maxPieceChars = fc.integer({ min: 2, max: 64 });

describe('forEachPiece', () => {
  it('visits a text of at most maxPieceChars as is, examining nothing', () => {
    const text = 'x'.repeat(MAX_COUNTED_PIECE_CHARS);
    const visited: string[] = [];
    expect(forEachPiece(text, MAX_COUNTED_PIECE_CHARS, (piece) => visited.push(piece))).toBe(0);
    expect(visited).toEqual([text]);
  });

  it('visits an empty text once, as ""', () => {
    expect(splitIntoPieces('', 10)).toEqual(['']);
  });

  it('joins its pieces back into the text (property)', () => {
    fc.assert(fc.property(anyText, maxPieceChars, (text, max) => splitIntoPieces(text, max).join('') === text));
  });

  it('makes no piece longer than maxPieceChars (property)', () => {
    fc.assert(
      fc.property(anyText, maxPieceChars, (text, max) =>
        splitIntoPieces(text, max).every((piece) => piece.length <= max),
      ),
    );
  });

  it('makes no empty piece out of a non-empty text (property)', () => {
    fc.assert(
      fc.property(
        anyText,
        maxPieceChars,
        (text, max) => text === '' || splitIntoPieces(text, max).every((piece) => piece !== ''),
      ),
    );
  });

  it('never splits a surrogate pair (property)', () => {
    fc.assert(
      fc.property(anyText, maxPieceChars, (text, max) =>
        cutsOf(splitIntoPieces(text, max)).every(
          (cut) => !(isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))),
        ),
      ),
    );
  });

  it('cuts at the last boundary within a piece, or at its full length when there is none (property)', () => {
    fc.assert(
      fc.property(anyText, maxPieceChars, (text, max) => {
        let start = 0;
        for (const cut of cutsOf(splitIntoPieces(text, max))) {
          const windowEnd = start + max;
          let lastBoundary = -1;
          for (let index = windowEnd; index > start && lastBoundary === -1; index -= 1)
            if (isPieceBoundary(text, index)) lastBoundary = index;
          const expected =
            lastBoundary !== -1
              ? lastBoundary
              : isHighSurrogate(text.charCodeAt(windowEnd - 1)) && isLowSurrogate(text.charCodeAt(windowEnd))
                ? windowEnd - 1
                : windowEnd;
          if (cut !== expected) return false;
          start = cut;
        }
        return true;
      }),
    );
  });

  it('cuts prose before the space that starts the next word', () => {
    expect(splitIntoPieces('aaa bbb ccc', 6)).toEqual(['aaa', ' bbb', ' ccc']);
  });

  it('cuts prose at word ends only, never inside a word (property)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'Q', 'é', '中'), minLength: 1, maxLength: 12 });
    const separator = fc.constantFrom(' ', ', ', '. ', '\n', '.\n\n', ' (', ') ');
    const prose = fc
      .array(fc.tuple(word, separator), { minLength: 1, maxLength: 80 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''));
    const isLetter = (character: string): boolean => /\p{L}/u.test(character);
    fc.assert(
      fc.property(prose, fc.integer({ min: 16, max: 64 }), (text, max) =>
        cutsOf(splitIntoPieces(text, max)).every(
          (cut) => !(isLetter(text.charAt(cut - 1)) && isLetter(text.charAt(cut))),
        ),
      ),
    );
  });

  it('cuts a run with no boundary at maxPieceChars', () => {
    expect(splitIntoPieces('A'.repeat(10), 4)).toEqual(['AAAA', 'AAAA', 'AA']);
  });

  it('cuts one code unit sooner rather than split a surrogate pair', () => {
    expect(splitIntoPieces('😀'.repeat(3), 3)).toEqual(['😀', '😀', '😀']);
  });

  it('gives equal pieces for a long run of one character, so a tokenizer cache can serve them', () => {
    const pieces = splitIntoPieces('A'.repeat(100_000), MAX_COUNTED_PIECE_CHARS);
    expect(new Set(pieces.slice(0, -1))).toEqual(new Set(['A'.repeat(MAX_COUNTED_PIECE_CHARS)]));
  });

  it('rejects a maxPieceChars below 2 or not an integer', () => {
    expect(() => splitIntoPieces('abc', 1)).toThrow(new RangeError('maxPieceChars must be an integer >= 2, got 1'));
    expect(() => splitIntoPieces('abc', 2.5)).toThrow(RangeError);
  });
});

describe('forEachPiece with a shorter stretch (maxStretchChars)', () => {
  const stretch = fc.integer({ min: 2, max: 16 });

  it('joins its pieces back into the text, none longer than maxPieceChars nor empty (property)', () => {
    fc.assert(
      fc.property(anyText, stretch, (text, maxStretch) => {
        const pieces = splitIntoPieces(text, 4 * maxStretch, maxStretch);
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(4 * maxStretch);
        if (text !== '') for (const piece of pieces) expect(piece.length).toBeGreaterThan(0);
      }),
    );
  });

  it('leaves no stretch without a boundary longer than maxStretchChars inside a piece, runs of one code unit aside (property)', () => {
    fc.assert(
      fc.property(anyText, stretch, (text, maxStretch) => {
        for (const piece of splitIntoPieces(text, 4 * maxStretch, maxStretch)) {
          let stretchStart = 0;
          for (let index = 1; index <= piece.length; index += 1) {
            if (index < piece.length && isPieceBoundary(piece, index)) stretchStart = index;
            const unbroken = piece.slice(stretchStart, index);
            if (new Set(unbroken).size > 1) expect(unbroken.length).toBeLessThanOrEqual(maxStretch);
          }
        }
      }),
    );
  });

  it('cuts a text the same whole or in parts cut at boundaries, so counts add up (property)', () => {
    fc.assert(
      fc.property(anyText, anyText, stretch, (left, right, maxStretch) => {
        const text = left + right;
        fc.pre(left !== '' && right !== '' && isPieceBoundary(text, left.length));
        const whole = new Set(cutsOf(splitIntoPieces(text, 4 * maxStretch, maxStretch)));
        const parts = [
          ...cutsOf(splitIntoPieces(left, 4 * maxStretch, maxStretch)),
          left.length,
          ...cutsOf(splitIntoPieces(right, 4 * maxStretch, maxStretch)).map((cut) => cut + left.length),
        ];
        // every cut of the parts that is not a boundary (a stretch cut) is a cut of the whole
        for (const cut of parts) if (!isPieceBoundary(text, cut)) expect(whole.has(cut)).toBe(true);
      }),
    );
  });

  it('cuts a long random word every 384 characters for the default counter', () => {
    const word = Array.from({ length: 1_000 }, (_, index) => 'abcdefghijklmnopqrstuvwxyz'[(index * 7) % 26]).join('');
    expect(
      splitIntoPieces(word, MAX_COUNTED_PIECE_CHARS, MAX_UNBROKEN_STRETCH_CHARS).map((piece) => piece.length),
    ).toEqual([384, 384, 232]);
  });

  it('keeps a run of one character whole up to maxPieceChars', () => {
    expect(
      splitIntoPieces('A'.repeat(5_000), MAX_COUNTED_PIECE_CHARS, MAX_UNBROKEN_STRETCH_CHARS).map(
        (piece) => piece.length,
      ),
    ).toEqual([1920, 1920, 1160]);
  });

  it('rejects a maxStretchChars below 2 or not an integer', () => {
    expect(() => forEachPiece('abc', 2, () => undefined, 1)).toThrow('maxStretchChars must be an integer >= 2, got 1');
    expect(() => forEachPiece('abc', 2, () => undefined, 2.5)).toThrow(
      'maxStretchChars must be an integer >= 2, got 2.5',
    );
  });
});

describe('forEachPiece work is linear (counted, not timed)', () => {
  const megabyte = 1_000_000;
  const inputs: Record<string, string> = {
    spaces: ' '.repeat(megabyte),
    "one letter ('A')": 'A'.repeat(megabyte),
    dashes: '-'.repeat(megabyte),
    "' ' + 'A' x 1999, repeated": (' ' + 'A'.repeat(1999)).repeat(megabyte / 2000),
    // a boundary right after each piece's start, then a run longer than a piece: short pieces
    'a boundary, then a run longer than a piece, repeated': ('A ' + 'A'.repeat(MAX_COUNTED_PIECE_CHARS + 1)).repeat(
      Math.ceil(megabyte / (MAX_COUNTED_PIECE_CHARS + 3)),
    ),
    'a boundary every 1,000 chars': ('a'.repeat(999) + ' ').repeat(megabyte / 1000),
  };

  for (const [name, text] of Object.entries(inputs)) {
    it(`examines each position at most once: 1 MB of ${name}`, () => {
      expect(forEachPiece(text, MAX_COUNTED_PIECE_CHARS, () => undefined)).toBeLessThan(text.length);
    });

    it(`makes at most 2n / max + 2 pieces, whose quadratic merge costs at most max x n: 1 MB of ${name}`, () => {
      let pieces = 0;
      let quadraticCost = 0; // what a merge quadratic in the piece's length would do
      forEachPiece(text, MAX_COUNTED_PIECE_CHARS, (piece) => {
        pieces += 1;
        quadraticCost += piece.length * piece.length;
      });
      expect(pieces).toBeLessThanOrEqual((2 * text.length) / MAX_COUNTED_PIECE_CHARS + 2);
      expect(quadraticCost).toBeLessThanOrEqual(MAX_COUNTED_PIECE_CHARS * text.length);
    });
  }

  it('examines fewer positions than the text has, and makes at most 2n / max + 2 pieces (property)', () => {
    fc.assert(
      fc.property(anyText, maxPieceChars, (text, max) => {
        let pieces = 0;
        const examined = forEachPiece(text, max, () => (pieces += 1));
        return examined <= Math.max(0, text.length - 1) && pieces <= (2 * text.length) / max + 2;
      }),
    );
  });
});

describe('isPieceBoundary (o200k_base pre-token ends)', () => {
  it('is true before the space that starts a word, false inside a run of spaces', () => {
    expect(isPieceBoundary('foo bar', 3)).toBe(true);
    expect(isPieceBoundary('foo  bar', 4)).toBe(false);
  });

  it('is false before a line break after punctuation, which takes it (`;\\n`)', () => {
    expect(isPieceBoundary('a;\nb', 2)).toBe(false);
  });

  it('is true after a line break before a word, false before `/` or whitespace', () => {
    expect(isPieceBoundary('a\nb', 2)).toBe(true);
    expect(isPieceBoundary('a\n/b', 2)).toBe(false);
    expect(isPieceBoundary('a\n b', 2)).toBe(false);
  });

  it('is true after a letter or digit before punctuation or a line break', () => {
    expect(isPieceBoundary('{"key":1}', 5)).toBe(true);
    expect(isPieceBoundary('{"key":1}', 8)).toBe(true);
    expect(isPieceBoundary('value\n', 5)).toBe(true);
  });

  it('is false inside a word, before a contraction and inside a surrogate pair', () => {
    expect(isPieceBoundary('word', 2)).toBe(false);
    expect(isPieceBoundary("don't", 3)).toBe(false);
    expect(isPieceBoundary('e\u0301', 1)).toBe(false);
    expect(isPieceBoundary('a😀', 2)).toBe(false);
  });
});
