/**
 * The read tool as an Agents SDK function tool: the package's `read_offloaded` definition
 * (name, description, JSON Schema input) in the shape the SDK's runner calls, so an agent lists
 * it with its other tools and the model reads offloaded content back through it.
 */
import type { FunctionTool } from '@openai/agents';
import type { ReadOffloadedInputSchema, ReadOffloadedTool } from '../../api/read-offloaded-tool.js';
import { resolveReadTool, type IntegrationContextManager } from '../manager-source.js';

/**
 * The read tool for an Agents SDK agent: a function tool (`type: 'function'`, non-strict JSON
 * Schema parameters) whose `invoke` runs the package's reader. Its result is always text.
 */
export type ReadOffloadedAgentTool = FunctionTool<unknown, ReadOffloadedInputSchema, string>;

const neverNeedsApproval = async (): Promise<boolean> => false;
const alwaysEnabled = async (): Promise<boolean> => true;

/**
 * Creates the read tool as an Agents SDK function tool, from the context manager (its
 * `readTool`, over the store the manager offloads to) or from a read tool made with
 * `createReadOffloadedTool({ store | outputDir, ... })`. The model passes a reference it saw and
 * gets numbered lines back, a page at a time or by pattern; a bad call gets a message, never a
 * failed run. Its own results are never offloaded.
 *
 * It is built as the object `tool()` returns (no import of the SDK at run time), with
 * `strict: false`: the input's `offset`, `limit` and `pattern` are optional, which strict mode
 * does not allow.
 *
 * @param source - the context manager, or a read tool.
 * @throws {InvalidOptionError} when `source` is neither a read tool nor a manager that has one.
 *
 * @example
 * ```ts
 * const manager = createContextManager({ format: 'openai-agents', outputDir: '.offload' });
 * const agent = new Agent({ name: 'assistant', tools: [...myTools, createReadTool(manager)] });
 * ```
 */
export function createReadTool(source: IntegrationContextManager | ReadOffloadedTool): ReadOffloadedAgentTool {
  const readTool = resolveReadTool(source);
  return {
    type: 'function',
    name: readTool.name,
    description: readTool.description,
    parameters: readTool.inputSchema,
    strict: false,
    // The runner passes the model's arguments as JSON text, which the reader parses and checks;
    // its signal (the run's) ends a read under way.
    invoke: (_runContext, input, details) => readTool.execute(input, { signal: details?.signal }),
    needsApproval: neverNeedsApproval,
    isEnabled: alwaysEnabled,
  };
}
