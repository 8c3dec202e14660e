/**
 * The context manager the Agents SDK hooks drive, checked once when a hook is created. This
 * package never imports the SDK at run time: only its types.
 */
import type { AgentInputItem } from '@openai/agents';
import type { ReadOffloadedTool } from '../../api/read-offloaded-tool.js';
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import type { ContextManager } from '../../core/manage/types.js';
import { READ_OFFLOADED_TOOL_NAME } from '../../core/read-offloaded.js';

/**
 * A context manager over Agents SDK items: `createContextManager({ format: 'openai-agents', ... })`
 * from `agent-context-offload`. One manager serves every hook of one conversation (the input
 * filter, the session, the tool wrapper and the read tool), so they share one store and one set
 * of decisions. Typed loosely (`unknown` messages) so that the manager fits without naming its
 * message type; its `format` must be `'openai-agents'`.
 */
export type AgentsContextManager = Pick<ContextManager<unknown>, 'prepare' | 'offloadOutput'> & {
  /** The read tool over the manager's store, when the manager has one. */
  readonly readTool?: ReadOffloadedTool | undefined;
};

/** What the hooks need from a manager, checked. */
export interface ResolvedAgentsContext {
  manager: Pick<ContextManager<AgentInputItem>, 'prepare' | 'offloadOutput'>;
  /** The read tool's name: its results are never offloaded by the tool wrapper. */
  readToolName: string;
}

const MANAGER_HINT = "a context manager (createContextManager({ format: 'openai-agents', ... }))";

/**
 * Checks `manager` and returns what the hooks use.
 *
 * @throws {InvalidOptionError} naming `field` when `manager` lacks `prepare` or `offloadOutput`.
 */
export function resolveAgentsContext(manager: unknown, field = 'manager'): ResolvedAgentsContext {
  if (typeof manager !== 'object' || manager === null) {
    throw new InvalidOptionError(`${field} must be ${MANAGER_HINT}, got ${describeValue(manager)}`);
  }
  const fields = manager as Record<string, unknown>;
  for (const method of ['prepare', 'offloadOutput'] as const) {
    if (typeof fields[method] !== 'function') {
      throw new InvalidOptionError(`${field} must be ${MANAGER_HINT}, got an object whose ${method} is ${describeValue(fields[method])}`);
    }
  }
  const checked = manager as AgentsContextManager;
  const readToolName = typeof checked.readTool?.name === 'string' ? checked.readTool.name : READ_OFFLOADED_TOOL_NAME;
  // The manager was made with the openai-agents format: its messages are the SDK's items.
  return { manager: checked as unknown as ResolvedAgentsContext['manager'], readToolName };
}
