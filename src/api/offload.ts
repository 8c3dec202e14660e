/**
 * Public entry points of batch offload. The environment is read here, at call
 * time, and handed to the pure core.
 */
import { assertAbortSignal, createAbortableStore, raceWithSignal } from '../core/abort.js';
import { executeOffload, type OffloadResult } from '../core/offload/offload.js';
import {
  resolveBatchOffloadOptions,
  type BatchOffloadOptions,
  type OffloadOptions,
  type OffloadPlanOptions,
} from '../core/options/offload-options.js';
import { planOffload as planOffloadWithEnvironment, type OffloadPlan } from '../core/offload/plan-offload.js';
import type { FileWriter } from '../core/ports.js';
import type { Message } from '../core/types.js';
import { resolveStoreTarget } from './store-target.js';

/**
 * Offloads the large `tool_result` blocks of a history to files in `outputDir` and replaces
 * each with `[Content offloaded to: ./tool-result-{id}.md]`.
 *
 * Gate first: when the history has no counted characters, nothing qualifies, or
 * offloadable chars / total chars is below `ratioThreshold`, it resolves with the input array
 * itself, `offloadedCount: 0`, and writes nothing (not even the directory). Otherwise it walks
 * oldest to newest and offloads every `tool_result` of at least `charThreshold` characters that
 * is not already a reference, not from an excluded tool, and not among the `keepRecent` newest.
 * A file holding other content is never overwritten (the next free suffix is taken); a file
 * already holding exactly this content is reused. Thresholds not given as options are read from
 * `OFFLOAD_CHAR_THRESHOLD` and `OFFLOAD_RATIO_THRESHOLD` at each call. The input is never mutated.
 *
 * A `tool_use_id` that is not a safe file name (a `/`, `..`, NUL, over 100 characters) maps to
 * one: its safe characters, `~` and a hash of the id, always inside `outputDir`.
 *
 * @throws {@link InvalidOptionError} (`INVALID_OPTION`) for an invalid option or environment
 * value, naming it; {@link InvalidMessageError} (`INVALID_MESSAGE`) for a malformed history,
 * with the bad field's path (a cycle, a BigInt or over-deep nesting included);
 * {@link WriteFailedError} (`WRITE_FAILED`) when the OS refuses a write, with its error as
 * `cause`. The first two come before anything is written. With `signal`, rejects with its
 * reason as soon as it aborts.
 *
 * @example
 * ```ts
 * const { messages: smaller, offloadedCount, freedChars, files } =
 *   await offloadToolResults(messages, { outputDir: './offload' });
 * ```
 */
export async function offloadToolResults(
  messages: readonly Message[],
  options: OffloadOptions,
): Promise<OffloadResult> {
  // Read defensively: JavaScript callers may pass no options at all.
  const store = resolveStoreTarget(
    { store: options?.store, outputDir: options?.outputDir },
    { both: 'a store decides where its content goes' },
  );
  const resolved = resolveBatchOffloadOptions(options, process.env, store.kind);
  const signal = assertAbortSignal('signal', options.signal);
  return raceWithSignal(executeOffload(messages, createAbortableStore(store, signal), resolved), signal);
}

/**
 * {@link offloadToolResults} over your own {@link FileWriter}. A writer with only
 * `ensureDir` and `writeFile` gets plain writes under the planned names; one that also has
 * `createExclusive` gets the never-overwrite and reuse guarantees; `resolvePath` makes `files`
 * absolute (without it, paths are `outputDir` joined with the name by `/`).
 *
 * @throws as {@link offloadToolResults}; also `INVALID_OPTION` when `writer` lacks a method.
 */
export async function offloadToolResultsWithWriter(
  messages: readonly Message[],
  outputDir: string,
  writer: FileWriter,
  options: BatchOffloadOptions = {},
): Promise<OffloadResult> {
  const resolved = resolveBatchOffloadOptions(options, process.env);
  return executeOffload(messages, resolveStoreTarget({ outputDir, writer }), resolved);
}

/**
 * What {@link offloadToolResults} would do with these messages and options, without writing
 * anything: total and offloadable characters, their ratio, the thresholds in force (options,
 * else the environment read now, else the defaults), the blocks it would offload with their
 * planned file names, and why it would skip (`skippedReason`, `null` when it would offload).
 *
 * @throws {@link InvalidOptionError} or {@link InvalidMessageError}, as {@link offloadToolResults}.
 */
export function planOffload(messages: readonly Message[], options: OffloadPlanOptions = {}): OffloadPlan {
  return planOffloadWithEnvironment(messages, options, process.env);
}
