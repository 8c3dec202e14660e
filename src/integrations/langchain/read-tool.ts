/**
 * The read tool as a LangChain tool: the package's `read_offloaded` definition (name,
 * description, JSON Schema input) built with LangChain's own `tool()`, so an agent registers it
 * like any other tool and its calls run the package's reader, for the conversation they belong to.
 */
import type { DynamicStructuredTool, tool as langchainTool } from '@langchain/core/tools';
import type { ReadOffloadedTool } from '../../api/read-offloaded-tool.js';

/** The call's `signal` (LangChain's `RunnableConfig.signal`), when it has one. */
function readSignal(config: unknown): AbortSignal | undefined {
  const signal = typeof config === 'object' && config !== null ? (config as { signal?: unknown }).signal : undefined;
  return signal instanceof AbortSignal ? signal : undefined;
}

/**
 * Builds the LangChain tool with LangChain's `tool()`: named and described as `definition`,
 * each call run by the read tool `readToolFor` picks from the call's LangGraph config (its
 * thread). Its input is checked against the JSON Schema by LangChain, then again by the reader,
 * which answers every bad call with a message for the model instead of throwing. The config's
 * `signal` ends a read under way.
 */
export function buildLangchainReadTool(
  definition: ReadOffloadedTool,
  readToolFor: (config: unknown) => ReadOffloadedTool,
  tool: typeof langchainTool,
): DynamicStructuredTool {
  return tool(async (input: unknown, config: unknown) => readToolFor(config).execute(input, { signal: readSignal(config) }), {
    name: definition.name,
    description: definition.description,
    schema: definition.inputSchema,
  }) as DynamicStructuredTool;
}
