/**
 * Cuts a long text into pieces that a BPE tokenizer can count one by one, so that
 * counting stays linear. `gpt-tokenizer`'s merge is quadratic in the length of one
 * pre-token, and tool output holds long ones (base64, padding, rules of dashes): counting
 * pieces of at most {@link MAX_COUNTED_PIECE_CHARS} code units bounds the cost of each, so
 * the cost of a text grows with its length, not its square.
 *
 * Pieces are cut where o200k_base's pre-tokenizer always ends a pre-token
 * ({@link isPieceBoundary}), so such a cut changes no count. Only a stretch with no such point
 * longer than the maximum (a run of one character, a long word; for the default counter, over
 * {@link MAX_UNBROKEN_STRETCH_CHARS}) is cut by length, and that cut may shift its count by
 * about a token. Pure: no I/O.
 */
import { isHighSurrogate, isLowSurrogate } from './text.js';

/**
 * Largest piece {@link forEachPiece} gives the default token counter, in UTF-16 code units.
 * Small enough that the quadratic merge of one piece stays in milliseconds, large enough that
 * length cuts are rare. 1920 (15 × 128, 640 × 3) rather than 2000: o200k_base encodes a long
 * run of one ASCII character from its start in tokens of 8, 16, 64 or 128 of it (digits in
 * groups of 3), all dividing 1920, so a length cut in such a run falls between two tokens and
 * its count stays exact (checked for every printable ASCII character on 100,000-character runs).
 */
export const MAX_COUNTED_PIECE_CHARS = 1920;

/**
 * Longest stretch with no {@link isPieceBoundary} that the default token counter gives the
 * tokenizer whole, in UTF-16 code units; a longer one is cut every this many from where it
 * starts. Such a stretch is one pre-token: a word, a run, a line of punctuation, hundreds of
 * characters long. No real word is; random letters, CJK or Cyrillic with no space or
 * punctuation, and emoji are, and the library's merge of a 1,920-character pre-token made them
 * count at 2-3 s of CPU a MiB, where 384 characters keep them near or under 1 s. A cut inside a
 * pre-token counts the two sides apart, which changes the count by about a token per cut,
 * usually up (see the token counter). 384 (3 × 128) divides 1920 and, like it, keeps a run of
 * one ASCII character exact: o200k_base encodes it in tokens of 8, 16, 64 or 128 (digits in
 * groups of 3).
 */
export const MAX_UNBROKEN_STRETCH_CHARS = 384;

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SLASH = 0x2f;
const APOSTROPHE = 0x27;

// character classes, as o200k_base's split pattern sees them (JavaScript's `\s`, Unicode categories)
const WHITESPACE = 1; // \s
const LETTER_OR_NUMBER = 2; // \p{L} or \p{N}
const CONTINUES_WORD = 4; // \p{L}, \p{M}, \p{N} or `'` (a contraction): may continue a letter or digit pre-token

const WHITESPACE_PATTERN = /^\s$/u;
const LETTER_OR_NUMBER_PATTERN = /^[\p{L}\p{N}]$/u;
const MARK_PATTERN = /^\p{M}$/u;

function classifyCodePoint(code: number): number {
  const character = String.fromCodePoint(code);
  if (WHITESPACE_PATTERN.test(character)) return WHITESPACE;
  if (LETTER_OR_NUMBER_PATTERN.test(character)) return LETTER_OR_NUMBER | CONTINUES_WORD;
  return MARK_PATTERN.test(character) || code === APOSTROPHE ? CONTINUES_WORD : 0;
}

let asciiClasses: Uint8Array | undefined;

// classes of the Basic Multilingual Plane once looked up, plus one (0: not yet): a forward scan
// looks every character up, and the Unicode property tests are slow
let bmpClasses: Uint8Array | undefined;

function classOf(code: number): number {
  if (code >= 0x80) {
    if (code > 0xffff) return classifyCodePoint(code);
    bmpClasses ??= new Uint8Array(0x10000);
    const known = bmpClasses[code] ?? 0;
    if (known !== 0) return known - 1;
    const found = classifyCodePoint(code);
    bmpClasses[code] = found + 1;
    return found;
  }
  asciiClasses ??= Uint8Array.from({ length: 0x80 }, (_, ascii) => classifyCodePoint(ascii));
  return asciiClasses[code] ?? 0;
}

/** The code point that ends at `index`: a whole surrogate pair, or a lone code unit. */
function codePointBefore(text: string, index: number): number {
  const low = text.charCodeAt(index - 1);
  if (isLowSurrogate(low) && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (isHighSurrogate(high)) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/**
 * Whether o200k_base's pre-tokenizer ends a pre-token at `index` (0 < index < text.length)
 * whatever comes before and after it, so that the count of the text is the sum of the counts
 * of its two sides. That holds at three kinds of points, where no pattern of its split
 * expression can run across:
 * - before whitespace other than a line break, after a character that is not whitespace (a
 *   word takes its leading space, as in `foo| bar`);
 * - after a line break, before a character that is neither whitespace nor `/`;
 * - after a letter or digit, before a character that is neither a letter, a mark, a digit
 *   nor `'` (as in `"key|":` or `value|\n`).
 *
 * Never true inside a surrogate pair.
 */
export function isPieceBoundary(text: string, index: number): boolean {
  const previous = text.charCodeAt(index - 1);
  const next = text.codePointAt(index) ?? 0;
  const nextClass = classOf(next);
  // a punctuation pre-token takes the line breaks and `/` that follow it, a whitespace one the
  // whitespace that follows it: only a letter or digit ends before a line break
  if (previous === LINE_FEED || previous === CARRIAGE_RETURN) return (nextClass & WHITESPACE) === 0 && next !== SLASH;
  if ((classOf(previous) & WHITESPACE) !== 0) return false;
  if ((nextClass & WHITESPACE) !== 0 && next !== LINE_FEED && next !== CARRIAGE_RETURN) return true;
  return (nextClass & CONTINUES_WORD) === 0 && (classOf(codePointBefore(text, index)) & LETTER_OR_NUMBER) !== 0;
}

/**
 * Calls `visit` with consecutive pieces of `text` (in order; joined, they are `text`), each
 * at most `maxPieceChars` UTF-16 code units long. A text that short is visited as is, without
 * a copy; an empty text is visited once, as `''`.
 *
 * A piece ends at the last {@link isPieceBoundary} within its maximum length; where there is
 * none, it is cut at that length (one code unit sooner when that would split a surrogate
 * pair). So a count summed over the pieces is exact except at length cuts, and it depends
 * only on the stretches between boundaries: for a text `a + b` joined at a boundary, the
 * pieces counted are those of `a` and of `b` (up to regrouping at boundaries), and a counter
 * summed over pieces stays additive there.
 *
 * Linear: every position is examined at most once, and there are at most
 * `2 × text.length / maxPieceChars + 2` pieces (two consecutive pieces before the last span at
 * least `maxPieceChars` code units: a piece cut short at a boundary is followed by one that
 * reaches past the first one's maximum).
 *
 * With `maxStretchChars` below `maxPieceChars` (the default counter passes
 * {@link MAX_UNBROKEN_STRETCH_CHARS}), a text longer than it is scanned forward instead, and a
 * stretch with no boundary is also cut every `maxStretchChars` code units from where it starts,
 * a piece ending at each such cut (a run of one code unit excepted: it is cut by
 * `maxPieceChars`). Those cuts depend only on the stretch, so a text counted whole or in parts
 * cut at boundaries is cut at the same points.
 *
 * @param maxPieceChars - An integer >= 2 (e.g. {@link MAX_COUNTED_PIECE_CHARS}).
 * @param maxStretchChars - An integer >= 2: the longest stretch with no boundary left whole.
 *   @default maxPieceChars
 * @returns How many positions were examined for a boundary: less than `text.length`, which
 *   tests check to prove the scan linear.
 * @throws {RangeError} when `maxPieceChars` or `maxStretchChars` is not an integer >= 2.
 *
 * @example
 * ```ts
 * let tokens = 0;
 * forEachPiece(text, MAX_COUNTED_PIECE_CHARS, (piece) => (tokens += encoding.countTokens(piece)));
 * ```
 */
export function forEachPiece(
  text: string,
  maxPieceChars: number,
  visit: (piece: string) => void,
  maxStretchChars = maxPieceChars,
): number {
  if (!Number.isInteger(maxPieceChars) || maxPieceChars < 2) {
    throw new RangeError(`maxPieceChars must be an integer >= 2, got ${String(maxPieceChars)}`);
  }
  if (!Number.isInteger(maxStretchChars) || maxStretchChars < 2) {
    throw new RangeError(`maxStretchChars must be an integer >= 2, got ${String(maxStretchChars)}`);
  }
  // with a shorter stretch, a text is cut wherever it is counted whole or within a longer one
  if (maxStretchChars < maxPieceChars && text.length > maxStretchChars) {
    return visitStretchesCut(text, maxPieceChars, maxStretchChars, visit);
  }
  if (text.length <= maxPieceChars) {
    visit(text);
    return 0;
  }
  let examined = 0;
  let start = 0;
  // positions up to here are known: the window before examined them, and any boundary among
  // them was cut at (the last one) or lies before `start`
  let examinedUpTo = 0;
  while (text.length - start > maxPieceChars) {
    const windowEnd = start + maxPieceChars;
    let cut = -1;
    for (let index = windowEnd; index > examinedUpTo && index > start; index -= 1) {
      examined += 1;
      if (isPieceBoundary(text, index)) {
        cut = index;
        break;
      }
    }
    examinedUpTo = windowEnd;
    if (cut === -1) cut = avoidSurrogateSplit(text, windowEnd);
    visit(text.slice(start, cut));
    start = cut;
  }
  visit(start === 0 ? text : text.slice(start));
  return examined;
}

/** `cut`, or one code unit sooner when `cut` would split a surrogate pair. */
function avoidSurrogateSplit(text: string, cut: number): number {
  return isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut)) ? cut - 1 : cut;
}

/**
 * {@link forEachPiece} with a shorter stretch: a forward scan that examines every position once.
 * A stretch with no boundary is cut every `maxStretchChars` from where it starts (its
 * boundary), and a piece ends at each such cut; else a piece ends at its last boundary within
 * `maxPieceChars`, as {@link forEachPiece} ends it. A run of one code unit is the exception: it
 * is cut by `maxPieceChars` as before, where a cut keeps its count exact (see
 * {@link MAX_COUNTED_PIECE_CHARS}; the pieces of a long run are equal, and counted once).
 */
function visitStretchesCut(
  text: string,
  maxPieceChars: number,
  maxStretchChars: number,
  visit: (piece: string) => void,
): number {
  let examined = 0;
  let start = 0;
  // the last boundary or stretch cut after `start` (or `start`): where the current stretch starts
  let lastCutPoint = 0;
  // where the run of one code unit that ends at `index` starts
  let runStart = 0;
  const cutAt = (cut: number): void => {
    lastCutPoint = avoidSurrogateSplit(text, cut);
    visit(text.slice(start, lastCutPoint));
    start = lastCutPoint;
  };
  for (let index = 1; index <= text.length; index += 1) {
    if (text.charCodeAt(index - 1) !== text.charCodeAt(index - 2)) {
      // a run longer than a stretch, alone in its stretch, ends here: a piece ends with it
      if (runStart <= lastCutPoint && index - 1 - lastCutPoint >= maxStretchChars) cutAt(index - 1);
      runStart = index - 1;
    }
    if (index === text.length) break;
    examined += 1;
    if (isPieceBoundary(text, index)) {
      lastCutPoint = index;
    } else if (index - lastCutPoint >= maxStretchChars && runStart > lastCutPoint) {
      // a piece ends at a stretch cut: whole, the tokenizer would take the stretch as one pre-token
      cutAt(index);
      continue;
    }
    // the piece cannot reach past `start + maxPieceChars`: it ends at the last cut point, which
    // lies after `start` unless the stretch is a run
    if (index - start >= maxPieceChars) cutAt(lastCutPoint === start ? index : lastCutPoint);
  }
  visit(text.slice(start));
  return examined;
}

/**
 * The pieces {@link forEachPiece} visits, as an array.
 *
 * @throws {RangeError} when `maxPieceChars` is not an integer >= 2.
 */
export function splitIntoPieces(text: string, maxPieceChars: number, maxStretchChars = maxPieceChars): string[] {
  const pieces: string[] = [];
  forEachPiece(text, maxPieceChars, (piece) => pieces.push(piece), maxStretchChars);
  return pieces;
}
