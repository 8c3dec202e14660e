/**
 * The compaction trigger in force: the window and the share, from the flags, else the
 * environment (`CONTEXT_TOKEN_LIMIT`, `COMPACT_THRESHOLD_RATIO`), else the defaults. The
 * public `shouldCompact` answers whether it fires; the report also shows where it sits, so
 * the CLI asks the library's own resolver for the values (no rule of its own).
 */
import { compactThresholdTokens, resolveCompactTrigger } from '../core/text/tokens.js';

/** The trigger's values. */
export interface CompactionTrigger {
  /** The context window, in tokens. */
  contextTokenLimit: number;
  /** Share of the window at which compaction triggers. */
  compactThresholdRatio: number;
  /** `contextTokenLimit × compactThresholdRatio`, rounded up: the token count that triggers. */
  thresholdTokens: number;
}

/**
 * Resolves the trigger like `shouldCompact` does.
 *
 * @throws {ContextError} `INVALID_OPTION` naming the flag's option or the variable.
 */
export function resolveCompactionTrigger(options: {
  contextTokenLimit?: number | undefined;
  compactThresholdRatio?: number | undefined;
}): CompactionTrigger {
  const trigger = resolveCompactTrigger(options, process.env);
  return {
    ...trigger,
    thresholdTokens: compactThresholdTokens(trigger.contextTokenLimit, trigger.compactThresholdRatio),
  };
}
