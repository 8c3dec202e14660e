/**
 * The batch offload's ratio gate, computed incrementally: each message's characters are
 * summed once, when the manager first sees it, so a call on a long history that has nothing to
 * offload costs a lookup per message. The counts are the batch offload's own (`createOffloadPlan`):
 * when this gate passes, the offload runs and plans exactly.
 */
import { countBlockChars, countToolResultChars } from '../../text/char-count.js';
import type { ResolvedPlanOptions } from '../../options/offload-options.js';
import { isOffloadReference } from '../../offload/offload-reference.js';
import { isToolResultBlock, type Message } from '../../types.js';

/** One `tool_result` block as the gate sees it. */
export interface ResultChars {
  /** Its content's characters. */
  chars: number;
  /** Whether the batch walk would take it (size, not a reference, not an excluded tool), `keepRecent` aside. */
  offloadable: boolean;
}

/** What one message contributes to the gate. */
export interface MessageChars {
  /** Characters it adds to the history's total. */
  totalChars: number;
  /** Its `tool_result` blocks, in order. */
  results: readonly ResultChars[];
}

const NO_RESULTS: readonly ResultChars[] = Object.freeze([]);

/** The gate's view of `message`; `toolNames` maps call ids to tool names (for `excludeTools`). */
export function summarizeMessageChars(
  message: Message,
  toolNames: ReadonlyMap<string, string>,
  options: ResolvedPlanOptions,
): MessageChars {
  if (typeof message.content === 'string') return { totalChars: message.content.length, results: NO_RESULTS };
  let totalChars = 0;
  let results: ResultChars[] | undefined;
  for (const block of message.content) {
    if (!isToolResultBlock(block)) {
      totalChars += countBlockChars(block);
      continue;
    }
    const chars = countToolResultChars(block.content);
    totalChars += chars;
    const toolName = toolNames.get(block.tool_use_id);
    const offloadable =
      chars >= options.charThreshold &&
      !(toolName !== undefined && options.excludeTools.has(toolName)) &&
      !isOffloadReference(block.content);
    (results ??= []).push({ chars, offloadable });
  }
  return { totalChars, results: results ?? NO_RESULTS };
}

/**
 * Whether the ratio gate passes for a history whose messages give `summaries`: something is
 * offloadable outside the newest `keepRecent` results, and offloadable / total characters
 * reaches `ratioThreshold`.
 */
export function passesRatioGate(
  summaries: readonly MessageChars[],
  options: Pick<ResolvedPlanOptions, 'ratioThreshold' | 'keepRecent'>,
): boolean {
  let totalChars = 0;
  let offloadableChars = 0;
  for (const summary of summaries) {
    totalChars += summary.totalChars;
    for (const result of summary.results) if (result.offloadable) offloadableChars += result.chars;
  }
  // the newest `keepRecent` results stay inline: take theirs back out
  let kept = options.keepRecent;
  for (let index = summaries.length - 1; index >= 0 && kept > 0; index -= 1) {
    const results = (summaries[index] as MessageChars).results;
    for (let position = results.length - 1; position >= 0 && kept > 0; position -= 1, kept -= 1) {
      const result = results[position] as ResultChars;
      if (result.offloadable) offloadableChars -= result.chars;
    }
  }
  if (totalChars === 0 || offloadableChars === 0) return false;
  return offloadableChars / totalChars >= options.ratioThreshold;
}
