/**
 * What both offload modes share once the blocks are chosen: file paths through the writer
 * port, bounded parallel writes, error wrapping, and the copy of a changed message.
 */
import { ContextError, WriteFailedError } from '../errors.js';
import type { ContentStore } from '../ports.js';
import type { ContentBlock, Message } from '../types.js';

/** Files written at the same time by one call: enough to hide disk latency, few enough to keep clear of EMFILE. */
export const WRITE_CONCURRENCY = 16;

/** The text written to a file: the string itself, or `JSON.stringify` of a block array. */
export function serializeToolResultContent(content: unknown): string {
  if (typeof content === 'string') return content;
  return JSON.stringify(content) ?? '';
}

/**
 * Runs a store call; an error that is not already a {@link ContextError} (a driver of the
 * user's that throws its own) becomes a {@link WriteFailedError} naming the reference, with
 * the original error as `cause`.
 */
export async function callStore<T>(store: ContentStore, key: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ContextError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new WriteFailedError(`could not write ${store.referenceFor(key)}: ${reason}`, { cause: error });
  }
}

/**
 * Runs `task(0)` ... `task(count - 1)`, at most `limit` at a time. After a failure no new task
 * starts; it rejects with the first error once the running ones have settled, so nothing is
 * still writing when the caller sees the error.
 */
export async function runConcurrently(
  count: number,
  limit: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const work = async (): Promise<void> => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, work));
  if (failure !== undefined) throw failure.error;
}

/**
 * Sets `key` as an own, enumerable data property. Unlike `target[key] = value`, a key named
 * `__proto__` (which `JSON.parse` creates as an ordinary property) stays a property instead of
 * changing the copy's prototype.
 */
function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A deep copy of JSON-like data: arrays and plain objects are copied, everything else
 * (strings, numbers, class instances) is kept as is. Key order is kept, `__proto__` keys
 * included. Recursive: the input was checked for depth and cycles (`assertMessage`).
 */
export function copyDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => copyDeep(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) defineField(copy, key, copyDeep((value as Record<string, unknown>)[key]));
  return copy as T;
}

/**
 * A deep copy of `message` in which the blocks at the keys of `replacements` get the mapped
 * value as `field` (`content` by default, a tool call's `input` for an offloaded input; every
 * other field kept, in order). The replaced value itself is not copied: it may be megabytes and
 * is dropped anyway.
 */
export function copyMessageWithContent(
  message: Message,
  replacements: ReadonlyMap<number, unknown>,
  field: 'content' | 'input' | 'text' = 'content',
): Message {
  const blocks = message.content as ContentBlock[];
  const content = blocks.map((block, index) => {
    const replacement = replacements.get(index);
    if (replacement === undefined) return copyDeep(block);
    const fields = block as Readonly<Record<string, unknown>>;
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(fields)) defineField(copy, key, key === field ? replacement : copyDeep(fields[key]));
    defineField(copy, field, replacement);
    return copy as ContentBlock;
  });
  // every field of the message is kept, extra ones (ids, metadata) included
  const fields = message as unknown as Readonly<Record<string, unknown>>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) defineField(copy, key, key === 'content' ? content : copyDeep(fields[key]));
  return copy as unknown as Message;
}
