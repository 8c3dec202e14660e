/**
 * Large assistant text ages like a result: a text block of an assistant message over the
 * largest result sent whole (`maxInlineResultChars`) stays while it is the latest assistant
 * turn, then, once the model has moved on, goes to the store whole and keeps its reference
 * followed by its head and tail (`[Content offloaded to: ...]`, read back with the read tool).
 * Its name follows from its content (`assistant-text-<hash>.md`), so an assistant message met
 * again raw (a history rebuilt from JSON, another process) gets the same reference, with
 * nothing written. Lossless: the store holds the text exactly.
 */
import { copyMessageWithContent } from '../../offload/offload-files.js';
import { appendPreview, buildBatchReference, isOffloadReference } from '../../offload/offload-reference.js';
import { toFileStem } from '../../offload/offload-names.js';
import type { ContentStore } from '../../ports.js';
import { toWellFormedText } from '../../text/text.js';
import type { Message } from '../../types.js';
import {
  hashStored,
  storedName,
  storeContent,
  type HashedText,
  type OffloadCall,
  type OffloadStepContext,
} from './offload-steps.js';
import type { ContextOffloadAction } from '../types.js';

/** The id an assistant text is named under, in place of a tool call's: its name is `assistant-text-<hash>.md`. */
const ASSISTANT_TEXT_ID = 'assistant-text';
const ASSISTANT_TEXT_STEM = toFileStem(ASSISTANT_TEXT_ID);

/** A large text of an assistant message: its block (or `-1` for string content) and its text. */
interface LargeText {
  blockIndex: number;
  text: string;
}

/** The texts of `message` (an assistant's) of more than `maxChars` characters that are not references already. */
function findLargeTexts(message: Message, maxChars: number): LargeText[] {
  if (message.role !== 'assistant') return [];
  const large = (text: unknown): text is string =>
    typeof text === 'string' && text.length > maxChars && !isOffloadReference(text);
  if (typeof message.content === 'string')
    return large(message.content) ? [{ blockIndex: -1, text: message.content }] : [];
  const found: LargeText[] = [];
  message.content.forEach((block, blockIndex) => {
    const text: unknown = (block as { text?: unknown }).text;
    if (block.type === 'text' && large(text)) found.push({ blockIndex, text });
  });
  return found;
}

function referenceToText(name: string, hashed: HashedText, context: OffloadStepContext, store: ContentStore): string {
  const target = store.referenceFor(`${context.sessionId}/${name}`);
  return appendPreview(buildBatchReference(target), hashed.text, context.aging.cut);
}

/** `message` with its large texts replaced by `references` (by block; `-1`: the string content). */
function replaceTexts(message: Message, references: ReadonlyMap<number, string>): Message {
  const whole = references.get(-1);
  if (whole !== undefined) return { ...message, content: whole };
  return copyMessageWithContent(message, references, 'text');
}

/** Whether `message` may hold an assistant text stored before (a cheap check before {@link applyTextDecisions}). */
export function mayHoldOffloadedText(message: Message, context: OffloadStepContext): boolean {
  return message.role === 'assistant' && context.knowledge.knowsStem(ASSISTANT_TEXT_STEM);
}

/** `message` with every large text stored before put back as its reference; `message` itself when none was. Nothing is written. */
export function applyTextDecisions(message: Message, context: OffloadStepContext, store: ContentStore): Message {
  let references: Map<number, string> | undefined;
  for (const { blockIndex, text } of findLargeTexts(message, context.aging.maxInlineResultChars)) {
    const hashed = hashStored(toWellFormedText(text), context);
    const name = storedName('direct', ASSISTANT_TEXT_ID, hashed, context);
    if (context.knowledge.hasContent(name))
      (references ??= new Map()).set(blockIndex, referenceToText(name, hashed, context, store));
  }
  return references === undefined ? message : replaceTexts(message, references);
}

/**
 * Offloads the large texts of the assistant messages in `working[0, end)` (before the latest
 * assistant message: the model has moved on from them), replacing them in `working`, and
 * resolves the action (`kind: 'assistant-text'`, one reference per text), or `undefined`. A text
 * the store refuses stays inline (a later call tries again).
 */
export async function offloadOlderTexts(
  working: Message[],
  end: number,
  context: OffloadStepContext,
  call: OffloadCall,
  reason: 'aged' | 'over-trigger',
): Promise<ContextOffloadAction | undefined> {
  const action: ContextOffloadAction = {
    type: 'batch-offload',
    kind: 'assistant-text',
    reason,
    toolCallIds: [],
    references: [],
    freedChars: 0,
  };
  let learned = false;
  for (let messageIndex = 0; messageIndex < end; messageIndex += 1) {
    const message = working[messageIndex] as Message;
    const texts = findLargeTexts(message, context.aging.maxInlineResultChars);
    if (texts.length === 0) continue;
    if (!learned) await call.learn();
    learned = true;
    const references = new Map<number, string>();
    for (const { blockIndex, text } of texts) {
      const hashed = hashStored(toWellFormedText(text), context);
      let name: string;
      try {
        name = await storeContent('direct', ASSISTANT_TEXT_ID, hashed, context, call.store);
      } catch (error) {
        call.deferWrite(ASSISTANT_TEXT_ID, error);
        continue;
      }
      const reference = referenceToText(name, hashed, context, call.store);
      references.set(blockIndex, reference);
      action.references.push(reference);
      action.freedChars += text.length - reference.length;
    }
    if (references.size > 0) working[messageIndex] = replaceTexts(message, references);
  }
  if (action.references.length === 0) return undefined;
  call.acceptedWrites();
  return action;
}
