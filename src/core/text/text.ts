/**
 * UTF-16 helpers shared by every rule that cuts, writes or compares text. JavaScript strings
 * may hold lone surrogates, which no UTF-8 file can: Node writes each as U+FFFD, so content
 * read back would never equal what was written.
 *
 * The `text` folder: everything that measures or cuts text, with no I/O.
 * - `text.ts`: surrogate-safe cuts and the UTF-16 helpers every rule uses.
 * - `utf8.ts`: UTF-8 at the edges of a byte range.
 * - `char-count.ts`: characters as the offload threshold and the ratio gate count them.
 * - `text-pieces.ts`: long text split at pre-token boundaries so counting stays linear.
 * - `tokens.ts`: token counting through the tokenizer port, the compaction trigger's count.
 * - `words.ts`: word budgets (counting and cutting to a number of words).
 * - `figures.ts`: numbers as the texts the package writes show them (no locale data).
 */

/** Whether `code` (a UTF-16 code unit) opens a surrogate pair. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Whether `code` (a UTF-16 code unit) closes a surrogate pair. */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `String.prototype.isWellFormed` where the runtime has it (Node 20; Node 18 lacks it): a native scan, many times the regular expression's speed. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** Whether `text` holds a lone surrogate (is not well-formed UTF-16). */
export function hasLoneSurrogate(text: string): boolean {
  return isWellFormed === undefined ? LONE_SURROGATE.test(text) : !isWellFormed.call(text);
}

/**
 * `text` with every lone surrogate replaced by U+FFFD, exactly what a UTF-8 file of it reads
 * back as (`String.prototype.toWellFormed`, which Node 18 lacks). Well-formed text is returned
 * as is, without a copy.
 */
export function toWellFormedText(text: string): string {
  return hasLoneSurrogate(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
}

/** End index of a head of at most `chars` code units of `text` that does not split a surrogate pair. */
export function findHeadEnd(text: string, chars: number): number {
  const end = Math.max(0, Math.min(chars, text.length));
  return end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** Content given as a string or in parts (a store's `putIfAbsent`), as one string. */
export function joinParts(content: string | Iterable<string>): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) text += part;
  return text;
}
