/**
 * What every adapter but the identity one shares: per-object memoization of `toCanonical`, the
 * way back to the caller's own objects in `fromCanonical`, and the rebuild of a message whose
 * tool outputs alone changed on the original at the same index. An adapter only says how one
 * message converts each way ({@link FormatCodec}).
 */
import { isDeepEqual } from '../core/util/deep-equal.js';
import type { MessageFormat } from '../core/format.js';
import type { ContentBlock, Message, ToolResultBlock } from '../core/types.js';
import { assertCanonicalMessage, fieldsOf, isRecord, type Fields } from './fields.js';

/** A `tool_result` block of a canonical message that differs from the original's at the same place. */
export interface ToolOutputChange {
  /** The block's index in the canonical message's content. */
  blockIndex: number;
  /** The canonical block as it is now (its `content`, maybe its `is_error`, changed). */
  block: ToolResultBlock;
}

/** What an adapter may need to build a message of its format from a canonical one. */
export interface BuildContext<M> {
  /** The name of the tool call `toolUseId` in the canonical history, for formats whose tool results carry it. */
  toolNameOf(toolUseId: string): string | undefined;
  /** The caller's own history, when given. */
  readonly original: readonly M[] | undefined;
  /** The index of the canonical message being built, for error messages. */
  readonly index: number;
}

/** How one message of a format converts each way; {@link defineMessageFormat} does the rest. */
export interface FormatCodec<M> {
  readonly name: string;
  /** Whether one message has this format's shape (a cheap check, for detection). */
  matches(message: unknown): boolean;
  /** The canonical message for one message; `INVALID_MESSAGE` naming `messages[index]` and the field when it is not in this format. */
  toCanonical(message: unknown, index: number): Message;
  /**
   * Messages of this format for a canonical message no original stands for: usually one, several
   * when one message of this format cannot hold it (a user turn holding two tool results, say).
   */
  fromCanonical(message: Message, context: BuildContext<M>): M[];
  /**
   * A copy of `original` with the tool outputs of `changes` replaced, every other field kept;
   * `undefined` when `original` holds no such output (the message is then built fresh).
   */
  replaceToolOutputs(original: M, changes: readonly ToolOutputChange[], context: BuildContext<M>): M | undefined;
}

/**
 * A {@link MessageFormat} whose `fromCanonical` gives back the caller's own message type: pass
 * a history typed with an SDK's message type as `original` and the result has that type too
 * (messages built fresh have the shapes that type describes).
 *
 * @typeParam M - the widest message shape the adapter reads.
 */
export interface TypedMessageFormat<M> extends MessageFormat<M> {
  /** {@inheritDoc MessageFormat.fromCanonical} */
  fromCanonical<T extends M = M>(canonical: readonly Message[], original?: readonly T[]): T[];
}

/** Builds a {@link MessageFormat} from a {@link FormatCodec}, with memoization and identity. */
export function defineMessageFormat<M>(codec: FormatCodec<M>): TypedMessageFormat<M> {
  // source object -> its canonical message: the token cache and offload's identity promise both
  // key on message objects. The way back is found through `original`, not a second WeakMap: a
  // long-lived WeakMap filled with short-lived keys is what costs most when histories are new.
  const canonicalOf = new WeakMap<object, Message>();

  const convert = (message: unknown, index: number): Message => {
    // Anything but an object is refused by the codec, in its own words.
    if (typeof message !== 'object' || message === null) return codec.toCanonical(message, index);
    const cached = canonicalOf.get(message);
    if (cached !== undefined) return cached;
    const canonical = codec.toCanonical(message, index);
    canonicalOf.set(message, canonical);
    return canonical;
  };

  const rebuildOnOriginal = (message: Message, original: M, context: BuildContext<M>): M | undefined => {
    if (typeof original !== 'object' || original === null) return undefined;
    let previous: Message;
    try {
      previous = convert(original, context.index);
    } catch {
      return undefined;
    }
    const changes = diffToolOutputs(message, previous);
    if (changes === undefined) return undefined;
    if (changes.length === 0) return original;
    const rebuilt = codec.replaceToolOutputs(original, changes, context);
    // The next turn converts the rebuilt message to this very canonical message: the token
    // cache stays warm and the prompt prefix byte-stable.
    if (typeof rebuilt === 'object' && rebuilt !== null) canonicalOf.set(rebuilt, message);
    return rebuilt;
  };

  return Object.freeze({
    name: codec.name,
    detect(messages: readonly unknown[]): boolean {
      return messages.length > 0 && messages.every((message) => codec.matches(message));
    },
    toCanonical(messages: readonly M[]): Message[] {
      const canonical = new Array<Message>(messages.length);
      for (let index = 0; index < messages.length; index += 1) canonical[index] = convert(messages[index], index);
      return canonical;
    },
    fromCanonical<T extends M = M>(canonical: readonly Message[], original?: readonly T[]): T[] {
      const output: M[] = [];
      const sameLength = original !== undefined && original.length === canonical.length;
      let toolNames: Map<string, string> | undefined;
      const toolNameOf = (toolUseId: string): string | undefined =>
        (toolNames ??= collectToolNames(canonical)).get(toolUseId);
      let sources: Map<Message, M> | undefined;
      for (let index = 0; index < canonical.length; index += 1) {
        const message = canonical[index]!;
        // The common case first: the message at the same index is the one this came from.
        const sameIndex = sameLength ? original[index] : undefined;
        if (
          sameIndex !== undefined &&
          typeof sameIndex === 'object' &&
          sameIndex !== null &&
          canonicalOf.get(sameIndex) === message
        ) {
          output.push(sameIndex);
          continue;
        }
        const source =
          original === undefined ? undefined : (sources ??= collectSources(original, canonicalOf)).get(message);
        if (source !== undefined) {
          output.push(source);
          continue;
        }
        assertCanonicalMessage(message, index);
        const context: BuildContext<M> = { toolNameOf, original, index };
        if (sameLength) {
          const rebuilt = rebuildOnOriginal(message, original[index]!, context);
          if (rebuilt !== undefined) {
            output.push(rebuilt);
            continue;
          }
        }
        for (const built of codec.fromCanonical(message, context)) output.push(built);
      }
      // Every element is the caller's own message or one built in the shape T describes.
      return output as T[];
    },
  });
}

/** Canonical message -> the message of `original` it is the memoized conversion of. */
function collectSources<M>(original: readonly M[], canonicalOf: WeakMap<object, Message>): Map<Message, M> {
  const sources = new Map<Message, M>();
  for (const message of original) {
    if (typeof message !== 'object' || message === null) continue;
    const canonical = canonicalOf.get(message);
    if (canonical !== undefined && !sources.has(canonical)) sources.set(canonical, message);
  }
  return sources;
}

/** `tool_use` id -> tool name over a canonical history. */
function collectToolNames(canonical: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of canonical) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content as readonly ContentBlock[]) {
      const fields = fieldsOf(block);
      if (fields.type === 'tool_use' && typeof fields.id === 'string' && typeof fields.name === 'string')
        names.set(fields.id, fields.name);
    }
  }
  return names;
}

/**
 * The `tool_result` blocks of `message` whose content (or error flag) differs from `previous`,
 * the canonical form of the original at the same index; `undefined` when anything else differs
 * (then the message is built fresh). Blocks are compared by value: the core copies the blocks it
 * does not change.
 */
function diffToolOutputs(message: Message, previous: Message): ToolOutputChange[] | undefined {
  if (message.role !== previous.role) return undefined;
  if (typeof message.content === 'string' || typeof previous.content === 'string') {
    return message.content === previous.content ? [] : undefined;
  }
  if (message.content.length !== previous.content.length) return undefined;
  const changes: ToolOutputChange[] = [];
  for (let blockIndex = 0; blockIndex < message.content.length; blockIndex += 1) {
    const block = message.content[blockIndex]!;
    const before = previous.content[blockIndex]!;
    if (block === before) continue;
    const fields = fieldsOf(block);
    const beforeFields = fieldsOf(before);
    if (
      fields.type === 'tool_result' &&
      beforeFields.type === 'tool_result' &&
      haveEqualFieldsBut(fields, beforeFields, TOOL_OUTPUT_FIELDS)
    ) {
      if (!isDeepEqual(fields.content, beforeFields.content) || fields.is_error !== beforeFields.is_error) {
        changes.push({ blockIndex, block: block as ToolResultBlock });
      }
      continue;
    }
    if (!isDeepEqual(block, before)) return undefined;
  }
  return changes;
}

/** The fields of a `tool_result` an offload may change. */
const TOOL_OUTPUT_FIELDS = new Set(['content', 'is_error']);

function haveEqualFieldsBut(left: Fields, right: Fields, ignored: ReadonlySet<string>): boolean {
  const leftKeys = Object.keys(left).filter((key) => !ignored.has(key) && left[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => !ignored.has(key) && right[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) => isDeepEqual(left[key], right[key]));
}
