/**
 * The offload steps of the `'as-they-age'` timing. The model sees what it asked for: the newest
 * results (those answering the latest assistant turn, which the model is about to act on) are
 * sent whole, and one too large for the window is cut: the reference to the whole, then its
 * head and tail (never a bare reference to something the model has not seen). Results go to
 * the store as they age, in batches: older results stay inline until those still inline add up
 * to more than a budget, then every one of them goes at once. Each batch rewrites the prompt
 * from the oldest result it takes, which is newer than anything the batch before took: the
 * cached prefix breaks once per batch, not once per result.
 */
import { createOffloadPlan } from '../../offload/plan-offload.js';
import type { Message } from '../../types.js';
import { offloadPlanned, type OffloadCall, type OffloadStepContext } from './offload-steps.js';
import type { MessageChars } from './ratio-gate.js';
import type { ContextOffloadAction } from '../types.js';

/** Where the newest results start: right after the last assistant message (the whole history when it has none). */
export function findNewestStart(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1)
    if (messages[index]?.role === 'assistant') return index + 1;
  return 0;
}

/**
 * Characters of the older results (before `newestStart`) still inline that an aging batch would
 * take: at least `minChars` long, not references, not of an excluded tool. Read from the
 * per-message summaries, so a call with nothing to do costs a lookup per message.
 */
export function countAgedChars(summaries: readonly MessageChars[], newestStart: number, minChars: number): number {
  let chars = 0;
  for (let index = 0; index < newestStart; index += 1) {
    for (const result of (summaries[index] as MessageChars).results)
      if (result.offloadable && result.chars >= minChars) chars += result.chars;
  }
  return chars;
}

/**
 * Offloads every older result (before `newestStart`) still inline of at least
 * `minAgedResultChars` (and `charThreshold`), read-backs included (the model has seen them): once
 * the older results and inputs passed their budget (`'aged'`, the caller's check), or when the
 * history is over the trigger (`'over-trigger'`, the budget aside). The smaller ones stay over the
 * trigger too: a reference takes about a hundred characters, so each frees little or nothing, and
 * since the batches before took every larger one, the oldest of them sits near the start of the
 * history: taking them would rewrite almost the whole prompt for a few requests before a
 * compaction rewrites it again. The newest `keepRecent` results stay. Resolves the action, or
 * `undefined` when nothing went.
 */
export async function offloadAgedResults(
  working: Message[],
  newestStart: number,
  context: OffloadStepContext,
  call: OffloadCall,
  reason: 'aged' | 'over-trigger',
): Promise<ContextOffloadAction | undefined> {
  const { aging, batch } = context;
  const charThreshold = Math.max(aging.minAgedResultChars, batch.charThreshold);
  const plan = createOffloadPlan(working.slice(0, newestStart), { ...batch, charThreshold, ratioThreshold: 0 });
  return offloadPlanned(working, plan, context, call, reason, true);
}
