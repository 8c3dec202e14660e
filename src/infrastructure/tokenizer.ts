/**
 * The default {@link TokenCounter}: `gpt-tokenizer`'s o200k_base encoding, an exact BPE
 * counter for that vocabulary and the fastest one in JavaScript. It is not Claude's
 * tokenizer: pass the provider's figure through `lastUsage` when exactness matters.
 *
 * The encoding costs ~300 ms to load, so it is loaded on the first count, not on import,
 * through its CommonJS build: `require` is synchronous, so counting stays synchronous.
 *
 * A text longer than {@link MAX_COUNTED_PIECE_CHARS} is counted in pieces: the
 * library's merge is quadratic in the length of one pre-token, so 100 KB of `A`, of spaces or
 * of dashes would take seconds whole.
 */
import { createRequire } from 'node:module';
import type { TokenCounter } from '../core/ports.js';
import { forEachPiece, MAX_COUNTED_PIECE_CHARS } from '../core/text-pieces.js';

interface O200kEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

let encoding: O200kEncoding | undefined;

// Agent transcripts hold text such as `<|endoftext|>`; gpt-tokenizer rejects it by default.
// With no disallowed specials, it is counted as the plain text it is.
const COUNT_OPTIONS = { disallowedSpecial: new Set<string>() };

function loadEncoding(): O200kEncoding {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as O200kEncoding;
  }
  return encoding;
}

/** Whether the encoding has been loaded (by a first count). */
export function isTokenizerLoaded(): boolean {
  return encoding !== undefined;
}

/**
 * Counts tokens with o200k_base. Empty text is 0 without loading anything.
 *
 * A text longer than {@link MAX_COUNTED_PIECE_CHARS} code units is counted as the sum of its
 * pieces ({@link forEachPiece}), so the time grows linearly with its length. Pieces end where
 * o200k_base ends a pre-token anyway, which changes no count, except in a stretch with no such
 * point longer than the maximum (a run of one character, a long word, base64 without `+` or
 * `/`): it is cut by length, and each such cut may shift the count by about a token (a run of
 * one ASCII character stays exact, see {@link MAX_COUNTED_PIECE_CHARS}). Prose, code and JSON,
 * which have such points every few characters, count exactly as the library counts them whole;
 * and equal pieces, as in a long run, hit the library's merge cache.
 */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  const encoding = loadEncoding();
  if (text.length <= MAX_COUNTED_PIECE_CHARS) return encoding.countTokens(text, COUNT_OPTIONS);
  let total = 0;
  forEachPiece(text, MAX_COUNTED_PIECE_CHARS, (piece) => {
    total += encoding.countTokens(piece, COUNT_OPTIONS);
  });
  return total;
}

/** The package's default token counter (o200k_base via `gpt-tokenizer`, loaded on first use). */
export const defaultTokenCounter: TokenCounter = { count: countTextTokens, encoding: 'o200k_base' };
