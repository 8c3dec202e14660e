/**
 * What a batch offload would do, computed without writing anything: the ratio gate
 * and the blocks the oldest-to-newest walk would take. The offload is built on it; the CLI shows it.
 */
import { countBlockChars, countToolResultChars } from '../text/char-count.js';
import type { Environment } from '../options/env.js';
import { resolvePlanOptions, type OffloadPlanOptions, type ResolvedPlanOptions } from '../options/offload-options.js';
import { buildBatchFileName, planFileNames, toFileStem } from './offload-names.js';
import { isOffloadReference } from './offload-reference.js';
import { recordToolNames } from '../messages/tool-names.js';
import { isToolResultBlock, type Message } from '../types.js';
import { assertMessages } from '../messages/validate-messages.js';

/**
 * Why a batch offload does nothing (checked in this order): `'no-content'`
 * when the history has no counted characters, `'nothing-to-offload'` when no block qualifies,
 * `'below-ratio-threshold'` when offloadable chars / total chars < the ratio threshold.
 */
export type OffloadSkipReason = 'no-content' | 'nothing-to-offload' | 'below-ratio-threshold';

/** One `tool_result` block the offload would write to a file. */
export interface OffloadCandidate {
  /** Index of the message in the history. */
  messageIndex: number;
  /** Index of the block in the message's content. */
  blockIndex: number;
  /** The block's `tool_use_id`. */
  toolUseId: string;
  /** Name of the tool that produced it (from the matching `tool_use`), or `null` when none precedes it. */
  toolName: string | null;
  /** The content's character count (a string's `.length`, an array's `JSON.stringify(...).length`). */
  chars: number;
  /**
   * The id as it appears in file names: the id itself, or for an id that is not 1-100
   * characters of `[A-Za-z0-9._-]`, its safe characters, `~` and a hash of it.
   */
  fileStem: string;
  /**
   * The file name this call gives it: `tool-result-{fileStem}.md`, then `-1`, `-2`, ... for
   * later uses of the same id, skipping any name another id of the history has (ids `a`, `a`,
   * `a-1` get `tool-result-a.md`, `tool-result-a-2.md`, `tool-result-a-1.md`). On disk, a name
   * holding other content moves to the next free suffix.
   */
  fileName: string;
}

/** The result of `planOffload`. */
export interface OffloadPlan {
  /** Characters of the whole history, as the ratio gate counts them. */
  totalChars: number;
  /** Characters of the blocks the walk would offload (the candidates). */
  offloadableChars: number;
  /** `offloadableChars / totalChars`, or 0 when `totalChars` is 0. */
  ratio: number;
  /** The char threshold in force (option, env or default). */
  charThreshold: number;
  /** The ratio threshold in force (option, env or default). */
  ratioThreshold: number;
  /** The blocks the walk would offload, oldest first (listed even when the gate skips). */
  candidates: OffloadCandidate[];
  /** Why the offload would do nothing, or `null` when it would offload the candidates. */
  skippedReason: OffloadSkipReason | null;
}

interface ToolResultSighting {
  messageIndex: number;
  blockIndex: number;
  toolUseId: string;
  toolName: string | null;
  chars: number;
  qualifies: boolean;
}

function pickSighting(sighting: ToolResultSighting): Omit<OffloadCandidate, 'fileStem' | 'fileName'> {
  const { messageIndex, blockIndex, toolUseId, toolName, chars } = sighting;
  return { messageIndex, blockIndex, toolUseId, toolName, chars };
}

/** Builds the plan from options already resolved; `messages` must be valid. */
export function createOffloadPlan(messages: readonly Message[], options: ResolvedPlanOptions): OffloadPlan {
  const toolNames = new Map<string, string>();
  const sightings: ToolResultSighting[] = [];
  let totalChars = 0;
  for (let messageIndex = 0; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex] as Message;
    if (typeof message.content === 'string') {
      totalChars += message.content.length;
      continue;
    }
    recordToolNames(message, toolNames);
    const blocks = message.content;
    for (let blockIndex = 0; blockIndex < blocks.length; blockIndex++) {
      const block = blocks[blockIndex]!;
      if (!isToolResultBlock(block)) {
        totalChars += countBlockChars(block);
        continue;
      }
      // Counted once: arrays are stringified, and a history may hold megabytes of them.
      const chars = countToolResultChars(block.content);
      totalChars += chars;
      const toolUseId = block.tool_use_id as string;
      const toolName = toolNames.get(toolUseId) ?? null;
      const qualifies =
        chars >= options.charThreshold &&
        !isOffloadReference(block.content) &&
        !(toolName !== null && options.excludeTools.has(toolName));
      sightings.push({ messageIndex, blockIndex, toolUseId, toolName, chars, qualifies });
    }
  }

  const eligibleCount = Math.max(0, sightings.length - options.keepRecent);
  const chosen: number[] = [];
  let offloadableChars = 0;
  for (let index = 0; index < eligibleCount; index++) {
    const sighting = sightings[index]!;
    if (!sighting.qualifies) continue;
    offloadableChars += sighting.chars;
    chosen.push(index);
  }
  // Every id of the history keeps its own name free: a duplicate's suffix never takes it.
  const reserved = sightings.map((sighting) => toFileStem(sighting.toolUseId));
  const stems = chosen.map((index) => reserved[index]!);
  const fileNames = planFileNames(stems, reserved, buildBatchFileName);
  const candidates: OffloadCandidate[] = chosen.map((sightingIndex, index) => ({
    ...pickSighting(sightings[sightingIndex]!),
    fileStem: stems[index]!,
    fileName: fileNames[index]!,
  }));

  const ratio = totalChars === 0 ? 0 : offloadableChars / totalChars;
  let skippedReason: OffloadSkipReason | null = null;
  if (totalChars === 0) skippedReason = 'no-content';
  else if (offloadableChars === 0) skippedReason = 'nothing-to-offload';
  else if (ratio < options.ratioThreshold) skippedReason = 'below-ratio-threshold';
  return {
    totalChars,
    offloadableChars,
    ratio,
    charThreshold: options.charThreshold,
    ratioThreshold: options.ratioThreshold,
    candidates,
    skippedReason,
  };
}

/**
 * Computes what a batch offload of `messages` would do, writing nothing: the counts of the
 * ratio gate, the blocks it would offload and why it would skip. Pure: the environment is
 * passed in (the public `planOffload` passes `process.env`).
 *
 * @throws {@link InvalidOptionError} for an invalid option or environment value.
 * @throws {@link InvalidMessageError} for a malformed history, naming the bad field's path.
 */
export function planOffload(
  messages: readonly Message[],
  options: OffloadPlanOptions = {},
  env: Environment = {},
): OffloadPlan {
  const resolved = resolvePlanOptions(options, env);
  assertMessages(messages);
  return createOffloadPlan(messages, resolved);
}
