/**
 * A token counter that tokenizes each distinct text once, for `count`: the same tool result is
 * counted for the total and again on its own, and the tokenizer is most of the command's time.
 */
import { sha256Hex } from '../core/manage/records/fingerprint.js';
import type { TokenCounter } from '../core/ports.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';

/**
 * Texts at least this long are remembered by a digest, not by themselves. V8 hashes a string
 * longer than 16,383 characters by its length alone, so thousands of long results of one length
 * share one hash bucket and each lookup compares text after text: quadratic (4,000 results of
 * 30 KB took minutes).
 */
export const DIGESTED_TEXT_MIN_CHARS = 16_384;

/**
 * A {@link TokenCounter} over `counter` that counts each distinct text once, and keeps its
 * `encoding` (the counts are the same). A short text is its own key; a long one is keyed by its
 * SHA-256, which costs one pass over it (less than tokenizing it) and cannot collide in practice.
 */
export function createMemoizedCounter(counter: TokenCounter): TokenCounter {
  const shortCounts = new Map<string, number>();
  const longCounts = new Map<string, number>();
  return {
    ...(counter.encoding === undefined ? {} : { encoding: counter.encoding }),
    count(text: string): number {
      const counts = text.length < DIGESTED_TEXT_MIN_CHARS ? shortCounts : longCounts;
      const key = counts === shortCounts ? text : sha256Hex(sha256Hashing, text);
      let tokens = counts.get(key);
      if (tokens === undefined) {
        tokens = counter.count(text);
        counts.set(key, tokens);
      }
      return tokens;
    },
  };
}
