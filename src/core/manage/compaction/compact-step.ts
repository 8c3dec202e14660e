/**
 * Step 3b of `prepare`: compaction, fitted to half of the trigger, behind the circuit breaker.
 * What comes before the exchange in flight is compacted; the exchange follows the summary
 * verbatim, whatever its size (its results too large to follow a summary were cut before), and
 * with nothing before it nothing is compacted. The compaction is recorded in the session's folder, keyed by the span it replaced:
 * when another process recorded the same span first, its messages are the ones returned (both
 * processes then send the same history) and this one's summary is dropped.
 */
import type { CompactResult } from '../../compact/compact.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../ports.js';
import type { CompactCall } from '../manager-ports.js';
import type { Message } from '../../types.js';
import type { CompactionBackoff } from './backoff.js';
import { chooseCompactionBudgets, chooseCompactionSpan, computeCompactionTarget } from './compaction-policy.js';
import { estimateHistoryTokens, type LocalCounts } from '../counting/history-estimate.js';
import type { CallAccess, SessionAccess } from '../records/session-access.js';
import type { RecordedCalibration } from '../records/session-records.js';
import type { CompactBudgets, ContextAction, ContextCompactAction, ContextManagerHooks } from '../types.js';

/** What one compaction step works with. */
export interface CompactStep {
  access: SessionAccess;
  call: CallAccess;
  counts: LocalCounts;
  backoff: CompactionBackoff;
  logger: Logger;
  hooks: ContextManagerHooks;
  targetTokens: number;
  /** The calibration in force in this call. */
  calibration: RecordedCalibration;
  /** The calibration the compaction record carries: in force, or what this call's usage figure taught. */
  recordedCalibration: RecordedCalibration;
  resumeMessage: string | undefined;
  budgets: CompactBudgets;
  compact(messages: readonly Message[], call: CompactCall): Promise<CompactResult>;
  notify(name: 'onCompact', call: () => unknown): Promise<void>;
}

/**
 * Compacts `working` (all of it but the exchange in flight) and resolves the history to send, or
 * `undefined` when the compaction did not happen (`actions` says why).
 */
export async function compactWithRecord(
  working: Message[],
  tokensBefore: number,
  step: CompactStep,
  actions: ContextAction[],
): Promise<Message[] | undefined> {
  const { backoff, counts, logger, call, access } = step;
  const chosen = chooseCompactionSpan(working);
  // the exchange in flight is never summarized away: with nothing before it, there is nothing to compact
  if (chosen === undefined) {
    actions.push({ type: 'compact-skipped', reason: 'nothing-to-compact', retryInCalls: 0 });
    return undefined;
  }
  const { exchangeStart } = chosen;
  const head = working.slice(0, chosen.headLength);
  if (!backoff.mayAttempt) {
    actions.push({ type: 'compact-skipped', reason: 'backing-off', retryInCalls: backoff.waitingCalls });
    return undefined;
  }
  const ratio = step.calibration.ratio;
  await counts.warm(head, call.signal);
  await counts.warm(working.slice(exchangeStart), call.signal);
  let exchangeLocal = 0;
  for (let index = exchangeStart; index < working.length; index += 1)
    exchangeLocal += counts.of(working[index] as Message);
  // what the exchange takes beyond half of the target comes on top of it (its results too large
  // to follow a summary were cut before: what is left, a result nothing may offload, stays whole)
  const targetTokens = computeCompactionTarget(step.targetTokens, ratio * exchangeLocal);
  const excess = targetTokens - step.targetTokens;
  const spanLength = exchangeStart;
  const span = working.slice(0, spanLength);
  const exchange = working.slice(spanLength);
  const resumeMessage = exchange.length === 0 ? step.resumeMessage : undefined;

  // what compaction keeps as it is: its Head, the resume message, the exchange in flight
  let keptLocal = resumeMessage === undefined ? 0 : counts.of({ role: 'user', content: resumeMessage });
  for (const message of head) keptLocal += counts.of(message);
  for (const message of exchange) keptLocal += counts.of(message);
  const budgets = chooseCompactionBudgets({
    targetTokens,
    keptTokens: Math.ceil(ratio * keptLocal),
    ratio,
    configured: step.budgets,
  });

  const { signal } = call;
  const compactCall: CompactCall = {
    ...budgets,
    signal,
    resumeMessage,
    sessionId: access.sessionId,
    store: call.store,
  };
  let result: CompactResult;
  let fallbackFrom: string | undefined;
  try {
    result = await step.compact(span, compactCall);
    // a summarizer that keeps failing (a provider refusing the request) must not leave the history over the window
    if (result.skippedReason === 'summarizer-failed' && result.summarizer !== 'extractive') {
      logger.warn(
        `context manager: the ${result.summarizer} summarizer failed (${describeError(result.error)}); the extractive summarizer writes this summary`,
      );
      fallbackFrom = result.summarizer;
      result = await step.compact(span, { ...compactCall, summarizer: 'extractive' });
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    const retryInCalls = backoff.recordFailure();
    logger.warn(`context manager: compaction failed (${describeError(error)}); the history is sent as it is`);
    actions.push({ type: 'compact-skipped', reason: 'failed', error, retryInCalls });
    return undefined;
  }
  if (!result.compacted) {
    const retryInCalls = backoff.recordFailure();
    const reason = result.skippedReason ?? 'failed';
    actions.push(
      result.error === undefined
        ? { type: 'compact-skipped', reason, retryInCalls }
        : { type: 'compact-skipped', reason, error: result.error, retryInCalls },
    );
    return undefined;
  }
  backoff.recordSuccess();
  let replacement = result.messages;
  // the exchange opens with the assistant's calls: the summary's acknowledgement would stand before them
  if (
    exchange[0]?.role === 'assistant' &&
    replacement.at(-1)?.role === 'assistant' &&
    replacement.length > head.length + 1
  )
    replacement = replacement.slice(0, -1);

  const archiveReference = result.archiveReference ?? result.originalMessagesPath ?? null;
  await counts.warm(replacement, call.signal);
  const recorded = await access.recordCompaction(
    working,
    spanLength,
    replacement,
    { archiveReference, summarizer: result.summarizer, calibration: step.recordedCalibration },
    call,
  );
  const compacted = [...recorded.messages, ...exchange];
  if (!recorded.won) {
    logger.warn(
      `context manager: another process compacted the same history first; its summary is used and this one (by ${result.summarizer}` +
        `${archiveReference === null ? '' : `, archive ${archiveReference}`}) is dropped`,
    );
    return compacted;
  }

  await counts.warm(compacted, call.signal);
  const tokensAfter = estimateHistoryTokens(compacted, ratio, counts, undefined);
  if (tokensAfter > targetTokens) {
    logger.warn(
      `context manager: the compacted context takes about ${tokensAfter} tokens, over its target of ${targetTokens} (half of the trigger${excess > 0 ? ', and the exchange in flight beyond its share' : ''}); ` +
        'the system messages, the summary or the exchange in flight are larger than the window allows',
    );
  }
  const action: ContextCompactAction = {
    type: 'compact',
    tokensBefore,
    tokensAfter,
    targetTokens,
    archiveReference: archiveReference ?? undefined,
    summarizer: result.summarizer,
    ...(fallbackFrom !== undefined && { fallbackFrom }),
    restoredFileCount: result.stats.restoredFileCount,
    budgets,
  };
  actions.push(action);
  const onCompact = step.hooks.onCompact;
  if (onCompact !== undefined) await step.notify('onCompact', () => onCompact(action, result));
  return compacted;
}
