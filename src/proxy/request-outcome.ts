/**
 * How a managed request came out, in the log's words: a failure described without the agent's
 * content, and whether (and why) a prepared history is still over the window.
 */
import { describeError } from '../core/errors.js';
import type { ContextAction, PrepareResult } from '../core/manage/types.js';
import type { Message } from '../core/types.js';

/**
 * A failure's description for the log: the error's own words, except values quoted from the
 * request (an invalid message's `got ...`), which are the agent's content and never logged.
 */
export function describeFailure(error: unknown): string {
  const text = describeError(error);
  const quoted = text.indexOf(', got ');
  return quoted === -1 ? text.slice(0, 300) : text.slice(0, Math.min(quoted, 300));
}

/**
 * Whether a prepared history is still over the window: only a call that needed a compaction
 * (one ran or was skipped) can be, so no other call is counted for it.
 */
export function isOverWindow(result: PrepareResult<Message>, limit: number): boolean {
  const needed = result.actions.some((action) => action.type === 'compact' || action.type === 'compact-skipped');
  return needed && result.stats.tokensAfter > limit;
}

/** What held the history over the window back, from a call's actions. */
export function describeHeldBack(actions: readonly ContextAction[]): string {
  const reasons: string[] = [];
  for (const action of actions) {
    if (action.type === 'compact-skipped')
      reasons.push(
        `compaction skipped: ${action.reason}${action.error === undefined ? '' : ` (${describeFailure(action.error)})`}`,
      );
    else if (action.type === 'writes-deferred')
      reasons.push(`the store refused ${action.toolCallIds.length} new offload(s) (${describeFailure(action.error)})`);
    else if (action.type === 'compact') reasons.push('the compacted history is still larger than the window');
  }
  return reasons.length === 0 ? 'no step could make it smaller' : reasons.join('; ');
}
