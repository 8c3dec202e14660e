/**
 * The context manager the Agents SDK hooks drive, checked once when a hook is created. This
 * package never imports the SDK at run time: only its types.
 */
import type { AgentInputItem } from '@openai/agents';
import type { ContextManager } from '../../core/manage/types.js';
import { READ_OFFLOADED_TOOL_NAME } from '../../core/read/read-offloaded.js';
import { assertContextManager } from '../manager-source.js';

/** What the hooks need from a manager, checked. */
export interface ResolvedAgentsContext {
  manager: Pick<ContextManager<AgentInputItem>, 'prepare' | 'offloadOutput'>;
  /** The read tool's name: its results are never offloaded by the tool wrapper. */
  readToolName: string;
}

/**
 * Checks `manager` and returns what the hooks use.
 *
 * @throws {InvalidOptionError} naming `field` when `manager` lacks `prepare` or `offloadOutput`.
 */
export function resolveAgentsContext(manager: unknown, field = 'manager'): ResolvedAgentsContext {
  assertContextManager(manager, 'openai-agents', field);
  const readToolName = typeof manager.readTool?.name === 'string' ? manager.readTool.name : READ_OFFLOADED_TOOL_NAME;
  // The manager was made with the openai-agents format: its messages are the SDK's items.
  return { manager: manager as unknown as ResolvedAgentsContext['manager'], readToolName };
}
