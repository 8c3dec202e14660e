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
 * Each call runs the read tool of the call's thread (`readToolFor` its config). LangChain checks
 * the input against the JSON Schema, then the reader does again and answers a bad call with a
 * message for the model instead of throwing; `tool` is passed in so that tests can capture the
 * function LangChain would call.
 */
export function buildLangchainReadTool(
  definition: ReadOffloadedTool,
  readToolFor: (config: unknown) => ReadOffloadedTool,
  tool: typeof langchainTool,
): DynamicStructuredTool {
  return tool(
    async (input: unknown, config: unknown) => readToolFor(config).execute(input, { signal: readSignal(config) }),
    {
      name: definition.name,
      description: definition.description,
      schema: definition.inputSchema,
    },
  ) as DynamicStructuredTool;
}
