/**
 * The compaction policy: when a compaction goes (the trigger), what it fits the history to (the
 * target), what it summarizes (the span) and with which budgets, and the estimator every trigger
 * check uses. The manager and `shouldCompact` share one estimator, so that both say "compact" for
 * the same history: local counts scaled by one ratio (the safety factor given, else the
 * calibration the manager starts from for the provider family: `resolveEstimateRatio`, beside the
 * calibration, so that `count` loads no compaction), the provider's figure taken as it is.
 * Pure: the counts come in as numbers.
 *
 * The `manage/compaction` folder: compaction inside `prepare`.
 * - `compaction-policy.ts`: trigger, target, span, budgets and the one estimator (this file).
 * - `compact-step.ts`: the step, fitted to half of the trigger.
 * - `exchange.ts`: the exchange in flight, kept verbatim after the summary.
 * - `room-to-spare.ts`: what a compacted context leaves, fitted with room to spare.
 * - `backoff.ts`: the circuit breaker of a compaction that keeps failing.
 */
import { partitionMessages } from '../../compact/partition.js';
import { compactThresholdTokens } from '../../text/tokens.js';
import type { Message } from '../../types.js';
import { findExchangeStart } from './exchange.js';
import { fitCompactBudgets } from './room-to-spare.js';
import type { CompactBudgets } from '../types.js';

/** The newest results follow a summary whole while they take at most this share of the trigger (then they are cut). */
const EXCHANGE_SHARE_OF_TRIGGER = 0.75;
/** A compaction fits the history to this share of the trigger, so the agent has room to work before the next one. */
const COMPACTION_TARGET_SHARE = 0.5;

/** Where a history stands against the trigger, once the system prompt and tools took their share. */
export interface CompactionRoom {
  /** The trigger of the whole request, in provider tokens. */
  triggerTokens: number;
  /** The trigger less the system prompt and tools: what the history may take before it compacts. */
  historyTriggerTokens: number;
  /** What a compaction fits the history to: half of {@link CompactionRoom.historyTriggerTokens}. */
  targetTokens: number;
  /** The largest exchange in flight a compaction keeps verbatim (its newest results are cut beyond it). */
  maxExchangeTokens: number;
}

/** Options of {@link computeCompactionRoom}. */
export interface CompactionRoomOptions {
  /** The window, in tokens. */
  contextTokenLimit: number;
  /** Share of the window at which compaction triggers. */
  compactThresholdRatio: number;
  /** Provider tokens of the system prompt and tools (calibrated); 0 when a usage figure covers them. */
  fixedTokens?: number | undefined;
}

/** The trigger, the target and the exchange's share for a window and what the fixed part takes of it. */
export function computeCompactionRoom(options: CompactionRoomOptions): CompactionRoom {
  const triggerTokens = compactThresholdTokens(options.contextTokenLimit, options.compactThresholdRatio);
  const historyTriggerTokens = Math.max(0, triggerTokens - (options.fixedTokens ?? 0));
  return {
    triggerTokens,
    historyTriggerTokens,
    targetTokens: Math.floor(historyTriggerTokens * COMPACTION_TARGET_SHARE),
    maxExchangeTokens: Math.floor(historyTriggerTokens * EXCHANGE_SHARE_OF_TRIGGER),
  };
}

/** Whether a history of `historyTokens` (from `estimateProviderTokens`) reaches the trigger: compaction goes. */
export function isAtCompactionTrigger(historyTokens: number, room: CompactionRoom): boolean {
  return historyTokens >= room.historyTriggerTokens;
}

/** What a compaction summarizes: the messages before the exchange in flight, after the leading system messages. */
export interface CompactionSpan {
  /** The leading system messages, kept as they are. */
  headLength: number;
  /** Where the exchange in flight starts: the span is `[headLength, exchangeStart)`. */
  exchangeStart: number;
}

/** The span of `messages` a compaction summarizes, or `undefined` when nothing stands before the exchange in flight. */
export function chooseCompactionSpan(messages: readonly Message[]): CompactionSpan | undefined {
  const headLength = partitionMessages(messages).head.length;
  const exchangeStart = findExchangeStart(messages, headLength);
  return exchangeStart <= headLength ? undefined : { headLength, exchangeStart };
}

/**
 * The target one compaction fits to: the room's, plus what the exchange in flight takes beyond
 * half of it (the exchange follows the summary whole, whatever its size).
 */
export function computeCompactionTarget(targetTokens: number, exchangeTokens: number): number {
  return targetTokens + Math.max(0, Math.ceil(exchangeTokens - targetTokens / 2));
}

/** Options of {@link chooseCompactionBudgets}. */
export interface CompactionBudgetOptions {
  /** The target of this compaction ({@link computeCompactionTarget}). */
  targetTokens: number;
  /** Provider tokens of what the compaction keeps as it is (head, resume message, exchange). */
  keptTokens: number;
  /** Provider tokens per local token. */
  ratio: number;
  /** The budgets as configured: the most each may be. */
  configured: CompactBudgets;
}

/** The summary and restore budgets of one compaction: the configured ones, shrunk to fit its target. */
export function chooseCompactionBudgets(options: CompactionBudgetOptions): CompactBudgets {
  return fitCompactBudgets(options);
}
