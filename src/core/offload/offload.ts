/**
 * Batch offload: gate first, then the oldest-to-newest walk that writes
 * each large `tool_result` to a file and puts a reference in its place.
 *
 * The `offload` folder: the two offload modes of the package's functions.
 * - `offload.ts`: batch offload, `offloadToolResults` (this file).
 * - `plan-offload.ts`: the plan of a batch (which results go), without writing.
 * - `direct-offload.ts`: direct offload of one result as it arrives.
 * - `offload-files.ts`: what both modes share once the blocks are chosen (paths, bounded
 *   parallel writes, the copy of a changed message).
 * - `offload-names.ts`: the names offloaded content is stored under.
 * - `offload-reference.ts`: the reference left in a result's place, how it is recognised, its
 *   optional preview.
 * The context manager's own offload steps (aging, budgets, the ratio gate over a session) live in
 * `manage/offload/`; both write through the same names and references.
 */
import type { Message, ToolResultBlock } from '../types.js';
import type { ContentStore } from '../ports.js';
import type { ResolvedBatchOffloadOptions } from '../options/offload-options.js';
import { appendPreview, buildBatchReference } from './offload-reference.js';
import {
  callStore,
  copyMessageWithContent,
  runConcurrently,
  serializeToolResultContent,
  WRITE_CONCURRENCY,
} from './offload-files.js';
import { buildBatchFileName } from './offload-names.js';
import { createOffloadPlan, type OffloadCandidate } from './plan-offload.js';
import { WriteFailedError } from '../errors.js';
import { findTakenNames } from '../store/taken-names.js';
import { hasLoneSurrogate, toWellFormedText } from '../text/text.js';
import { assertMessages } from '../messages/validate-messages.js';

/** The result of a batch offload. */
export interface OffloadResult {
  /**
   * The new history. Changed messages are deep copies; untouched ones are the input's own
   * objects. When the gate skips, this is the input array itself.
   */
  messages: Message[];
  /** Blocks offloaded (a block whose identical file was already on disk counts too). */
  offloadedCount: number;
  /** Sum of the offloaded blocks' original character counts (not net of the references). */
  freedChars: number;
  /**
   * Where each offloaded block went, in walk order: the store's reference (an absolute path
   * with the file store and the Node writer; `outputDir` joined with the name for a writer
   * without `resolvePath`; `redis://...`, `s3://...` for those stores).
   */
  files: string[];
  /**
   * Offloaded blocks whose text held lone surrogates (half of a UTF-16 pair, which no UTF-8
   * file can hold): each was written with U+FFFD in their place, as any UTF-8 writer would,
   * and a rerun finds that file identical. Present only when there was one, so the result
   * keeps its usual shape otherwise.
   */
  repairedCount?: number;
}

/** Suffixes tried for one block before giving up. */
const MAX_FILE_SUFFIX = 100_000;

/** Where one content went: its key and the store's reference to it. */
interface PlacedEntry {
  key: string;
  reference: string;
}

function placedAt(store: ContentStore, key: string): PlacedEntry {
  return { key, reference: store.referenceFor(key) };
}

/**
 * Writes each candidate's content under a key no other content holds: the planned one when it
 * is free or already holds exactly this content, else the next free suffix. The common case
 * (nothing there yet) runs fully in parallel; only keys already taken are resolved one by one,
 * in walk order, so the choice is deterministic. For those, the taken numbered names are found
 * once per id ({@link findTakenSuffixes}), so a taken name costs a comparison (`holds`) instead of a write.
 */
async function placeExclusively(
  candidates: readonly OffloadCandidate[],
  contents: readonly string[],
  store: ContentStore,
): Promise<PlacedEntry[]> {
  const placed: Array<PlacedEntry | undefined> = new Array(candidates.length);
  const reserved = new Set(candidates.map((candidate) => candidate.fileName));
  const taken: number[] = [];
  await runConcurrently(candidates.length, WRITE_CONCURRENCY, async (index) => {
    const key = candidates[index]!.fileName;
    const outcome = await callStore(store, key, () => store.putIfAbsent(key, contents[index]!));
    if (outcome === 'exists') taken.push(index);
    else placed[index] = placedAt(store, key);
  });
  if (taken.length === 0) return placed as PlacedEntry[];
  taken.sort((left, right) => left - right);
  const listings = new Map<string, Set<string>>();
  for (const index of taken) {
    const candidate = candidates[index]!;
    let listed = listings.get(candidate.fileStem);
    if (listed === undefined) {
      listed = await findTakenSuffixes(candidate, store);
      listings.set(candidate.fileStem, listed);
    }
    placed[index] = await placeUnderNextSuffix(candidate, contents[index]!, store, { reserved, listed });
  }
  return placed as PlacedEntry[];
}

/**
 * The numbered names of one id that are taken ({@link findTakenNames}): with the store's
 * `exists`, the cost follows the uses of this id, not the size of the store.
 */
function findTakenSuffixes(candidate: OffloadCandidate, store: ContentStore): Promise<Set<string>> {
  const listPrefix = buildBatchFileName(candidate.fileStem, 0).slice(0, -'.md'.length);
  const names = {
    keyFor: (suffix: number) => buildBatchFileName(candidate.fileStem, suffix),
    listPrefix,
    maxNumber: MAX_FILE_SUFFIX,
  };
  return callStore(store, candidate.fileName, () => findTakenNames(store, names));
}

/** Keys no candidate of this call may take, and the keys the listing found. */
interface TakenKeys {
  reserved: Set<string>;
  listed: Set<string>;
}

/**
 * Writes one content whose planned key held other content, under the first suffix that
 * serves: one already holding exactly this content, else the first free one. With the store's
 * `holds`, the listed suffixes are compared in parallel (a shared directory may hold a thousand
 * uses of one id) and the lowest identical one wins, so the choice stays deterministic;
 * without it, each is tried with `putIfAbsent`.
 */
async function placeUnderNextSuffix(
  candidate: OffloadCandidate,
  content: string,
  store: ContentStore,
  keys: TakenKeys,
): Promise<PlacedEntry> {
  const holds = store.holds;
  let suffix = 1;
  while (suffix <= MAX_FILE_SUFFIX) {
    const listed: string[] = [];
    for (; suffix <= MAX_FILE_SUFFIX; suffix++) {
      const key = buildBatchFileName(candidate.fileStem, suffix);
      if (keys.reserved.has(key)) continue;
      if (holds === undefined || !keys.listed.has(key)) break;
      listed.push(key);
    }
    if (holds !== undefined && listed.length > 0) {
      const identical: boolean[] = new Array(listed.length);
      await runConcurrently(listed.length, WRITE_CONCURRENCY, async (index) => {
        const key = listed[index]!;
        identical[index] = await callStore(store, key, () => holds.call(store, key, content));
      });
      const found = listed[identical.indexOf(true)];
      if (found !== undefined) {
        keys.reserved.add(found);
        return placedAt(store, found);
      }
    }
    if (suffix > MAX_FILE_SUFFIX) break;
    const key = buildBatchFileName(candidate.fileStem, suffix);
    const outcome = await callStore(store, key, () => store.putIfAbsent(key, content));
    if (outcome !== 'exists') {
      keys.reserved.add(key);
      return placedAt(store, key);
    }
    // taken meanwhile by another writer (or, without holds, by anyone): move on
    keys.listed.add(key);
    suffix += 1;
  }
  // Only a store that never creates anything could get here; fail instead of spinning.
  throw new WriteFailedError(
    `no free file name for tool_use_id "${candidate.toolUseId}" in ${store.referenceFor(candidate.fileName)} after ${MAX_FILE_SUFFIX} tries`,
  );
}

/**
 * The batch offload into a {@link ContentStore}, with options already resolved. Keys are the
 * file names at the store's root (`tool-result-<id>.md`).
 *
 * Order of checks, all before any side effect: the history's shape (`INVALID_MESSAGE`), then
 * the gate (a skip returns the input array itself and touches nothing). An id that cannot be a
 * file name maps to one (`toFileStem`) instead of failing the call. Then the contents are
 * written; a failed write rejects with `WRITE_FAILED` (cause kept) and the input is untouched.
 * References are `./<key>` with `reference: 'relative'` (a file store), else the store's own
 * reference (`referenceFor`); `files` lists the store's references (absolute paths for files).
 */
export async function executeOffload(
  messages: readonly Message[],
  store: ContentStore,
  options: ResolvedBatchOffloadOptions,
): Promise<OffloadResult> {
  assertMessages(messages);
  // Gate first: a skip must not copy a message nor touch the disk.
  const plan = createOffloadPlan(messages, options);
  if (plan.skippedReason !== null)
    return { messages: messages as Message[], offloadedCount: 0, freedChars: 0, files: [] };

  const { candidates } = plan;
  // a candidate is a tool_result block (the plan says so)
  const blockOf = (candidate: OffloadCandidate): ToolResultBlock =>
    (messages[candidate.messageIndex]!.content as ToolResultBlock[])[candidate.blockIndex]!;
  let repairedCount = 0;
  // Written and compared well-formed: what a UTF-8 file of it reads back as, so a rerun reuses it.
  const contents = candidates.map((candidate) => {
    const content = serializeToolResultContent(blockOf(candidate).content);
    if (!hasLoneSurrogate(content)) return content;
    repairedCount += 1;
    return toWellFormedText(content);
  });

  const placed = await placeExclusively(candidates, contents, store);

  const replacementsByMessage = new Map<number, Map<number, string>>();
  candidates.forEach((candidate, index) => {
    const file = placed[index]!;
    const target = options.reference === 'relative' ? `./${file.key}` : file.reference;
    const reference = appendPreview(buildBatchReference(target), contents[index]!, options.preview);
    let replacements = replacementsByMessage.get(candidate.messageIndex);
    if (replacements === undefined) replacementsByMessage.set(candidate.messageIndex, (replacements = new Map()));
    replacements.set(candidate.blockIndex, reference);
  });
  const output = messages.map((message, index) => {
    const replacements = replacementsByMessage.get(index);
    return replacements === undefined ? message : copyMessageWithContent(message, replacements);
  });
  return {
    messages: output,
    offloadedCount: candidates.length,
    freedChars: plan.offloadableChars,
    files: placed.map((file) => file.reference),
    ...(repairedCount > 0 ? { repairedCount } : {}),
  };
}
