/**
 * Which offload steps `prepare` runs, and when, for the two timings:
 * - as results age (the default): new results sent whole, cut only when too large for the
 *   window; older results, and the large fields of older tool calls' inputs, offloaded in one
 *   batch when together they pass their budget;
 * - on arrival: new results of at least `threshold` characters replaced by their references;
 *   older ones, and older inputs with them, by the ratio gate.
 * Over the trigger, either way, older results and inputs go first, the budget and gate aside;
 * the newest results are then cut only when too large to follow a summary (read-backs too).
 *
 * The `manage/offload` folder: the manager's offload steps.
 * - `offload-policy.ts`: which steps run, and when (this file).
 * - `offload-steps.ts`, `aging-steps.ts`: the steps themselves, per timing.
 * - `batch-payoff.ts`: whether an aged batch pays for the prefix it rewrites.
 * - `ratio-gate.ts`: the batch's ratio gate, computed incrementally.
 * - `assistant-text.ts`, `tool-inputs.ts`: large assistant text and tool inputs, aged like results.
 * - `offload-output.ts`: direct offload of one tool output for framework hooks.
 * - `content-names.ts`: the content-derived names the manager writes.
 */
import { BATCH_REFERENCE_PREFIX } from '../../offload/offload-reference.js';
import { isToolResultBlock, type Message } from '../../types.js';
import { offloadOlderTexts } from './assistant-text.js';
import { doesBatchPay } from './batch-payoff.js';
import { countAgedChars, findNewestStart, offloadAgedResults } from './aging-steps.js';
import { estimateHistoryTokens, type LocalCounts } from '../counting/history-estimate.js';
import { CHARS_PER_WINDOW_TOKEN, type ResolvedContextManagerOptions } from '../manager-options.js';
import { offloadNewResults, offloadOlderResults, type OffloadStepContext } from './offload-steps.js';
import { passesRatioGate, type MessageChars } from './ratio-gate.js';
import type { CallAccess } from '../records/session-access.js';
import { countLargeInputChars, offloadOlderInputs } from './tool-inputs.js';
import type { ContextAction, ContextOffloadAction } from '../types.js';

/** What the policy works with, for the life of a manager. */
export interface OffloadPolicyParts {
  options: Pick<ResolvedContextManagerOptions<unknown>, 'offload' | 'costModel'>;
  /** The gate's view of a message (cached by the manager). */
  charsOf(message: Message): MessageChars;
  counts: LocalCounts;
  /** Reports an offload (actions, hook); resolves whether there was one. */
  report(action: ContextOffloadAction | undefined, actions: ContextAction[]): Promise<boolean>;
}

/** One `prepare` call's offload work, on `working` in place. */
export interface OffloadPolicy {
  /**
   * Steps 1 and 2: the new results (`fresh`: indices first seen in this call), then the older
   * ones; as results age, a batch goes only when it pays for the prefix it rewrites
   * (`batch-payoff.ts`), against the room the history has before the trigger (`room`).
   */
  offloadOnCall(
    working: Message[],
    fresh: readonly number[],
    steps: OffloadStepContext,
    call: CallAccess,
    actions: ContextAction[],
    room: HistoryRoom,
  ): Promise<void>;
  /**
   * Step 3a, over the trigger: resolves whether anything was offloaded. `maxExchangeTokens` is
   * the largest exchange in flight a compaction of this call keeps verbatim (provider tokens); the
   * newest results are cut only while `isOverTrigger()` still holds once the older ones went.
   */
  offloadOverTrigger(
    working: Message[],
    steps: OffloadStepContext,
    call: CallAccess,
    actions: ContextAction[],
    ratio: number,
    maxExchangeTokens: number,
    isOverTrigger: () => Promise<boolean>,
  ): Promise<boolean>;
  /**
   * After a compaction whose context came out over its target (a summary over its budget): as
   * results age, the newest results kept whole are cut. On arrival, nothing.
   */
  fitCompacted(
    compacted: Message[],
    targetTokens: number,
    steps: OffloadStepContext,
    call: CallAccess,
    actions: ContextAction[],
    ratio: number,
  ): Promise<void>;
}

/** What a batch's payoff is weighed against: how far the history is from the compaction trigger. */
interface HistoryRoom {
  /** Provider tokens per local token in force. */
  ratio: number;
  /** What the history may take before it compacts, in provider tokens. */
  historyTriggerTokens: number;
}

/** Whether a `tool_result` of `message` holds a batch reference: the mark a batch (a rewrite of the prefix) left. */
function holdsBatchReference(message: Message): boolean {
  if (typeof message.content === 'string') return false;
  return message.content.some((block) => {
    if (!isToolResultBlock(block)) return false;
    const content: unknown = block.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content) && content.length === 1
          ? (content[0] as { text?: unknown }).text
          : undefined;
    return typeof text === 'string' && text.startsWith(BATCH_REFERENCE_PREFIX);
  });
}

/** `start`, `start + 1`, ..., `end - 1`. */
function indicesFrom(start: number, end: number): number[] {
  return Array.from({ length: Math.max(0, end - start) }, (_, offset) => start + offset);
}

/** The policy of a manager's options. */
export function createOffloadPolicy(parts: OffloadPolicyParts): OffloadPolicy {
  const { options, charsOf, counts, report } = parts;
  const { offload } = options;
  const inputChars = new WeakMap<Message, number>();
  const inputCharsOf = (message: Message): number => {
    let chars = inputChars.get(message);
    if (chars === undefined) inputChars.set(message, (chars = countLargeInputChars(message, offload.directThreshold)));
    return chars;
  };
  // the calls before the last assistant message: the newest calls are left as they are
  const olderCallsEnd = (working: readonly Message[]): number => Math.max(0, findNewestStart(working) - 1);

  async function offloadInputs(
    working: Message[],
    steps: OffloadStepContext,
    call: CallAccess,
    actions: ContextAction[],
    reason: 'aged' | 'ratio-gate' | 'over-trigger',
  ): Promise<boolean> {
    return report(await offloadOlderInputs(working, olderCallsEnd(working), steps, call, reason), actions);
  }

  /**
   * Whether the aged batch of `working` (`freedChars` of results and inputs before `newestStart`)
   * pays for the prefix it rewrites: see `batch-payoff.ts`. All in characters of the history.
   */
  function batchPays(working: readonly Message[], newestStart: number, freedChars: number, room: HistoryRoom): boolean {
    const { costModel } = options;
    if (costModel.writeRatio <= costModel.readRatio) return true;
    const minChars = offload.aging.minAgedResultChars;
    const inputsEnd = olderCallsEnd(working);
    let firstChanged = -1;
    let lastRewrite = -1;
    for (let index = 0; index < newestStart; index += 1) {
      const message = working[index] as Message;
      if (
        firstChanged < 0 &&
        (charsOf(message).results.some((result) => result.offloadable && result.chars >= minChars) ||
          (index < inputsEnd && inputCharsOf(message) > 0))
      )
        firstChanged = index;
      if (holdsBatchReference(message)) lastRewrite = index;
    }
    if (firstChanged < 0) return false;
    let historyChars = 0;
    let rewrittenChars = 0;
    let requests = 0;
    let requestsSinceRewrite = 0;
    working.forEach((message, index) => {
      const chars = charsOf(message).totalChars;
      historyChars += chars;
      if (index >= firstChanged) rewrittenChars += chars;
      if (message.role !== 'assistant') return;
      requests += 1;
      if (index > lastRewrite) requestsSinceRewrite += 1;
    });
    // the pace: characters the history gained per request (its start included: a slower pace is never assumed)
    const charsPerRequest = historyChars / Math.max(1, requests);
    const triggerChars = (room.historyTriggerTokens / room.ratio) * CHARS_PER_WINDOW_TOKEN;
    const requestsBeforeCompaction = Math.floor((triggerChars - (historyChars - freedChars)) / charsPerRequest);
    return doesBatchPay({
      costModel,
      freedChars,
      rewrittenChars,
      // the request that sent the last rewrite's newest results is counted after it: it is not one since
      requestsSinceRewrite: Math.max(0, requestsSinceRewrite - (lastRewrite < 0 ? 0 : 1)),
      requestsBeforeCompaction,
    });
  }

  return {
    async offloadOnCall(working, fresh, steps, call, actions, room) {
      const newestStart = findNewestStart(working);
      if (offload.timing === 'on-arrival') {
        await report(await offloadNewResults(working, fresh, offload.directThreshold, steps, call), actions);
        if (
          passesRatioGate(working.map(charsOf), offload.batch) &&
          (await report(await offloadOlderResults(working, steps, call, 'ratio-gate'), actions))
        ) {
          await offloadInputs(working, steps, call, actions, 'ratio-gate');
        }
        return;
      }
      const newest = fresh.filter((index) => index >= newestStart);
      await report(
        await offloadNewResults(working, newest, offload.aging.maxInlineResultChars + 1, steps, call),
        actions,
      );
      // a text over the inline limit is half the window or more: freeing it pays at once
      await report(await offloadOlderTexts(working, olderCallsEnd(working), steps, call, 'aged'), actions);
      let aged = countAgedChars(working.map(charsOf), newestStart, offload.aging.minAgedResultChars);
      for (let index = 0; index < olderCallsEnd(working); index += 1) aged += inputCharsOf(working[index] as Message);
      if (aged <= offload.aging.agedBudgetChars) return;
      if (!batchPays(working, newestStart, aged, room)) return;
      await report(await offloadAgedResults(working, newestStart, steps, call, 'aged'), actions);
      await offloadInputs(working, steps, call, actions, 'aged');
    },

    async offloadOverTrigger(working, steps, call, actions, ratio, maxExchangeTokens, isOverTrigger) {
      const newestStart = findNewestStart(working);
      let freed: boolean;
      if (offload.timing === 'on-arrival') {
        const gateless = { ratioThreshold: 0, keepRecent: offload.batch.keepRecent };
        freed =
          passesRatioGate(working.map(charsOf), gateless) &&
          (await report(await offloadOlderResults(working, steps, call, 'over-trigger'), actions));
      } else {
        freed = await report(await offloadAgedResults(working, newestStart, steps, call, 'over-trigger'), actions);
      }
      freed = (await offloadInputs(working, steps, call, actions, 'over-trigger')) || freed;
      freed =
        (await report(
          await offloadOlderTexts(working, olderCallsEnd(working), steps, call, 'over-trigger'),
          actions,
        )) || freed;
      if (freed && !(await isOverTrigger())) return freed;
      // the newest results too large to follow a summary are cut, read-backs too (the model gets
      // their head and tail and how to page through them), so that a compaction keeps them in view
      await counts.warm(working.slice(Math.max(0, newestStart - 1)), call.signal);
      let newestLocal = 0;
      for (let index = Math.max(0, newestStart - 1); index < working.length; index += 1)
        newestLocal += counts.of(working[index] as Message);
      if (ratio * newestLocal <= maxExchangeTokens) return freed;
      const newest = indicesFrom(newestStart, working.length);
      return (
        (await report(await offloadNewResults(working, newest, offload.directThreshold, steps, call, true), actions)) ||
        freed
      );
    },

    async fitCompacted(compacted, targetTokens, steps, call, actions, ratio) {
      if (offload.timing === 'on-arrival') return;
      await counts.warm(compacted, call.signal);
      if (estimateHistoryTokens(compacted, ratio, counts, undefined) <= targetTokens) return;
      await report(
        await offloadNewResults(
          compacted,
          indicesFrom(findNewestStart(compacted), compacted.length),
          offload.directThreshold,
          steps,
          call,
        ),
        actions,
      );
    },
  };
}
