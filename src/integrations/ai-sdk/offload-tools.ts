/**
 * Offload in the AI SDK's per-tool hook, `toModelOutput`, following the manager's
 * `offload.timing`: as results age (the default), an output too large for the window is cut to
 * its reference, head and tail, and a smaller one is sent whole (the prepare step offloads it
 * later, as it ages); on arrival, a large output is replaced by its reference before the model
 * sees it. What `toModelOutput` returns is both what the model is sent and what the response
 * messages keep, while `steps[i].toolResults` still holds the raw output for the UI.
 */
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import {
  assertContextManager,
  NEVER_OFFLOAD,
  type AiSdkToModelOutputOptions,
  type AiSdkToolResultOutput,
} from './types.js';
import type { IntegrationContextManager } from '../manager-source.js';

/** Options of {@link withOffload}. */
export interface WithOffloadOptions {
  /**
   * The tool's name (its key in `tools`): the manager's `excludeTools` is matched against it, so
   * an excluded tool's output stays inline here too.
   */
  toolName: string;
}

/** Marks a tool this integration wrapped, so wrapping it again changes nothing. */
const WRAPPED = Symbol.for('agent-context-offload.ai-sdk.offload');

type ToModelOutput = (options: AiSdkToModelOutputOptions) => unknown;

/** What the AI SDK sends when a tool has no `toModelOutput`: text for a string, else JSON. */
function defaultModelOutput(output: unknown): AiSdkToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'json', value: toJsonValue(output) };
}

/** A JSON value as the AI SDK makes one (`toJSON` applied, `undefined` dropped, `undefined` itself as `null`). */
function toJsonValue(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}

/**
 * Offloads the text of one model output when the manager finds it large enough (for its
 * timing): text and JSON become a text reference, errors an `error-text` reference; other kinds
 * (media content, a denied execution) are returned as they are.
 */
async function offloadModelOutput(
  output: AiSdkToolResultOutput,
  manager: IntegrationContextManager,
  toolName: string,
  toolCallId: string,
  input: unknown,
): Promise<AiSdkToolResultOutput> {
  const isError = output.type === 'error-text' || output.type === 'error-json';
  let text: string;
  if (output.type === 'text' || output.type === 'error-text') text = output.value;
  else if (output.type === 'json' || output.type === 'error-json') text = JSON.stringify(output.value) ?? 'null';
  else return output;
  // the call's input tells a read-back (the tool opening a reference): never offloaded again
  const kept = await manager.offloadOutput(text, { toolName, toolCallId, input });
  if (kept === text) return output;
  const { providerOptions } = output;
  const type = isError ? 'error-text' : 'text';
  return providerOptions === undefined ? { type, value: kept } : { type, value: kept, providerOptions };
}

function isToolResultOutput(value: unknown): value is AiSdkToolResultOutput {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * Returns a copy of an AI SDK tool whose `toModelOutput` hands each output to the manager, as
 * its `offload.timing` says: as results age (the default), an output of more than
 * `offload.maxInlineResultChars` becomes its reference followed by its head and tail, and a smaller one
 * reaches the model whole; on arrival, an output of at least `offload.directThreshold` characters becomes its
 * reference (`[Tool result offloaded to file: ...]`, readable with the read tool). The model, and
 * the history the SDK returns (`result.responseMessages` in `ai` 7, `result.response.messages` in
 * `ai` 6), get that text, while `steps[i].toolResults` keeps the raw output. A tool's own
 * `toModelOutput` still runs first; a text or JSON output it returns is handled the same way. A
 * tool without `execute` (its results come from your client) is returned as it is: the prepare
 * step handles those.
 *
 * @param tool - a tool made with the AI SDK's `tool()` (or any object of that shape).
 * @param manager - `createContextManager({ format: 'ai-sdk', ... })`: its timing, bounds and
 * `excludeTools` decide what is offloaded, its store keeps it.
 * @param options - `toolName`: the tool's key in `tools`.
 * @throws {InvalidOptionError} when `tool` is not an object, `manager` not a context manager, or
 * `toolName` missing or empty.
 *
 * @example
 * ```ts
 * const search = withOffload(tool({ description, inputSchema, execute }), manager, { toolName: 'search' });
 * ```
 */
export function withOffload<TOOL extends object>(
  tool: TOOL,
  manager: IntegrationContextManager,
  options: WithOffloadOptions,
): TOOL {
  if (typeof tool !== 'object' || tool === null) {
    throw new InvalidOptionError(`tool must be an AI SDK tool object, got ${describeValue(tool)}`);
  }
  assertContextManager(manager);
  const toolName: unknown = options?.toolName;
  if (typeof toolName !== 'string' || toolName.length === 0) {
    throw new InvalidOptionError(
      `toolName must be a non-empty string (the tool's key in tools), got ${describeValue(toolName)}`,
    );
  }
  const fields = tool as Record<PropertyKey, unknown>;
  if (typeof fields.execute !== 'function' || fields[WRAPPED] === true || fields[NEVER_OFFLOAD] === true) return tool;
  const ownToModelOutput =
    typeof fields.toModelOutput === 'function' ? (fields.toModelOutput as ToModelOutput) : undefined;

  const toModelOutput = async (call: AiSdkToModelOutputOptions): Promise<AiSdkToolResultOutput> => {
    const output =
      ownToModelOutput === undefined ? defaultModelOutput(call.output) : await ownToModelOutput.call(tool, call);
    // A tool's own mapping may return something we do not know: hand it on untouched.
    if (!isToolResultOutput(output)) return output as AiSdkToolResultOutput;
    return offloadModelOutput(output, manager, toolName, call.toolCallId, call.input);
  };
  return { ...tool, toModelOutput, [WRAPPED]: true } as TOOL;
}

/**
 * {@link withOffload} over a whole tool set: each tool that has `execute` gets an offloading
 * `toModelOutput`, named by its key. The manager's read tool (when it is in the set) is left as
 * it is: its pages are never offloaded. The input object is not changed.
 *
 * @example
 * ```ts
 * const result = await generateText({
 *   model,
 *   messages,
 *   tools: offloadTools({ ...myTools, read_offloaded: createReadTool(manager) }, manager),
 *   prepareStep: createPrepareStep(manager),
 *   stopWhen: stepCountIs(20),
 * });
 * ```
 */
export function offloadTools<TOOLS extends Record<string, object>>(
  tools: TOOLS,
  manager: IntegrationContextManager,
): TOOLS {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new InvalidOptionError(`tools must be an object of AI SDK tools by name, got ${describeValue(tools)}`);
  }
  assertContextManager(manager);
  const readToolName = manager.readTool?.name;
  const wrapped: Record<string, object> = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (typeof tool !== 'object' || tool === null) {
      throw new InvalidOptionError(`tools.${name} must be an AI SDK tool object, got ${describeValue(tool)}`);
    }
    wrapped[name] = name === readToolName ? tool : withOffload(tool, manager, { toolName: name });
  }
  return wrapped as TOOLS;
}
