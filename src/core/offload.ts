/**
 * Batch offload (specs 01-03, DESIGN §3): gate first, then the oldest-to-newest walk that writes
 * each large `tool_result` to a file and puts a reference in its place.
 */
import type { Message, ToolResultBlock } from './types.js';
import type { FileWriter } from './ports.js';
import { resolveOutputDir, type ResolvedBatchOffloadOptions } from './offload-options.js';
import { appendPreview, buildBatchReference } from './offload-reference.js';
import {
  callWriter,
  copyMessageWithContent,
  resolveFilePath,
  runConcurrently,
  serializeToolResultContent,
  WRITE_CONCURRENCY,
} from './offload-files.js';
import { buildBatchFileName } from './offload-names.js';
import { createOffloadPlan, type OffloadCandidate } from './plan-offload.js';
import { WriteFailedError } from './errors.js';
import { hasLoneSurrogate, toWellFormedText } from './text.js';
import { assertMessages } from './validate-messages.js';

/** The result of a batch offload (spec 01 F-004). */
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
  /** Path of each offloaded block's file, in walk order: absolute with the Node writer. */
  files: string[];
  /**
   * Offloaded blocks whose text held lone surrogates (half of a UTF-16 pair, which no UTF-8
   * file can hold): each was written with U+FFFD in their place, as any UTF-8 writer would,
   * and a rerun finds that file identical. Present only when there was one, so the result
   * keeps spec 01's exact shape otherwise.
   */
  repairedCount?: number;
}

/** Suffixes tried for one block before giving up. */
const MAX_FILE_SUFFIX = 100_000;

interface PlacedFile {
  name: string;
  path: string;
}

type ExclusiveWriter = FileWriter & Required<Pick<FileWriter, 'createExclusive'>>;

/**
 * Writes each candidate's content under a name no other content holds: the planned name when
 * it is free or already holds exactly this content, else the next free suffix. Needs the
 * writer's `createExclusive`; the common case (nothing on disk) runs fully in parallel, and only
 * names taken on disk are resolved one by one, in walk order, so the choice is deterministic.
 * For those, the directory is listed once (with `listDir`), so a name already on disk costs a
 * comparison (`holdsContent`) instead of a temporary copy of the content.
 */
async function placeExclusively(
  candidates: readonly OffloadCandidate[],
  contents: readonly string[],
  outputDir: string,
  writer: ExclusiveWriter,
): Promise<PlacedFile[]> {
  const placed: Array<PlacedFile | undefined> = new Array(candidates.length);
  const reserved = new Set(candidates.map((candidate) => candidate.fileName));
  const taken: number[] = [];
  await runConcurrently(candidates.length, WRITE_CONCURRENCY, async (index) => {
    const name = candidates[index]!.fileName;
    const path = resolveFilePath(writer, outputDir, name);
    const outcome = await callWriter(path, () => writer.createExclusive(path, contents[index]!));
    if (outcome === 'exists') taken.push(index);
    else placed[index] = { name, path };
  });
  if (taken.length === 0) return placed as PlacedFile[];
  taken.sort((left, right) => left - right);
  const listDir = writer.listDir;
  const onDisk = new Set(listDir === undefined ? [] : await callWriter(outputDir, () => listDir.call(writer, outputDir)));
  for (const index of taken) {
    placed[index] = await placeUnderNextSuffix(candidates[index]!, contents[index]!, outputDir, writer, { reserved, onDisk });
  }
  return placed as PlacedFile[];
}

/** Names no candidate of this call may take, and the names the one listing found on disk. */
interface TakenNames {
  reserved: Set<string>;
  onDisk: Set<string>;
}

/**
 * Writes one content whose planned name held other content, under the first suffix that
 * serves: one already holding exactly this content, else the first free one. With
 * `holdsContent`, the suffixes the listing found are compared in parallel (a shared directory
 * may hold a thousand uses of one id) and the lowest identical one wins, so the choice stays
 * deterministic; without it, each is tried with `createExclusive`.
 */
async function placeUnderNextSuffix(
  candidate: OffloadCandidate,
  content: string,
  outputDir: string,
  writer: ExclusiveWriter,
  names: TakenNames,
): Promise<PlacedFile> {
  const holdsContent = writer.holdsContent;
  let suffix = 1;
  while (suffix <= MAX_FILE_SUFFIX) {
    const listed: PlacedFile[] = [];
    for (; suffix <= MAX_FILE_SUFFIX; suffix++) {
      const name = buildBatchFileName(candidate.fileStem, suffix);
      if (names.reserved.has(name)) continue;
      if (holdsContent === undefined || !names.onDisk.has(name)) break;
      listed.push({ name, path: resolveFilePath(writer, outputDir, name) });
    }
    if (holdsContent !== undefined && listed.length > 0) {
      const identical: boolean[] = new Array(listed.length);
      await runConcurrently(listed.length, WRITE_CONCURRENCY, async (index) => {
        const { path } = listed[index]!;
        identical[index] = await callWriter(path, () => holdsContent.call(writer, path, content));
      });
      const found = listed[identical.indexOf(true)];
      if (found !== undefined) {
        names.reserved.add(found.name);
        return found;
      }
    }
    if (suffix > MAX_FILE_SUFFIX) break;
    const name = buildBatchFileName(candidate.fileStem, suffix);
    const path = resolveFilePath(writer, outputDir, name);
    const outcome = await callWriter(path, () => writer.createExclusive(path, content));
    if (outcome !== 'exists') {
      names.reserved.add(name);
      return { name, path };
    }
    // taken meanwhile by another writer (or, without holdsContent, by anyone): move on
    names.onDisk.add(name);
    suffix += 1;
  }
  // Only a writer that never creates anything could get here; fail instead of spinning.
  throw new WriteFailedError(`no free file name for tool_use_id "${candidate.toolUseId}" in ${outputDir} after ${MAX_FILE_SUFFIX} tries`);
}

/** Spec 01's two-method writer: plain writes under the planned names. */
async function placeWithPlainWrites(
  candidates: readonly OffloadCandidate[],
  contents: readonly string[],
  outputDir: string,
  writer: FileWriter,
): Promise<PlacedFile[]> {
  const placed = candidates.map((candidate) => ({
    name: candidate.fileName,
    path: resolveFilePath(writer, outputDir, candidate.fileName),
  }));
  await runConcurrently(placed.length, WRITE_CONCURRENCY, async (index) => {
    const { path } = placed[index]!;
    await callWriter(path, () => writer.writeFile(path, contents[index]!));
  });
  return placed;
}

function hasExclusiveCreate(writer: FileWriter): writer is ExclusiveWriter {
  return typeof writer.createExclusive === 'function';
}

/**
 * The batch offload over the {@link FileWriter} port, with options already resolved.
 *
 * Order of checks, all before any side effect: the history's shape (`INVALID_MESSAGE`), then
 * the gate (a skip returns the input array itself and touches nothing). An id that cannot be a
 * file name maps to one (`toFileStem`) instead of failing the call. Then the directory is created and the files written; a failed write
 * rejects with `WRITE_FAILED` (cause kept) and the input is untouched.
 */
export async function executeOffload(
  messages: readonly Message[],
  outputDir: string,
  writer: FileWriter,
  options: ResolvedBatchOffloadOptions,
): Promise<OffloadResult> {
  resolveOutputDir(outputDir);
  assertMessages(messages);
  // Gate first: a skip must not copy a message nor touch the disk (spec 03).
  const plan = createOffloadPlan(messages, options);
  if (plan.skippedReason !== null) return { messages: messages as Message[], offloadedCount: 0, freedChars: 0, files: [] };

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

  await callWriter(outputDir, () => writer.ensureDir(outputDir));
  const placed = hasExclusiveCreate(writer)
    ? await placeExclusively(candidates, contents, outputDir, writer)
    : await placeWithPlainWrites(candidates, contents, outputDir, writer);

  const replacementsByMessage = new Map<number, Map<number, string>>();
  candidates.forEach((candidate, index) => {
    const file = placed[index]!;
    const target = options.reference === 'relative' ? `./${file.name}` : file.path;
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
    files: placed.map((file) => file.path),
    ...(repairedCount > 0 ? { repairedCount } : {}),
  };
}
