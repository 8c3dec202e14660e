/**
 * Large tool inputs: a string field of an older tool call's input (a written file's content, an
 * edit's old and new text) of at least `threshold` characters goes to the store like a result,
 * under `tool-input-<stem>-<hash>.md`, and the field keeps the reference
 * (`[Content offloaded to: ...]`). Inputs go with the batches that offload older results, so
 * they change the prompt prefix no more often; the calls of the last assistant message (the
 * ones whose results are the newest) are left as they are. A name follows from the content, so
 * a raw input met again (a history rebuilt from JSON, another process) gets the same reference.
 *
 * Left as they are: an input that is not an object; a field that is a reference already; and
 * every call of a message one of whose calls has an empty input, since that is what an OpenAI
 * call whose `arguments` are not JSON reads as, and rebuilding the message would lose its text.
 */
import { describeError } from '../../errors.js';
import { copyDeep, copyMessageWithContent } from '../../offload/offload-files.js';
import { toFileStem } from '../../offload/offload-names.js';
import { isOffloadReference } from '../../offload/offload-reference.js';
import type { ContentStore } from '../../ports.js';
import { toWellFormedText } from '../../text/text.js';
import { isToolUseBlock, type Message, type ToolUseBlock } from '../../types.js';
import {
  hashStored,
  referenceTo,
  storedName,
  storeContent,
  type HashedText,
  type OffloadCall,
  type OffloadStepContext,
} from './offload-steps.js';
import type { ContextOffloadAction } from '../types.js';

/** Deepest input nesting searched for large strings (an edit list's entries sit at depth 3). */
const MAX_INPUT_DEPTH = 8;

/** A large string of an input, and where it is. */
interface LargeField {
  path: ReadonlyArray<string | number>;
  text: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** The strings of at least `threshold` characters in `value`, references left out, walked {@link MAX_INPUT_DEPTH} deep. */
function findLargeFields(
  value: unknown,
  threshold: number,
  path: Array<string | number> = [],
  into: LargeField[] = [],
): LargeField[] {
  if (typeof value === 'string') {
    if (value.length >= threshold && !isOffloadReference(value)) into.push({ path: [...path], text: value });
  } else if (path.length < MAX_INPUT_DEPTH && (Array.isArray(value) || isPlainObject(value))) {
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      path.push(key);
      findLargeFields(item, threshold, path, into);
      path.pop();
    }
  }
  return into;
}

/** A copy of `input` with the string at each field's path replaced by its reference. */
function replaceFields(
  input: Record<string, unknown>,
  replacements: ReadonlyArray<{ path: ReadonlyArray<string | number>; reference: string }>,
): Record<string, unknown> {
  const copy = copyDeep(input);
  for (const { path, reference } of replacements) {
    let container: Record<string | number, unknown> = copy;
    for (const key of path.slice(0, -1)) container = container[key] as Record<string | number, unknown>;
    Object.defineProperty(container, path[path.length - 1] as string | number, {
      value: reference,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return copy;
}

/** The tool calls of `message` whose inputs may be offloaded: none when one of them has an input that is not a non-empty object. */
function offloadableCalls(message: Message): Array<{ blockIndex: number; block: ToolUseBlock }> {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  const calls: Array<{ blockIndex: number; block: ToolUseBlock }> = [];
  for (const [blockIndex, block] of message.content.entries()) {
    if (!isToolUseBlock(block)) continue;
    const input: unknown = block.input;
    if (!isPlainObject(input) || Object.keys(input).length === 0) return [];
    calls.push({ blockIndex, block });
  }
  return calls;
}

/** Characters of the large input strings of the tool calls in `message`: what offloading its inputs would take out. */
export function countLargeInputChars(message: Message, threshold: number): number {
  let chars = 0;
  for (const { block } of offloadableCalls(message))
    for (const field of findLargeFields(block.input, threshold)) chars += field.text.length;
  return chars;
}

/** The stored form of a field: its well-formed text and that text's hash. */
function hashField(field: LargeField, context: OffloadStepContext): HashedText {
  return hashStored(toWellFormedText(field.text), context);
}

/** Whether `message` may hold a tool call whose input fields were offloaded before (a call id with a stored name); a cheap check. */
export function mayHoldOffloadedInputs(message: Message, context: OffloadStepContext): boolean {
  if (message.role !== 'assistant' || typeof message.content === 'string') return false;
  return message.content.some((block) => isToolUseBlock(block) && context.knowledge.knowsStem(toFileStem(block.id)));
}

/** `message` with every large input field stored before put back as its reference; `message` itself when none was. Nothing is written. */
export function applyInputDecisions(message: Message, context: OffloadStepContext, store: ContentStore): Message {
  let inputs: Map<number, Record<string, unknown>> | undefined;
  for (const { blockIndex, block } of offloadableCalls(message)) {
    if (!context.knowledge.knowsStem(toFileStem(block.id))) continue;
    const replacements = [];
    for (const field of findLargeFields(block.input, context.threshold)) {
      const hashed = hashField(field, context);
      const name = storedName('input', block.id, hashed, context);
      if (context.knowledge.hasContent(name))
        replacements.push({ path: field.path, reference: referenceTo('input', name, hashed.text, context, store) });
    }
    if (replacements.length > 0) (inputs ??= new Map()).set(blockIndex, replaceFields(block.input, replacements));
  }
  return inputs === undefined ? message : copyMessageWithContent(message, inputs, 'input');
}

/**
 * Offloads the large string fields of the tool call inputs in `working[0, end)` (the messages
 * before the last assistant message), replacing those messages in `working`, and resolves the
 * action (`toolCallIds`: the calls, `references`: one per field), or `undefined`. A call whose
 * field cannot be written keeps its whole input inline, with a warning: nothing is lost.
 */
export async function offloadOlderInputs(
  working: Message[],
  end: number,
  context: OffloadStepContext,
  call: OffloadCall & { readonly signal?: AbortSignal | undefined },
  reason: 'aged' | 'ratio-gate' | 'over-trigger',
): Promise<ContextOffloadAction | undefined> {
  const action: ContextOffloadAction = {
    type: 'input-offload',
    reason,
    toolCallIds: [],
    references: [],
    freedChars: 0,
  };
  let learned = false;
  for (let messageIndex = 0; messageIndex < end; messageIndex += 1) {
    const message = working[messageIndex] as Message;
    let inputs: Map<number, Record<string, unknown>> | undefined;
    for (const { blockIndex, block } of offloadableCalls(message)) {
      const fields = findLargeFields(block.input, context.threshold);
      if (fields.length === 0) continue;
      if (!learned) await call.learn();
      learned = true;
      const replacements: Array<{ path: ReadonlyArray<string | number>; reference: string }> = [];
      try {
        for (const field of fields) {
          const hashed = hashField(field, context);
          const name = await storeContent('input', block.id, hashed, context, call.store);
          replacements.push({
            path: field.path,
            reference: referenceTo('input', name, hashed.text, context, call.store),
          });
        }
      } catch (error) {
        if (call.signal?.aborted) throw error;
        context.logger.warn(
          `context manager: the input of tool call "${block.id}" stays inline, its offload failed (${describeError(error)})`,
        );
        continue;
      }
      (inputs ??= new Map()).set(blockIndex, replaceFields(block.input, replacements));
      action.toolCallIds.push(block.id);
      for (const [index, { reference }] of replacements.entries()) {
        action.references.push(reference);
        action.freedChars += (fields[index] as LargeField).text.length - reference.length;
      }
    }
    if (inputs !== undefined) working[messageIndex] = copyMessageWithContent(message, inputs, 'input');
  }
  return action.toolCallIds.length === 0 ? undefined : action;
}
