/**
 * The tokens a request spends outside its history: the system prompt of the body's own field
 * and the tool definitions (Claude Code's come to about 12,000 tokens). The context manager
 * sees only the history, so the proxy hands it this count with every request (`fixedTokens`):
 * the manager adds it to its estimate when no provider figure counts it (the first request of
 * a session, every request after a compaction). Counted locally once per distinct system
 * prompt and tool set.
 */
import { hashText } from '../api/history-fingerprints.js';
import type { TokenCounter } from '../core/ports.js';

/** Distinct system prompt and tool sets remembered. */
const MAX_REMEMBERED = 256;

/** Counts the tokens of a request's fixed parts, remembering the counts by content. */
export function createOverheadCounter(tokenCounter: TokenCounter): (parts: readonly unknown[]) => number {
  const counts = new Map<string, number>();
  return (parts) => {
    const text = parts.map((part) => (part === undefined ? '' : JSON.stringify(part))).join('\n');
    if (text.trim() === '') return 0;
    const key = hashText(text);
    let count = counts.get(key);
    if (count === undefined) {
      count = tokenCounter.count(text);
      counts.set(key, count);
      if (counts.size > MAX_REMEMBERED) counts.delete(counts.keys().next().value as string);
    }
    return count;
  };
}
