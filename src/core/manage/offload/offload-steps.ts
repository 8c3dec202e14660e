/**
 * The offload steps of `prepare`. Every name the manager writes follows from the content
 * (`<id>-<hash>.md` for a direct offload, `tool-result-<id>-<hash>.md` for a batch offload, see
 * `content-names.ts`), so the session's folder is itself the record of what was offloaded: a raw
 * result met again, in this process or another, gets the reference it got then as soon as its
 * name is known, and nothing is written again. New large results go out by direct offload, older
 * ones by batch offload; a result that reads offloaded content back stays inline.
 */
import { countToolResultChars } from '../../text/char-count.js';
import { WriteFailedError } from '../../errors.js';
import {
  callStore,
  copyMessageWithContent,
  runConcurrently,
  serializeToolResultContent,
  WRITE_CONCURRENCY,
} from '../../offload/offload-files.js';
import type { ResolvedBatchOffloadOptions } from '../../options/offload-options.js';
import { toFileStem } from '../../offload/offload-names.js';
import {
  appendErrorLine,
  appendPreview,
  buildBatchReference,
  buildDirectReference,
  isOffloadReference,
  type ResolvedPreview,
} from '../../offload/offload-reference.js';
import { createOffloadPlan, type OffloadPlan } from '../../offload/plan-offload.js';
import { DEFAULT_READ_MAX_CHARS } from '../../read/read-offloaded.js';
import type { ContentStore, Logger } from '../../ports.js';
import { toWellFormedText } from '../../text/text.js';
import { isToolResultBlock, type Message, type ToolResultBlock } from '../../types.js';
import { renderResultText } from '../../compact/summary/conversation-facts.js';
import { findPrintedErrorLine } from '../../compact/summary/error-lines.js';
import { buildCollisionName, buildContentName, CONTENT_HASH_CHARS, type OffloadMode } from './content-names.js';
import { sha256Hex, type Hashing } from '../records/fingerprint.js';
import type { OffloadTiming, ResolvedAgingOptions } from '../manager-options.js';
import type { ReadBackCalls } from '../read-back.js';
import type { SessionKnowledge } from '../records/session-knowledge.js';
import type { ContextOffloadAction } from '../types.js';

/** Names tried after a name held other content, before giving up. */
const MAX_COLLISION_ATTEMPTS = 100;

/** What the offload steps work with, for the whole life of a session's manager. */
export interface OffloadStepContext {
  sessionId: string;
  /** Direct offload threshold, in characters. */
  threshold: number;
  excludeTools: ReadonlySet<string>;
  /** The preview that follows a batch reference, or `null`. */
  preview: ResolvedPreview | null;
  /** What follows a direct reference: the preview, or (as results age) the head and tail of a cut result. */
  directPreview: ResolvedPreview | null;
  batch: ResolvedBatchOffloadOptions;
  /** When results go to the store, and the settings of `'as-they-age'`. */
  timing: OffloadTiming;
  aging: ResolvedAgingOptions;
  /** Call id → tool name, for `excludeTools` (per-tool hooks add to it). */
  toolNames: Map<string, string>;
  readBacks: ReadBackCalls;
  knowledge: SessionKnowledge;
  hashing: Hashing;
  /** Names this manager had to move after a collision: the first name → the one written. */
  moved: Map<string, string>;
  /** Tools that read files: one of them returning content stored in the session read it back. */
  readToolNames: ReadonlySet<string>;
  /** Where an input whose offload failed (it stays inline) is reported. */
  logger: Logger;
}

/** What one `prepare` call gives the offload steps. */
export interface OffloadCall {
  /** The store, its calls raced against the call's signal. */
  store: ContentStore;
  /** Lists the session's folder once in this call (what other processes stored), when it has not been. */
  learn(): Promise<void>;
  /**
   * Reports a new offload the store refused: the result stays inline in this call (a later call
   * tries again). Throws the signal's reason when the call was aborted.
   */
  deferWrite(toolCallId: string, error: unknown): void;
  /** Reports that the store took this call's offloads (after refusing earlier ones, its warning may be given again). */
  acceptedWrites(): void;
}

/**
 * The text a result is stored as, by either offload mode: a string as it is; blocks that are all
 * text as their texts, a blank line between two blocks (what the agent reads back with `cat` or
 * its file tool is the output, not its JSON); any other content (an image among the blocks) as
 * the blocks' JSON. `legacy` is the JSON a batch offload wrote of all-text blocks before, when it
 * differs: a raw result met again is looked up under that name too. Well-formed.
 */
export interface StoredTexts {
  text: string;
  legacy: string | undefined;
}

/** The texts of `content` joined by a blank line when every block is a text block; `undefined` otherwise. */
function readAllText(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return undefined;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== 'text' || typeof text !== 'string') return undefined;
    texts.push(text);
  }
  return texts.join('\n\n');
}

/** The text `content` is stored as, and the one an earlier version stored it as (see {@link StoredTexts}). */
export function readStoredTexts(content: unknown): StoredTexts {
  const allText = typeof content === 'string' ? content : readAllText(content);
  if (allText === undefined) return { text: toWellFormedText(serializeToolResultContent(content)), legacy: undefined };
  const text = toWellFormedText(allText);
  const legacy = typeof content === 'string' ? undefined : toWellFormedText(serializeToolResultContent(content));
  return { text, legacy };
}

/** A result as the steps see it: its text in the mode at hand, and that text's hash (computed once). */
export interface HashedText {
  text: string;
  hash: string;
}

export function hashStored(text: string, context: OffloadStepContext): HashedText {
  return { text, hash: sha256Hex(context.hashing, text) };
}

/** The name a content has in the folder: the one it follows from, or the one it was moved to. */
export function storedName(
  mode: OffloadMode,
  toolUseId: string,
  hashed: HashedText,
  context: OffloadStepContext,
): string {
  const name = buildContentName(mode, toolUseId, hashed.hash);
  return context.moved.get(name) ?? name;
}

/**
 * The line of a result that says what went wrong, when it reports a failure (marked, or printed
 * by a tool that prints its own errors): it follows the result's reference. It follows from the
 * result alone, so a result met again gets the reference it got.
 */
function findResultErrorLine(block: ToolResultBlock, context: OffloadStepContext): string | undefined {
  return findPrintedErrorLine(
    renderResultText(block.content),
    block.is_error === true,
    context.toolNames.get(block.tool_use_id),
  );
}

/**
 * Characters of a page a cut result's paging line counts with: half of the largest new result
 * sent whole (a page read back follows a summary whole), at most what the read tool answers at once.
 */
function pageCharsOf(context: OffloadStepContext): number {
  return Math.max(1, Math.min(DEFAULT_READ_MAX_CHARS, Math.floor(context.aging.maxInlineResultChars / 2)));
}

/**
 * The reference text to a content stored under `name`: the mode's reference line, the result's
 * error line when it printed one (`errorLine`), and the preview when asked for (never for an
 * input field). A direct reference whose preview leaves part of the content out says how to read
 * it in pages. A read-back (`readBack`: the model asked to see that content) stored by direct
 * offload was cut to follow a summary: it shows at least the cut's head and tail, whatever the
 * timing, so the model never gets a bare reference to what it asked to see.
 */
export function referenceTo(
  mode: OffloadMode,
  name: string,
  text: string,
  context: OffloadStepContext,
  store: ContentStore,
  errorLine?: string,
  readBack = false,
): string {
  const target = store.referenceFor(`${context.sessionId}/${name}`);
  if (mode === 'input') return buildBatchReference(target);
  const reference = appendErrorLine(
    mode === 'direct' ? buildDirectReference(target) : buildBatchReference(target),
    errorLine,
  );
  if (mode === 'batch') return appendPreview(reference, text, context.preview);
  const preview = context.directPreview ?? (readBack ? context.aging.cut : null);
  return appendPreview(reference, text, preview, pageCharsOf(context));
}

/**
 * The reference a raw result got when it was offloaded (same call id, same content), in either
 * mode; `undefined` when its name is not in the folder as far as the manager knows. The content
 * is hashed only when some stored name belongs to its call id.
 */
function findOffloadedReference(
  block: ToolResultBlock,
  context: OffloadStepContext,
  store: ContentStore,
): string | undefined {
  if (isOffloadReference(block.content) || !context.knowledge.knowsStem(toFileStem(block.tool_use_id)))
    return undefined;
  const texts = readStoredTexts(block.content);
  const hashed = hashStored(texts.text, context);
  const candidates: Array<[OffloadMode, HashedText]> = [
    ['direct', hashed],
    ['batch', hashed],
  ];
  if (texts.legacy !== undefined) candidates.push(['batch', hashStored(texts.legacy, context)]);
  for (const [mode, candidate] of candidates) {
    const name = storedName(mode, block.tool_use_id, candidate, context);
    if (context.knowledge.hasContent(name))
      return referenceTo(
        mode,
        name,
        candidate.text,
        context,
        store,
        findResultErrorLine(block, context),
        context.readBacks.has(block.tool_use_id),
      );
  }
  return undefined;
}

/** Whether `message` holds a raw result whose call id has a stored name (a cheap check before {@link applyDecisions}). */
export function mayHoldOffloadedResults(message: Message, context: OffloadStepContext): boolean {
  if (typeof message.content === 'string') return false;
  return message.content.some(
    (block) =>
      isToolResultBlock(block) &&
      context.knowledge.knowsStem(toFileStem(block.tool_use_id)) &&
      !isOffloadReference(block.content),
  );
}

/** `message` with every raw result that was offloaded before put back as its reference; `message` itself when none was. Nothing is written. */
export function applyDecisions(message: Message, context: OffloadStepContext, store: ContentStore): Message {
  if (typeof message.content === 'string') return message;
  let replacements: Map<number, string> | undefined;
  message.content.forEach((block, blockIndex) => {
    if (!isToolResultBlock(block)) return;
    const reference = findOffloadedReference(block, context, store);
    if (reference !== undefined) (replacements ??= new Map()).set(blockIndex, reference);
  });
  return replacements === undefined ? message : copyMessageWithContent(message, replacements);
}

/**
 * Writes `hashed.text` under its name unless the folder has it already (known by name: never
 * uploaded again to learn it is identical), and resolves the name it is stored under. Another
 * content under that name (a collision of 64 bits) moves it to the next free `~n` name.
 */
export async function storeContent(
  mode: OffloadMode,
  toolUseId: string,
  hashed: HashedText,
  context: OffloadStepContext,
  store: ContentStore,
): Promise<string> {
  const first = buildContentName(mode, toolUseId, hashed.hash);
  let name = context.moved.get(first) ?? first;
  if (context.knowledge.hasContent(name)) return name;
  for (let attempt = 1; attempt <= MAX_COLLISION_ATTEMPTS; attempt += 1) {
    const key = `${context.sessionId}/${name}`;
    const outcome = await callStore(store, key, () => store.putIfAbsent(key, hashed.text));
    if (outcome !== 'exists') {
      context.knowledge.addContent(name);
      if (name !== first) context.moved.set(first, name);
      return name;
    }
    name = buildCollisionName(first, attempt);
  }
  throw new WriteFailedError(
    `no free name for the ${mode === 'input' ? 'input' : 'result'} of tool call "${toolUseId}" in ${store.referenceFor(`${context.sessionId}/${first}`)}`,
  );
}

/** A result chosen for offload: where it is, and its text in the mode at hand. */
interface Chosen {
  messageIndex: number;
  blockIndex: number;
  block: ToolResultBlock;
  hashed: HashedText;
}

/**
 * Writes the chosen results (in parallel, bounded), replaces them in `working` by their
 * references, and builds the action; a result whose write fails stays inline
 * ({@link OffloadCall.deferWrite}). Unless `readBacksToo` (results the model has seen, aging
 * out), a read-back stays inline and is not part of the action: a call whose input names the
 * session's folder, or a result of a file-reading tool whose content is already stored under
 * another call's name. Another tool printing the same output again (a re-run) is offloaded as usual.
 */
async function offloadChosen(
  working: Message[],
  chosen: Chosen[],
  mode: OffloadMode,
  action: ContextOffloadAction,
  context: OffloadStepContext,
  call: OffloadCall,
  readBacksToo = false,
): Promise<ContextOffloadAction | undefined> {
  await call.learn();
  const kept = chosen.filter((entry) => {
    if (readBacksToo) return true;
    const id = entry.block.tool_use_id;
    if (context.readBacks.has(id)) return false;
    const toolName = context.toolNames.get(id);
    if (toolName === undefined || !context.readToolNames.has(toolName)) return true;
    const own = storedName(mode, id, entry.hashed, context);
    return (
      context.knowledge.hasContent(own) ||
      !context.knowledge.knowsContentHash(entry.hashed.hash.slice(0, CONTENT_HASH_CHARS))
    );
  });
  if (kept.length === 0) return undefined;
  const names: (string | undefined)[] = new Array(kept.length);
  await runConcurrently(kept.length, WRITE_CONCURRENCY, async (index) => {
    const entry = kept[index]!;
    try {
      names[index] = await storeContent(mode, entry.block.tool_use_id, entry.hashed, context, call.store);
    } catch (error) {
      // a store that refuses writes (a full disk) holds only new offloads back: the result stays inline
      call.deferWrite(entry.block.tool_use_id, error);
    }
  });
  const byMessage = new Map<number, Map<number, string>>();
  kept.forEach((entry, index) => {
    const name = names[index];
    if (name === undefined) return;
    const reference = referenceTo(
      mode,
      name,
      entry.hashed.text,
      context,
      call.store,
      findResultErrorLine(entry.block, context),
      context.readBacks.has(entry.block.tool_use_id),
    );
    let replacements = byMessage.get(entry.messageIndex);
    if (replacements === undefined) byMessage.set(entry.messageIndex, (replacements = new Map()));
    replacements.set(entry.blockIndex, reference);
    action.toolCallIds.push(entry.block.tool_use_id);
    action.references.push(reference);
    action.freedChars += countToolResultChars(entry.block.content) - reference.length;
  });
  if (byMessage.size === 0) return undefined;
  call.acceptedWrites();
  for (const [messageIndex, replacements] of byMessage)
    working[messageIndex] = copyMessageWithContent(working[messageIndex] as Message, replacements);
  return action;
}

/**
 * Step 1: direct offload of the raw results of at least `minChars` characters in the messages
 * at `indices` (on arrival: those first seen in this call, from `threshold`; as results age: the
 * newest, from `maxInlineResultChars + 1`, cut to reference, head and tail by the context's
 * direct preview), unless their tool is excluded or (unless `readBacksToo`: the exchange in
 * flight cut to follow a summary) they read offloaded content back. Replaces them in `working`
 * and resolves the action, or `undefined`.
 */
export async function offloadNewResults(
  working: Message[],
  indices: readonly number[],
  minChars: number,
  context: OffloadStepContext,
  call: OffloadCall,
  readBacksToo = false,
): Promise<ContextOffloadAction | undefined> {
  const chosen: Chosen[] = [];
  for (const messageIndex of indices) {
    const message = working[messageIndex] as Message;
    if (typeof message.content === 'string') continue;
    message.content.forEach((block, blockIndex) => {
      if (
        !isToolResultBlock(block) ||
        isOffloadReference(block.content) ||
        countToolResultChars(block.content) < minChars
      )
        return;
      const toolName = context.toolNames.get(block.tool_use_id);
      if (toolName !== undefined && context.excludeTools.has(toolName)) return;
      chosen.push({
        messageIndex,
        blockIndex,
        block,
        hashed: hashStored(readStoredTexts(block.content).text, context),
      });
    });
  }
  if (chosen.length === 0) return undefined;
  return offloadChosen(
    working,
    chosen,
    'direct',
    { type: 'direct-offload', toolCallIds: [], references: [], freedChars: 0 },
    context,
    call,
    readBacksToo,
  );
}

/**
 * Steps 2 and 3a: batch offload of `working` (the gate's `ratioThreshold`, or none when the
 * history is over the trigger: offloading comes before summarizing), read-backs left inline.
 * Replaces the offloaded results in `working` and resolves the action, or `undefined`.
 */
export async function offloadOlderResults(
  working: Message[],
  context: OffloadStepContext,
  call: OffloadCall,
  reason: 'ratio-gate' | 'over-trigger',
): Promise<ContextOffloadAction | undefined> {
  const options = reason === 'over-trigger' ? { ...context.batch, ratioThreshold: 0 } : context.batch;
  return offloadPlanned(working, createOffloadPlan(working, options), context, call, reason);
}

/**
 * Batch offload of the candidates of `plan` (made over `working`, or over its start): replaces
 * them in `working` and resolves the action, or `undefined` when the plan skips or nothing went.
 * `readBacksToo`: see {@link offloadChosen}.
 */
export async function offloadPlanned(
  working: Message[],
  plan: OffloadPlan,
  context: OffloadStepContext,
  call: OffloadCall,
  reason: NonNullable<ContextOffloadAction['reason']>,
  readBacksToo = false,
): Promise<ContextOffloadAction | undefined> {
  if (plan.skippedReason !== null) return undefined;
  const chosen: Chosen[] = plan.candidates.map(({ messageIndex, blockIndex }) => {
    const block = (working[messageIndex]!.content as ToolResultBlock[])[blockIndex]!;
    return { messageIndex, blockIndex, block, hashed: hashStored(readStoredTexts(block.content).text, context) };
  });
  if (chosen.length === 0) return undefined;
  const action: ContextOffloadAction = {
    type: 'batch-offload',
    reason,
    toolCallIds: [],
    references: [],
    freedChars: 0,
  };
  return offloadChosen(working, chosen, 'batch', action, context, call, readBacksToo);
}

/**
 * Offloads one output of a per-tool hook (direct offload of a text as it arrives) and resolves
 * its reference, or `undefined` when it stays inline (content read back).
 */
export async function offloadOneOutput(
  output: string,
  toolUseId: string,
  context: OffloadStepContext,
  call: OffloadCall,
): Promise<{ reference: string; freedChars: number } | undefined> {
  const hashed = hashStored(toWellFormedText(output), context);
  const working: Message[] = [
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: output }] },
  ];
  const block = (working[0]!.content as ToolResultBlock[])[0]!;
  const action = await offloadChosen(
    working,
    [{ messageIndex: 0, blockIndex: 0, block, hashed }],
    'direct',
    { type: 'direct-offload', toolCallIds: [], references: [], freedChars: 0 },
    context,
    call,
  );
  if (action === undefined) return undefined;
  return { reference: action.references[0] as string, freedChars: action.freedChars };
}
