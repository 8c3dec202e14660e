/**
 * Word budgets: how many words a text holds, and how to cut a text
 * to a number of words. A Chinese, Japanese or Korean character counts as one word, since
 * those scripts do not separate words with spaces; everything else is split on whitespace.
 */

/** Han ideographs, kana and Hangul: each character is one word. */
const CJK_CHARACTER = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';

/**
 * One candidate word per match: a single CJK character, or a run of characters that are
 * neither whitespace nor CJK. A run counts only when it holds a letter or a digit, so Markdown
 * markers (`-`, `##`, `>`), arrows and lone punctuation (`—`, `。`) are not words.
 */
const WORD_CANDIDATE = new RegExp(`[${CJK_CHARACTER}]|[^\\s${CJK_CHARACTER}]+`, 'gu');
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Counts the words of a text, as the summary word budget counts them.
 *
 * - A run of non-whitespace characters holding at least one letter or digit is one word
 *   (`src/index.ts`, `don't`, `2026-11-21` are one word each).
 * - Each Chinese, Japanese or Korean character (Han, Hiragana, Katakana, Hangul) is one word.
 * - Punctuation and symbols alone (`-`, `##`, `→`, `。`) are not words.
 *
 * @example
 * ```ts
 * countWords('Fix the tests');   // 3
 * countWords('修复测试 in CI');     // 6: four characters, "in", "CI"
 * countWords('## Task Status');  // 2
 * ```
 */
export function countWords(text: string): number {
  let count = 0;
  for (const match of text.matchAll(WORD_CANDIDATE)) {
    if (isWord(match[0])) count += 1;
  }
  return count;
}

/**
 * Returns the longest prefix of `text` that holds at most `maxWords` words (as
 * {@link countWords} counts them), ending right after the last word kept. The text itself
 * is returned when it already fits. Never splits a surrogate pair.
 *
 * @example
 * ```ts
 * truncateToWords('one two three', 2); // 'one two'
 * truncateToWords('修复测试', 2);          // '修复'
 * ```
 */
export function truncateToWords(text: string, maxWords: number): string {
  if (maxWords <= 0) return '';
  let count = 0;
  for (const match of text.matchAll(WORD_CANDIDATE)) {
    if (!isWord(match[0])) continue;
    count += 1;
    if (count === maxWords) {
      const end = match.index + match[0].length;
      // a text with nothing but punctuation or whitespace after this word fits as it is
      return countWords(text.slice(end)) === 0 ? text : text.slice(0, end);
    }
  }
  return text;
}

function isWord(candidate: string): boolean {
  // a single CJK character always matches LETTER_OR_DIGIT (Han, kana and Hangul are letters)
  return LETTER_OR_DIGIT.test(candidate);
}
