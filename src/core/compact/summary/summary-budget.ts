/**
 * The summary's budget: a summarizer stuck repeating itself can return megabytes for a short
 * history, and a summary must never be what makes a context too large. A summary over its
 * budget is cut, at a line when one is near, and says that it was.
 */
import type { TokenCounter } from '../../ports.js';
import { groupDigits } from '../../text/figures.js';
import { findHeadEnd } from '../../text/text.js';
import { MAX_BYTES_PER_TOKEN } from '../restore.js';

/** What {@link fitSummaryToBudget} returns. */
export interface FittedSummary {
  /** The summary, or its head and a marker when it was over budget. */
  text: string;
  cut: boolean;
}

/** Characters per token of the budget in the first head counted: about what a token of prose holds. */
const FIRST_HEAD_CHARS_PER_TOKEN = 4;

/**
 * `summary` when it holds at most `maxTokens` tokens as `tokenCounter` counts them; else its
 * longest head that fits together with a marker saying so (`[… summary cut to its budget of
 * 3,856 tokens: the summarizer returned 4,194,304 characters]`), ended at a line break when
 * one is in the second half of that head. No surrogate pair is split.
 *
 * Heads are counted from `maxTokens × 4` characters, doubling, until one holds more than the
 * budget or is the whole summary, and never past `maxTokens × 128` characters (no head that fits
 * is longer: a token of the default counter holds at most 128 UTF-8 bytes). So what is counted
 * is a few times the head that fits, not the summary: a 4 MB summary, or a 1 MB base64 text a
 * summary quoted, costs a few counts of about `maxTokens` tokens.
 */
export function fitSummaryToBudget(summary: string, maxTokens: number, tokenCounter: TokenCounter): FittedSummary {
  const scanEnd = findHeadEnd(summary, maxTokens * MAX_BYTES_PER_TOKEN);
  let end = findHeadEnd(summary, Math.min(scanEnd, maxTokens * FIRST_HEAD_CHARS_PER_TOKEN));
  let count = tokenCounter.count(summary.slice(0, end));
  while (count <= maxTokens && end < scanEnd) {
    end = findHeadEnd(summary, Math.min(scanEnd, Math.max(2 * end, end + 2)));
    count = tokenCounter.count(summary.slice(0, end));
  }
  if (end === summary.length && count <= maxTokens) return { text: summary, cut: false };
  const marker = `\n\n[… summary cut to its budget of ${groupDigits(maxTokens)} tokens: the summarizer returned ${summary.length.toLocaleString('en-US')} characters]`;
  const room = Math.max(0, maxTokens - tokenCounter.count(marker));
  // each step cuts in proportion to the excess (exact for a counter proportional to length),
  // then a little more, so the loop ends in a few counts
  for (let step = 0; count > room && end > 0; step += 1) {
    end = findHeadEnd(summary, Math.floor(((end * room) / count) * (step === 0 ? 1 : 0.98)));
    count = tokenCounter.count(summary.slice(0, end));
  }
  let head = summary.slice(0, end);
  const lineEnd = head.lastIndexOf('\n');
  if (lineEnd > head.length / 2) head = head.slice(0, lineEnd);
  return { text: head.trimEnd() + marker, cut: true };
}
