/**
 * The prompt's fixed part (system prompt and tool definitions) against the window: when it
 * alone reaches the compaction trigger, no history fits beside it, and the window that would
 * work is named for the user.
 */
import { compactThresholdTokens } from '../../text/tokens.js';

/** The smallest working window leaves the history at least this share of the trigger. */
const HISTORY_SHARE_OF_TRIGGER = 0.5;
/** Windows are named rounded up to this many tokens. */
const WINDOW_ROUNDING = 1000;

/**
 * The smallest `contextTokenLimit` whose trigger (`× compactThresholdRatio`) is at least twice
 * `overheadTokens`, rounded up to a thousand: the fixed part then takes at most half of the
 * trigger and the history the rest (Claude Code's ~27 KB system prompt and ~82 KB of tools,
 * about 40,000 tokens calibrated for Claude, need a window of about 88,000).
 */
export function findSmallestWorkingWindow(overheadTokens: number, compactThresholdRatio: number): number {
  const neededTrigger = overheadTokens / (1 - HISTORY_SHARE_OF_TRIGGER);
  let window = Math.max(
    WINDOW_ROUNDING,
    Math.ceil(neededTrigger / compactThresholdRatio / WINDOW_ROUNDING) * WINDOW_ROUNDING,
  );
  // a guard against floating point: a quotient a hair short of the needed trigger takes the next step
  while (compactThresholdTokens(window, compactThresholdRatio) < neededTrigger) window += WINDOW_ROUNDING;
  return window;
}
