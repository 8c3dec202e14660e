/**
 * Direct offload of one tool output as it arrives, for the per-tool hooks of agent frameworks
 * (the AI SDK's `toModelOutput`, LangChain's `wrapToolCall`, a tool wrapper for the OpenAI
 * Agents SDK): no history is converted, only the output value is replaced by its reference.
 */
import { describeValue, InvalidOptionError } from '../errors.js';
import { executeDirectOffload } from '../direct-offload.js';
import { isOffloadReference } from '../offload-reference.js';
import type { Message, ToolResultBlock } from '../types.js';
import type { OffloadStepContext } from './offload-steps.js';
import type { ContextOffloadAction, ToolCallIdentity } from './types.js';

/** What became of one output: the text the model gets, and the action when it was offloaded. */
export interface OffloadedOutput {
  text: string;
  action?: ContextOffloadAction | undefined;
}

function assertCall(call: unknown): asserts call is ToolCallIdentity {
  if (typeof call !== 'object' || call === null) {
    throw new InvalidOptionError(`call must be an object { toolName, toolCallId }, got ${describeValue(call)}`);
  }
  const { toolName, toolCallId } = call as Partial<Record<keyof ToolCallIdentity, unknown>>;
  if (typeof toolCallId !== 'string' || toolCallId === '') {
    throw new InvalidOptionError(`call.toolCallId must be a non-empty string, got ${describeValue(toolCallId)}`);
  }
  if (typeof toolName !== 'string') throw new InvalidOptionError(`call.toolName must be a string, got ${describeValue(toolName)}`);
}

/**
 * Offloads `output` to `<sessionId>/<toolCallId>.md` when it has at least `threshold`
 * characters, is not already a reference, and its tool is not excluded; resolves the reference
 * text (and records the decision, so the same output met later in the history gets the same
 * reference). Otherwise resolves the output itself. The same output for the same call id is
 * written once; another output under an id already used is left inline (writing it would
 * replace the first one's content), for batch offload to take later.
 *
 * @throws {InvalidOptionError} when `output` is not a string or `call` lacks its fields.
 */
export async function offloadToolOutput(output: unknown, call: unknown, context: OffloadStepContext): Promise<OffloadedOutput> {
  if (typeof output !== 'string') {
    throw new InvalidOptionError(`output must be a string (the tool's output as the model would read it), got ${describeValue(output)}`);
  }
  assertCall(call);
  const { toolName, toolCallId } = call;
  context.toolNames.set(toolCallId, toolName);
  if (output.length < context.threshold || context.excludeTools.has(toolName) || isOffloadReference(output)) return { text: output };
  const known = context.decisions.has(toolCallId) ? await context.decisions.find(toolCallId, output, context.store) : undefined;
  if (known !== undefined) return { text: known };
  if (context.decisions.hasDirect(toolCallId)) return { text: output };

  const message: Message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolCallId, content: output }] };
  const result = await executeDirectOffload(message, context.sessionId, context.store, { preview: context.preview });
  const reference = ((result.message.content as ToolResultBlock[])[0] as ToolResultBlock).content as string;
  const file = result.files[0];
  context.decisions.record(toolCallId, {
    reference,
    key: file === undefined ? undefined : context.store.keyFor(file),
    // the stored text is `output` made well-formed, which keeps its length
    chars: output.length,
    mode: 'direct',
  });
  return { text: reference, action: { type: 'direct-offload', toolCallIds: [toolCallId], references: [reference], freedChars: result.freedChars } };
}
