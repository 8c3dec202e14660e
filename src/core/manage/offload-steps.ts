/**
 * The offload steps of `prepare`, over the existing offload cores: decisions taken earlier are
 * re-applied to a message seen for the first time, new large results go out by direct offload,
 * older ones by batch offload. Each step records what it decided, so it never changes.
 */
import { countToolResultChars } from '../char-count.js';
import { executeDirectOffload } from '../direct-offload.js';
import { copyMessageWithContent, runConcurrently, serializeToolResultContent, WRITE_CONCURRENCY } from '../offload-files.js';
import type { ResolvedBatchOffloadOptions } from '../offload-options.js';
import { executeOffload } from '../offload.js';
import { isOffloadReference, type ResolvedPreview } from '../offload-reference.js';
import type { ContentStore } from '../ports.js';
import { isToolResultBlock, type ContentBlock, type Message, type ToolResultBlock } from '../types.js';
import { readLoneText, type DecisionLog } from './decisions.js';
import type { ContextOffloadAction } from './types.js';

/** What the offload steps work with. */
export interface OffloadStepContext {
  /** Direct offload writes `<sessionId>/<id>.md` here. */
  store: ContentStore;
  /** Batch offload writes through this view of `store`, under `<sessionId>/`. */
  sessionStore: ContentStore;
  sessionId: string;
  /** Direct offload threshold, in characters. */
  threshold: number;
  excludeTools: ReadonlySet<string>;
  preview: ResolvedPreview | null;
  batch: ResolvedBatchOffloadOptions;
  /** Call id → tool name, for `excludeTools` (per-tool hooks add to it). */
  toolNames: Map<string, string>;
  decisions: DecisionLog;
}

/** Whether `message` holds a raw result under a call id the manager offloaded before (a cheap check). */
export function mayHoldDecidedResults(message: Message, decisions: DecisionLog): boolean {
  if (typeof message.content === 'string') return false;
  return message.content.some((block) => isToolResultBlock(block) && decisions.has(block.tool_use_id) && !isOffloadReference(block.content));
}

/**
 * `message` with every result the manager already offloaded (same call id, same content) put
 * back as the reference it got then; the message itself when there is none. Nothing is written.
 */
export async function applyDecisions(message: Message, decisions: DecisionLog, store: ContentStore): Promise<Message> {
  if (typeof message.content === 'string') return message;
  let replacements: Map<number, string> | undefined;
  for (let blockIndex = 0; blockIndex < message.content.length; blockIndex += 1) {
    const block = message.content[blockIndex];
    if (!isToolResultBlock(block) || !decisions.has(block.tool_use_id) || isOffloadReference(block.content)) continue;
    const reference = await decisions.find(block.tool_use_id, block.content, store);
    if (reference !== undefined) (replacements ??= new Map()).set(blockIndex, reference);
  }
  return replacements === undefined ? message : copyMessageWithContent(message, replacements);
}

interface ChosenBlock {
  block: ToolResultBlock;
  blockIndex: number;
}

/** The results of `message` that direct offload takes; `claims` maps the ids this call took to the message that took them. */
function chooseNewResults(message: Message, context: OffloadStepContext, claims: Map<string, Message>): ChosenBlock[] {
  if (typeof message.content === 'string') return [];
  const chosen: ChosenBlock[] = [];
  message.content.forEach((block, blockIndex) => {
    if (!isToolResultBlock(block) || isOffloadReference(block.content)) return;
    if (countToolResultChars(block.content) < context.threshold) return;
    const id = block.tool_use_id;
    const toolName = context.toolNames.get(id);
    if (toolName !== undefined && context.excludeTools.has(toolName)) return;
    // direct offload overwrites `<id>.md`: an id already offloaded directly (its content was not
    // this one, or the decision would have been re-applied) is left to batch offload, which never overwrites
    const claimedBy = claims.get(id);
    if ((claimedBy !== undefined && claimedBy !== message) || context.decisions.hasDirect(id)) return;
    claims.set(id, message);
    chosen.push({ block, blockIndex });
  });
  return chosen;
}

/**
 * The stored content's length: what batch offload wrote (serialized, well-formed). Making text
 * well-formed replaces each lone surrogate by one U+FFFD, so the serialized length is that
 * length without scanning the text.
 */
function storedLength(content: unknown): number {
  return serializeToolResultContent(content).length;
}

/**
 * The stored content's length: what direct offload wrote (a lone text block's text, else
 * serialized; well-formed, which keeps the length). Nothing is serialized or scanned for a
 * lone text block, the usual shape of a large result.
 */
function storedDirectLength(content: unknown): number {
  return readLoneText(content)?.length ?? storedLength(content);
}

/**
 * `message` with each chosen result that is one text block given as its text, and the chosen
 * blocks of that copy. Direct offload then writes the text itself, which the read tool pages by
 * line, instead of one line of JSON; the blocks are replaced by their references anyway, so the
 * copy never reaches the history.
 */
function unwrapLoneTexts(message: Message, chosen: readonly ChosenBlock[]): { message: Message; selected: Set<unknown> } {
  const blocks = message.content as ContentBlock[];
  const byIndex = new Map(chosen.map((entry) => [entry.blockIndex, entry]));
  const selected = new Set<unknown>();
  let changed = false;
  const content = blocks.map((block, blockIndex) => {
    if (!byIndex.has(blockIndex)) return block;
    const text = readLoneText((block as ToolResultBlock).content);
    const given = text === undefined ? block : (((changed = true), { ...block, content: text }) as ContentBlock);
    selected.add(given);
    return given;
  });
  return { message: changed ? { ...message, content } : message, selected };
}

/**
 * Step 1: direct offload of the large results in the messages at `fresh` (first seen in this
 * call), written to `<sessionId>/<id>.md`. Replaces them in `working` and resolves the action,
 * or `undefined` when none qualified.
 */
export async function offloadNewResults(
  working: Message[],
  fresh: readonly number[],
  context: OffloadStepContext,
): Promise<ContextOffloadAction | undefined> {
  const claims = new Map<string, Message>();
  const jobs: Array<{ index: number; chosen: ChosenBlock[] }> = [];
  for (const index of fresh) {
    const chosen = chooseNewResults(working[index] as Message, context, claims);
    if (chosen.length > 0) jobs.push({ index, chosen });
  }
  if (jobs.length === 0) return undefined;

  const results: Array<{ freedChars: number; files: string[] }> = new Array(jobs.length);
  await runConcurrently(jobs.length, WRITE_CONCURRENCY, async (jobIndex) => {
    const job = jobs[jobIndex]!;
    const { message, selected } = unwrapLoneTexts(working[job.index] as Message, job.chosen);
    const result = await executeDirectOffload(message, context.sessionId, context.store, {
      preview: context.preview,
      select: (block) => selected.has(block),
    });
    working[job.index] = result.message;
    results[jobIndex] = result;
  });

  const action: ContextOffloadAction = { type: 'direct-offload', toolCallIds: [], references: [], freedChars: 0 };
  jobs.forEach((job, jobIndex) => {
    const blocks = (working[job.index] as Message).content as ContentBlock[];
    const { freedChars, files } = results[jobIndex]!;
    // `files` lists the written blocks in block order, as `chosen` does
    job.chosen.forEach((chosen, position) => {
      const reference = (blocks[chosen.blockIndex] as ToolResultBlock).content as string;
      const file = files[position];
      context.decisions.record(chosen.block.tool_use_id, {
        reference,
        key: file === undefined ? undefined : context.store.keyFor(file),
        chars: storedDirectLength(chosen.block.content),
        mode: 'direct',
      });
      action.toolCallIds.push(chosen.block.tool_use_id);
      action.references.push(reference);
    });
    action.freedChars += freedChars;
  });
  return action;
}

/**
 * Steps 2 and 3a: batch offload of `working` through the session's store view, with the
 * gate's `ratioThreshold` (0 when the history is over the trigger: offloading comes before
 * summarizing). Replaces the offloaded results in `working` and resolves the action, or
 * `undefined` when the offload skipped.
 */
export async function offloadOlderResults(
  working: Message[],
  context: OffloadStepContext,
  reason: 'ratio-gate' | 'over-trigger',
): Promise<ContextOffloadAction | undefined> {
  const options = reason === 'over-trigger' ? { ...context.batch, ratioThreshold: 0 } : context.batch;
  const result = await executeOffload(working, context.sessionStore, options);
  if (result.offloadedCount === 0) return undefined;
  const action: ContextOffloadAction = { type: 'batch-offload', reason, toolCallIds: [], references: [], freedChars: 0 };
  // `files` lists the store's references in walk order, the order the blocks are met here
  let position = 0;
  result.messages.forEach((message, index) => {
    const before = working[index] as Message;
    if (message === before) return;
    const oldBlocks = before.content as ContentBlock[];
    (message.content as ContentBlock[]).forEach((block, blockIndex) => {
      const old = oldBlocks[blockIndex];
      // untouched blocks of a changed message are deep copies: tell offloaded ones by their new reference
      if (!isToolResultBlock(block) || !isToolResultBlock(old) || typeof block.content !== 'string') return;
      if (old.content === block.content || !isOffloadReference(block.content) || isOffloadReference(old.content)) return;
      const reference = block.content;
      const file = result.files[position++];
      context.decisions.record(old.tool_use_id, {
        reference,
        key: file === undefined ? undefined : context.store.keyFor(file),
        chars: storedLength(old.content),
        mode: 'batch',
      });
      action.toolCallIds.push(old.tool_use_id);
      action.references.push(reference);
      action.freedChars += countToolResultChars(old.content) - reference.length;
    });
    working[index] = message;
  });
  return action;
}
