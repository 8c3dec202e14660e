/**
 * The default {@link TokenCounter}: `gpt-tokenizer`'s o200k_base encoding, an exact BPE
 * counter for that vocabulary and the fastest one in JavaScript. It is not Claude's
 * tokenizer: pass the provider's figure through `lastUsage` when exactness matters.
 *
 * The encoding costs ~300-600 ms to load. It is loaded on the first count, not on import,
 * through its CommonJS build (`require` is synchronous, so counting stays synchronous); a
 * server loads it before it listens with {@link preloadTokenizer}, so no request pays for it.
 *
 * Counting is linear in the length of the text, whatever the text:
 * - a text longer than {@link MAX_COUNTED_PIECE_CHARS} is counted in pieces: the library's
 *   merge is quadratic in the length of one pre-token, so 100 KB of `A`, of spaces or of dashes
 *   would take seconds whole;
 * - a pre-token longer than {@link MAX_UNBROKEN_STRETCH_CHARS} (384) characters is counted in
 *   384-character pieces. No real word is that long; random letters, CJK or Cyrillic with no
 *   space or punctuation, emoji and lines of punctuation are, and they counted at 1.1-2.2 s of
 *   CPU a MiB with 1,920-character pieces, 0.7-0.9 s with 384. The pieces' count is the
 *   library's count of the whole within a token per cut (mostly over: +0.3 to +0.7 a cut on
 *   random letters, Cyrillic and punctuation, exact on random CJK and emoji, -2 at the lowest
 *   seen); a run of one character is cut at 1,920 and stays exact;
 * - the counter owns its encoding, with the library's merge cache off: that cache is a `Map`
 *   that moves an entry to its end on every hit and evicts its oldest by iterating from the
 *   start, past every hole the moves left, so once full (100,000 pre-tokens, ~200 KB of random
 *   base64) each count slows with what was counted before it (2 MiB of base64 took 9-11 s,
 *   8 MiB over 40 s; without it, 0.6 s a MiB);
 * - instead, the count of each short pre-token is remembered in a map that is emptied whole when
 *   full, which makes prose and code about three times faster than the library without a cache.
 *   Text where most pre-tokens are new (base64, hashes) gains nothing from it, so a piece where
 *   more than a quarter were new sends the next pieces to the library whole (up to
 *   {@link BYPASSED_PIECES} of them before one is looked at again).
 */
import { createRequire } from 'node:module';
import type { TokenCounter } from '../core/ports.js';
import { forEachPiece, MAX_COUNTED_PIECE_CHARS, MAX_UNBROKEN_STRETCH_CHARS } from '../core/text/text-pieces.js';

interface O200kEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

interface LoadedEncoding {
  encoding: O200kEncoding;
  /** o200k_base's pre-tokenizer (global): the library counts a text as the sum of the counts of its matches. */
  splitPattern: RegExp;
}

let loaded: LoadedEncoding | undefined;

// Agent transcripts hold text such as `<|endoftext|>`; gpt-tokenizer rejects it by default.
// With no disallowed specials, it is counted as the plain text it is.
const COUNT_OPTIONS = { disallowedSpecial: new Set<string>() };

/** Pre-tokens at most this long have their count remembered (words, numbers, punctuation). */
const REMEMBERED_PRE_TOKEN_CHARS = 32;
/** Remembered pre-token counts; the map is emptied whole when full (~4 MB at most). */
const REMEMBERED_PRE_TOKENS = 65_536;
/**
 * The most pieces that go to the library whole before one is looked at again: after a piece of
 * mostly new pre-tokens, 1, then twice as many after each such piece in a row (text that stays
 * new, such as base64), up to this; a piece of mostly known ones starts over at 1 (prose, which
 * is new only until its words are known).
 */
export const BYPASSED_PIECES = 16;

let preTokenCounts = new Map<string, number>();
let bypassedPieces = 0;
let nextBypass = 1;
// equal consecutive pieces (a long run of one character, cut by length) are counted once
let lastPiece = '';
let lastPieceCount = 0;

function loadEncoding(): LoadedEncoding {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url);
    const { GptEncoding } = require('gpt-tokenizer/cjs/GptEncoding') as {
      GptEncoding: { getEncodingApi(name: 'o200k_base', getRanks: () => unknown): O200kEncoding };
    };
    const ranks = (require('gpt-tokenizer/cjs/bpeRanks/o200k_base') as { default: unknown }).default;
    const { O200K_TOKEN_SPLIT_REGEX } = require('gpt-tokenizer/cjs/encodingParams/constants') as {
      O200K_TOKEN_SPLIT_REGEX: RegExp;
    };
    // an encoding of its own: the merge cache is turned off for this counter only, not for
    // an application that uses gpt-tokenizer itself
    const encoding = GptEncoding.getEncodingApi('o200k_base', () => ranks);
    encoding.setMergeCacheSize(0);
    // a global pattern of the counter's own: its `lastIndex` is not the library's
    loaded = { encoding, splitPattern: new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu') };
  }
  return loaded;
}

/** Whether the encoding has been loaded (by a first count, or {@link preloadTokenizer}). */
export function isTokenizerLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * Loads the encoding now (synchronously, ~300-600 ms), so that the first count does not pay
 * for it: a server calls it before it starts listening. Loading twice does nothing.
 */
export function preloadTokenizer(): void {
  loadEncoding();
}

/**
 * Forgets the remembered pre-token counts, as a fresh process has none: for benchmarks that
 * time a first count. Counts never depend on them.
 */
export function forgetRememberedCounts(): void {
  preTokenCounts = new Map();
  bypassedPieces = 0;
  nextBypass = 1;
  lastPiece = '';
  lastPieceCount = 0;
}

/** The library's count of `piece`, as the sum of the counts of its pre-tokens (which is how it counts). */
function countPiece(piece: string, { encoding, splitPattern }: LoadedEncoding): number {
  if (piece === lastPiece) return lastPieceCount;
  let count: number;
  if (bypassedPieces > 0) {
    bypassedPieces -= 1;
    count = encoding.countTokens(piece, COUNT_OPTIONS);
  } else {
    count = 0;
    let preTokens = 0;
    let unknown = 0;
    // `exec` on the counter's own copy of the pattern (the library's `lastIndex` is its own), not
    // `matchAll`: no iterator and no clone of the pattern per piece
    splitPattern.lastIndex = 0;
    for (let match = splitPattern.exec(piece); match !== null; match = splitPattern.exec(piece)) {
      const preToken = match[0];
      preTokens += 1;
      let tokens = preTokenCounts.get(preToken);
      if (tokens === undefined) {
        unknown += 1;
        tokens = encoding.countTokens(preToken, COUNT_OPTIONS);
        if (preToken.length <= REMEMBERED_PRE_TOKEN_CHARS) {
          if (preTokenCounts.size >= REMEMBERED_PRE_TOKENS) preTokenCounts = new Map();
          preTokenCounts.set(preToken, tokens);
        }
      }
      count += tokens;
    }
    if (unknown * 4 > preTokens) {
      bypassedPieces = nextBypass;
      nextBypass = Math.min(2 * nextBypass, BYPASSED_PIECES);
    } else {
      nextBypass = 1;
    }
  }
  lastPiece = piece;
  lastPieceCount = count;
  return count;
}

/**
 * Counts tokens with o200k_base. Empty text is 0 without loading anything.
 *
 * A text longer than {@link MAX_COUNTED_PIECE_CHARS} code units is counted as the sum of its
 * pieces ({@link forEachPiece}), so the time grows linearly with its length (about 0.6 s a MiB
 * of random base64; 0.7-0.9 s a MiB of text with no pre-token end, the slowest; 0.1 s a MiB of
 * prose). Pieces end where o200k_base ends a pre-token anyway, which changes no count, except in
 * a stretch with no such point longer than {@link MAX_UNBROKEN_STRETCH_CHARS} (a long word, a
 * line of CJK with no punctuation): it is cut by length, and each such cut may shift the count
 * by about a token (a run of one ASCII character stays exact, see {@link MAX_COUNTED_PIECE_CHARS}).
 * Prose, code, JSON and base64, which have such points every few characters, count exactly as
 * the library counts them whole.
 */
export function countTextTokens(text: string): number {
  if (text === '') return 0;
  const encoding = loadEncoding();
  // a text that short cannot hold a stretch to cut
  if (text.length <= MAX_UNBROKEN_STRETCH_CHARS) return countPiece(text, encoding);
  let total = 0;
  forEachPiece(
    text,
    MAX_COUNTED_PIECE_CHARS,
    (piece) => {
      total += countPiece(piece, encoding);
    },
    MAX_UNBROKEN_STRETCH_CHARS,
  );
  return total;
}

/** The package's default token counter (o200k_base via `gpt-tokenizer`, loaded on first use). */
export const defaultTokenCounter: TokenCounter = { count: countTextTokens, encoding: 'o200k_base' };
