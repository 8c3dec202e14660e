/**
 * Shape checks for message histories. Only what the package relies on is checked; unknown
 * block types and fields pass.
 *
 * The `messages` folder: rules about a history's shape that every feature shares.
 * - `validate-messages.ts`: shape checks of a history (this file).
 * - `tool-names.ts`: the tool name of each `tool_result`, from the matching `tool_use`.
 * - `provider-compaction.ts`: the providers' own compaction blocks, the head of a history.
 */
import { describeValue, InvalidMessageError } from '../errors.js';
import type { Message } from '../types.js';

const ROLES = new Set(['system', 'user', 'assistant']);

/**
 * Deepest nesting of objects and arrays accepted in a message, the message itself counting 1.
 * Real tool inputs and results nest a few dozen levels; far deeper input is hostile or broken,
 * and would overflow the stack of `JSON.stringify` and of the copies.
 */
const MAX_MESSAGE_DEPTH = 1000;

/** An object or array met by {@link assertJsonLike}, with the way back to the root for its path. */
interface Visit {
  value: object;
  parent: Visit | undefined;
  key: string | number;
  depth: number;
}

function formatKey(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Keys shown at each end of a path through very deep input; the levels between are counted. */
const PATH_END_KEYS = 10;

/** The path of `visit` from `root`; a path through very deep input keeps its ends and counts the middle. */
function pathOf(visit: Visit, root: string): string {
  const keys: Array<string | number> = [];
  for (let current: Visit | undefined = visit; current?.parent !== undefined; current = current.parent)
    keys.push(current.key);
  const parts = keys.reverse().map(formatKey);
  if (parts.length <= 3 * PATH_END_KEYS) return root + parts.join('');
  const skipped = parts.length - 2 * PATH_END_KEYS;
  return `${root}${parts.slice(0, PATH_END_KEYS).join('')}...(${skipped} levels)...${parts.slice(-PATH_END_KEYS).join('')}`;
}

/** What `JSON.stringify` walks into: arrays, and objects without `toJSON` other than binary views. */
function isWalked(value: object): boolean {
  if (Array.isArray(value)) return true;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * Throws {@link InvalidMessageError} with the path of the first value `JSON.stringify` and the
 * copies could not handle: a cycle (an object containing itself), a `BigInt` (unless
 * `BigInt.prototype.toJSON` is defined), or nesting deeper than {@link MAX_MESSAGE_DEPTH}.
 * Iterative, so hostile depth cannot overflow the stack here; an object shared by several
 * fields (not a cycle) is fine and walked once.
 */
export function assertJsonLike(value: unknown, path: string): void {
  if (typeof value !== 'object' || value === null) {
    assertScalar(value, path);
    return;
  }
  // Nearly every message is clean: a plain recursive walk proves that cheaply (bounded depth,
  // so no overflow). Only when it is unsure does the exact walk below find the path and reason.
  if (isPlainlyClean(value, 1, { nodesLeft: QUICK_WALK_MAX_NODES })) return;
  const walked = new Set<object>();
  const onPath = new Set<object>();
  const stack: Array<{ visit: Visit; leaving: boolean }> = [
    { visit: { value, parent: undefined, key: '', depth: 1 }, leaving: false },
  ];
  while (stack.length > 0) {
    const { visit, leaving } = stack.pop()!;
    if (leaving) {
      onPath.delete(visit.value);
      walked.add(visit.value);
      continue;
    }
    if (walked.has(visit.value)) continue;
    if (visit.depth > MAX_MESSAGE_DEPTH) {
      throw new InvalidMessageError(
        pathOf(visit, path),
        `nested deeper than ${MAX_MESSAGE_DEPTH} levels of objects and arrays`,
      );
    }
    onPath.add(visit.value);
    stack.push({ visit, leaving: true });
    const fields = visit.value as Record<string, unknown>;
    const keys = Array.isArray(fields) ? fields.keys() : Object.keys(fields).values();
    for (const key of keys) {
      const child = fields[key];
      if (typeof child !== 'object' || child === null) {
        assertScalar(child, pathOf({ value: fields, parent: visit, key, depth: visit.depth + 1 }, path));
        continue;
      }
      const childVisit: Visit = { value: child, parent: visit, key, depth: visit.depth + 1 };
      if (onPath.has(child))
        throw new InvalidMessageError(pathOf(childVisit, path), 'a cycle: the value contains itself');
      if (isWalked(child)) stack.push({ visit: childVisit, leaving: false });
    }
  }
}

/** Objects and arrays the quick walk visits before it leaves a message to the exact walk. */
const QUICK_WALK_MAX_NODES = 100_000;

/**
 * Whether `value` certainly holds no cycle, no BigInt and nothing deeper than
 * {@link MAX_MESSAGE_DEPTH}. `false` means "not sure": a cycle shows here as depth, and a
 * shared object is walked once per reference, so a large fan-in runs out of `nodesLeft`.
 */
function isPlainlyClean(value: object, depth: number, budget: { nodesLeft: number }): boolean {
  if (depth > MAX_MESSAGE_DEPTH || --budget.nodesLeft < 0) return false;
  const fields = value as Record<string, unknown>;
  const keys = Array.isArray(value) ? undefined : Object.keys(fields);
  const length = keys === undefined ? (value as unknown[]).length : keys.length;
  for (let index = 0; index < length; index += 1) {
    const child = keys === undefined ? (value as unknown[])[index] : fields[keys[index]!];
    if (typeof child === 'bigint') return false;
    if (typeof child === 'object' && child !== null && isWalked(child) && !isPlainlyClean(child, depth + 1, budget))
      return false;
  }
  return true;
}

function assertScalar(value: unknown, path: string): void {
  if (typeof value === 'bigint' && typeof (BigInt.prototype as { toJSON?: unknown }).toJSON !== 'function') {
    throw new InvalidMessageError(path, 'a BigInt, which JSON cannot hold; convert it to a number or a string');
  }
}

/**
 * Throws {@link InvalidMessageError} (code `INVALID_MESSAGE`) with the path of the first bad
 * field: not an object, a `role` outside system/user/assistant, `content` neither string nor
 * array, a block that is not an object with a string `type`, a `tool_result` without a string
 * `tool_use_id` or with content neither string nor array, a `tool_use` without a string `id`
 * and `name`.
 */
export function assertMessage(message: unknown, path: string): asserts message is Message {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidMessageError(path, `expected a message object, got ${describeValue(message)}`);
  }
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new InvalidMessageError(
      `${path}.role`,
      `expected "system", "user" or "assistant", got ${describeValue(role)}`,
    );
  }
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new InvalidMessageError(
      `${path}.content`,
      `expected a string or an array of blocks, got ${describeValue(content)}`,
    );
  }
  // Before the block checks: they read fields, which a hostile depth or cycle must not reach.
  assertJsonLike(message, path);
  if (Array.isArray(content))
    content.forEach((block: unknown, index) => assertBlock(block, `${path}.content[${index}]`));
}

function assertBlock(block: unknown, path: string): void {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    throw new InvalidMessageError(path, `expected a content block object, got ${describeValue(block)}`);
  }
  const fields = block as Record<string, unknown>;
  if (typeof fields.type !== 'string') {
    throw new InvalidMessageError(`${path}.type`, `expected a string, got ${describeValue(fields.type)}`);
  }
  if (fields.type === 'tool_result') {
    if (typeof fields.tool_use_id !== 'string') {
      throw new InvalidMessageError(
        `${path}.tool_use_id`,
        `expected a string, got ${describeValue(fields.tool_use_id)}`,
      );
    }
    const content = fields.content;
    // The API allows a tool_result without content; it counts as an empty string.
    if (content !== undefined && typeof content !== 'string' && !Array.isArray(content)) {
      throw new InvalidMessageError(
        `${path}.content`,
        `expected a string or an array of blocks, got ${describeValue(content)}`,
      );
    }
  } else if (fields.type === 'tool_use') {
    if (typeof fields.id !== 'string') {
      throw new InvalidMessageError(`${path}.id`, `expected a string, got ${describeValue(fields.id)}`);
    }
    if (typeof fields.name !== 'string') {
      throw new InvalidMessageError(`${path}.name`, `expected a string, got ${describeValue(fields.name)}`);
    }
  }
}

/** Throws {@link InvalidMessageError} unless `messages` is an array of valid messages. */
export function assertMessages(messages: unknown, path = 'messages'): asserts messages is Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(path, `expected an array of messages, got ${describeValue(messages)}`);
  }
  messages.forEach((message: unknown, index) => assertMessage(message, `${path}[${index}]`));
}
