/**
 * Offload per tool: a function tool whose output goes through the context manager as it
 * arrives, so the history (the run's items, the session, every later model call) holds what the
 * manager decided: the output itself, or its reference (followed, as results age, by its head
 * and tail).
 */
import type { FunctionTool } from '@openai/agents';
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import { isRecord } from '../../formats/fields.js';
import { resolveAgentsContext } from './context-source.js';
import type { IntegrationContextManager } from '../manager-source.js';

/** A function tool of any context, parameters and result. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own tool lists are typed this way
export type AnyFunctionTool = FunctionTool<any, any, any>;

/** The structured output kinds the Agents SDK sends as parts (images, files): never turned into text here. */
const STRUCTURED_OUTPUT_TYPES = new Set(['text', 'image', 'file', 'input_text', 'input_image', 'input_file']);

/** Whether the SDK would send `output` as structured parts rather than as text. */
function isStructuredOutput(output: unknown): boolean {
  if (Array.isArray(output))
    return (
      output.length > 0 && output.every((part) => isRecord(part) && STRUCTURED_OUTPUT_TYPES.has(String(part.type)))
    );
  return isRecord(output) && STRUCTURED_OUTPUT_TYPES.has(String(output.type));
}

/**
 * The text the model would see for `output`, when it is text: strings as they are, a `{ type:
 * 'text' }` part's text, other JSON values as the SDK serializes them. `undefined` for structured
 * parts (images, files, part lists) and values that have no JSON text.
 */
function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (isRecord(output) && output.type === 'text' && typeof output.text === 'string') return output.text;
  if (isStructuredOutput(output) || output === undefined || typeof output === 'function' || typeof output === 'symbol')
    return undefined;
  if (typeof output === 'object' && output !== null && (ArrayBuffer.isView(output) || output instanceof ArrayBuffer))
    return undefined;
  try {
    return JSON.stringify(output);
  } catch {
    // Cyclic or BigInt values: the SDK prints its own placeholder; there is nothing to offload.
    return undefined;
  }
}

/** Puts `reference` where `output`'s text was: a `{ type: 'text' }` part keeps its other fields. */
function replaceOutputText(output: unknown, reference: string): unknown {
  if (isRecord(output) && output.type === 'text') return { ...output, text: reference };
  return reference;
}

/**
 * Wraps an Agents SDK function tool (made with `tool()`) so that its output goes through the
 * manager as it arrives, following the manager's `offload.timing`:
 * - as results age (the default), an output of more than `offload.maxInlineResultChars` is written to
 *   the store and the tool returns its reference followed by its head and tail; a smaller one is
 *   returned whole, for the model to act on (the input filter offloads it later, as it ages);
 * - on arrival, an output of at least `offload.directThreshold` characters is written to the store and the
 *   tool returns its reference (`[Tool result offloaded to file: ...]`).
 * What the tool returns is what the run's items, the session and every later model call hold;
 * the model reads offloaded content back with the read tool. The outputs of tools in the
 * manager's `excludeTools` are returned as they are.
 *
 * What is offloaded: string outputs, a `{ type: 'text' }` output's text, and other JSON values as
 * the text the SDK would send (`JSON.stringify`). Images, files and lists of parts pass through.
 *
 * The returned tool is a copy with its own `invoke`; the tool given is not changed. Returned as
 * they are: tools that declare an `outputSchema` (their output must stay the declared JSON), the
 * read tool (its own results are never offloaded), and agents used as tools (`agent.asTool()`:
 * the SDK tracks them by identity). The input filter still offloads their large results.
 *
 * @param tool - a function tool, as `tool()` returns it.
 * @param manager - the context manager (`createContextManager({ format: 'openai-agents', ... })`):
 * its timing, bounds, `excludeTools` and store apply.
 * @throws {InvalidOptionError} when `tool` is not a function tool or `manager` not a context manager.
 *
 * @example
 * ```ts
 * const manager = createContextManager({ format: 'openai-agents', outputDir: '.offload', offload: { timing: 'on-arrival', threshold: 4000 } });
 * const agent = new Agent({ name: 'researcher', tools: [withOffload(fetchPage, manager), createReadTool(manager)] });
 * ```
 */
export function withOffload<T extends AnyFunctionTool>(tool: T, manager: IntegrationContextManager): T {
  if (
    !isRecord(tool) ||
    tool.type !== 'function' ||
    typeof tool.invoke !== 'function' ||
    typeof tool.name !== 'string'
  ) {
    throw new InvalidOptionError(
      `tool must be an Agents SDK function tool (made with tool()), got ${describeValue(tool)}`,
    );
  }
  const context = resolveAgentsContext(manager);
  // An agent used as a tool (`agent.asTool()`, which has `on()`) is known to the SDK by identity: a copy would lose its link to the agent.
  if (
    tool.outputSchema !== undefined ||
    tool.name === context.readToolName ||
    typeof (tool as { on?: unknown }).on === 'function'
  )
    return tool;

  const invoke: AnyFunctionTool['invoke'] = async (runContext, input, details) => {
    const output: unknown = await tool.invoke(runContext, input, details);
    const toolCallId = details?.toolCall?.callId;
    const text = outputText(output);
    // Without the call's id there is no name to store it under; the batch offload of the input
    // filter still catches it before the next model call.
    if (text === undefined || typeof toolCallId !== 'string' || toolCallId === '') return output;
    // the call's input tells a read-back (the tool opening a reference): never offloaded again
    const replaced = await context.manager.offloadOutput(text, { toolName: tool.name, toolCallId, input });
    return replaced === text ? output : replaceOutputText(output, replaced);
  };
  // A copy keeps every field (symbol-keyed ones included: the SDK keeps its output validator there).
  return { ...tool, invoke };
}

/**
 * {@link withOffload} for every function tool of a list; other tools (hosted tools, computer,
 * shell, MCP) are returned as they are, as is the read tool.
 *
 * @param manager - `createContextManager({ format: 'openai-agents', ... })`.
 * @throws {InvalidOptionError} when `tools` is not an array or `manager` not a context manager.
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'assistant', tools: [...offloadTools([search, fetchPage], manager), createReadTool(manager)] });
 * ```
 */
export function offloadTools<T extends { type: string }>(tools: readonly T[], manager: IntegrationContextManager): T[] {
  if (!Array.isArray(tools))
    throw new InvalidOptionError(`tools must be an array of Agents SDK tools, got ${describeValue(tools)}`);
  resolveAgentsContext(manager);
  return tools.map((tool) =>
    isRecord(tool) && tool.type === 'function'
      ? (withOffload(tool as unknown as AnyFunctionTool, manager) as unknown as T)
      : tool,
  );
}
