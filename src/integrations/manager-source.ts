/**
 * What the AI SDK and Agents SDK hooks take from the caller, checked the same way in both: a
 * context manager (its `prepare` and `offloadOutput`), and the read tool, given as it is or
 * through the manager that has one.
 */
import type { ReadOffloadedTool } from '../api/read-offloaded-tool.js';
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { ContextManager } from '../core/manage/types.js';

/**
 * A context manager an integration can drive: `createContextManager({ format: 'ai-sdk', ... })`
 * for the AI SDK hooks, `createContextManager({ format: 'openai-agents', ... })` for the Agents
 * SDK ones. Typed loosely (`unknown` messages) so that a manager fits without naming its message
 * type. One manager serves every hook of one conversation, so they share one store and one set
 * of decisions.
 */
export type IntegrationContextManager = Pick<ContextManager<unknown>, 'prepare' | 'offloadOutput'> & {
  /** The read tool over the manager's store, when the manager has one. */
  readonly readTool?: ReadOffloadedTool | undefined;
};

/**
 * Throws {@link InvalidOptionError} naming `field` unless `manager` has the context manager's
 * `prepare` and `offloadOutput` functions; `format` is the format the hint tells the caller to
 * create it with.
 */
export function assertContextManager(
  manager: unknown,
  format: string,
  field = 'manager',
): asserts manager is IntegrationContextManager {
  const hint = `${field} must be a context manager (createContextManager({ format: '${format}', ... }))`;
  if (typeof manager !== 'object' || manager === null)
    throw new InvalidOptionError(`${hint}, got ${describeValue(manager)}`);
  for (const method of ['prepare', 'offloadOutput'] as const) {
    const value = (manager as Record<string, unknown>)[method];
    if (typeof value !== 'function')
      throw new InvalidOptionError(`${hint}, got an object whose ${method} is ${describeValue(value)}`);
  }
}

function isReadOffloadedTool(value: unknown): value is ReadOffloadedTool {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return (
    typeof fields.execute === 'function' && typeof fields.name === 'string' && typeof fields.inputSchema === 'object'
  );
}

/**
 * The read tool `source` is, or the one of the context manager `source` is.
 *
 * @throws {InvalidOptionError} when `source` is neither a read tool nor a manager that has one.
 */
export function resolveReadTool(source: unknown): ReadOffloadedTool {
  const readTool = isReadOffloadedTool(source)
    ? source
    : (source as IntegrationContextManager | null | undefined)?.readTool;
  if (!isReadOffloadedTool(readTool)) {
    throw new InvalidOptionError(
      `source must be a read tool (createReadOffloadedTool(...)) or a context manager with a readTool, got ${describeValue(source)}${typeof source === 'object' && source !== null ? ' without a readTool' : ''}`,
    );
  }
  return readTool;
}
