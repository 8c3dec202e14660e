/**
 * A compacted context fits with room to spare: whatever the window, what compaction leaves
 * (the system messages, the summary, the restored files, the resume message) is fitted to half
 * of the trigger, so the agent has room to work before the next compaction. The configured
 * budgets are the most it gets; in a small window they shrink.
 */
import type { CompactBudgets } from '../types.js';

/**
 * Local tokens one summary word is assumed to take: English prose runs about 1.3 o200k tokens a
 * word; code identifiers and CJK text (a character counts as a word) run higher.
 */
export const TOKENS_PER_SUMMARY_WORD = 1.5;
/** Local tokens around the summary: its prefix line, the acknowledgement, the message overheads. */
export const SUMMARY_FRAME_TOKENS = 40;
/** Local tokens around each restored file: its header line with the path, the acknowledgement, the overheads. */
export const RESTORED_FILE_FRAME_TOKENS = 40;
/** The summary is never given fewer words than this, even when nothing else fits. */
export const MIN_SUMMARY_WORDS = 50;

/** What {@link fitCompactBudgets} fits the budgets to. */
export interface CompactRoom {
  /** The most the compacted context may take, in provider tokens: half of the trigger. */
  targetTokens: number;
  /** Provider tokens of what compaction keeps as is: the leading system messages, the resume message. */
  keptTokens: number;
  /** Provider tokens per local token (the calibration). */
  ratio: number;
  /** The budgets as configured: the most each may be. */
  configured: CompactBudgets;
}

/**
 * The budgets one compaction runs with: the configured ones, shrunk so that the kept messages,
 * the summary and the restored files fit `targetTokens`. The summary may take at most half of
 * the room left by the kept messages (and never less than {@link MIN_SUMMARY_WORDS} words); the
 * restored files share what the summary leaves, each with its frame. Restore budgets are in
 * local tokens (what restoration counts), so the room is divided by the ratio.
 */
export function fitCompactBudgets(room: CompactRoom): CompactBudgets {
  const { configured, ratio } = room;
  const free = Math.max(0, room.targetTokens - room.keptTokens - SUMMARY_FRAME_TOKENS * ratio);
  const wordsThatFit = Math.floor(free / 2 / (TOKENS_PER_SUMMARY_WORD * ratio));
  const summaryMaxWords = Math.max(
    Math.min(MIN_SUMMARY_WORDS, configured.summaryMaxWords),
    Math.min(configured.summaryMaxWords, wordsThatFit),
  );
  const summaryTokens = summaryMaxWords * TOKENS_PER_SUMMARY_WORD * ratio;
  const restoreRoomLocal = Math.max(0, Math.floor((free - summaryTokens) / ratio));
  const files = configured.maxRestoreFiles;
  // the frames of the files that may be restored come out of the room first
  const contentRoom = Math.max(0, restoreRoomLocal - files * RESTORED_FILE_FRAME_TOKENS);
  const maxRestoreTokensTotal = Math.min(configured.maxRestoreTokensTotal, contentRoom);
  return {
    summaryMaxWords,
    maxRestoreFiles: maxRestoreTokensTotal === 0 ? 0 : files,
    maxRestoreTokensPerFile: Math.min(configured.maxRestoreTokensPerFile, maxRestoreTokensTotal),
    maxRestoreTokensTotal,
  };
}
