/**
 * Direct offload of one tool output as it arrives, for the per-tool hooks of agent frameworks
 * (the AI SDK's `toModelOutput`, LangChain's `wrapToolCall`, a tool wrapper for the OpenAI
 * Agents SDK): no history is converted, only the output value is replaced by its reference.
 */
import { describeValue, InvalidOptionError } from '../../errors.js';
import { isOffloadReference } from '../../offload/offload-reference.js';
import { offloadOneOutput, type OffloadCall, type OffloadStepContext } from './offload-steps.js';
import type { ContextOffloadAction, ToolCallIdentity } from '../types.js';

/** What became of one output: the text the model gets, and the action when it was offloaded. */
export interface OffloadedOutput {
  text: string;
  action?: ContextOffloadAction | undefined;
}

function assertCall(call: unknown): asserts call is ToolCallIdentity {
  if (typeof call !== 'object' || call === null) {
    throw new InvalidOptionError(`call must be an object { toolName, toolCallId, input? }, got ${describeValue(call)}`);
  }
  const { toolName, toolCallId } = call as Partial<Record<keyof ToolCallIdentity, unknown>>;
  if (typeof toolCallId !== 'string' || toolCallId === '') {
    throw new InvalidOptionError(`call.toolCallId must be a non-empty string, got ${describeValue(toolCallId)}`);
  }
  if (typeof toolName !== 'string')
    throw new InvalidOptionError(`call.toolName must be a string, got ${describeValue(toolName)}`);
}

/**
 * Offloads `output` to `<sessionId>/<toolCallId>-<hash>.md` when it is large enough, is not
 * already a reference, its tool is not excluded and it does not read offloaded content back (its
 * `input` names the session's folder, or the same content is stored under another call);
 * resolves the reference text. Large enough: as results age, over `maxInlineResultChars` (the
 * reference is then followed by the output's head and tail, as `prepare` cuts a new result);
 * on arrival, at least `threshold`. Otherwise resolves the output itself.
 * The same output for the same call id is written once (its name follows from its content).
 *
 * @throws {InvalidOptionError} when `output` is not a string or `call` lacks its fields.
 */
export async function offloadToolOutput(
  output: unknown,
  call: unknown,
  context: OffloadStepContext,
  offloadCall: OffloadCall,
): Promise<OffloadedOutput> {
  if (typeof output !== 'string') {
    throw new InvalidOptionError(
      `output must be a string (the tool's output as the model would read it), got ${describeValue(output)}`,
    );
  }
  assertCall(call);
  const { toolName, toolCallId } = call;
  context.toolNames.set(toolCallId, toolName);
  // as results age, a new output is sent whole unless it is too large for the window (then it is cut)
  const smallestOffloaded =
    context.timing === 'as-they-age' ? context.aging.maxInlineResultChars + 1 : context.threshold;
  if (output.length < smallestOffloaded || context.excludeTools.has(toolName) || isOffloadReference(output))
    return { text: output };
  if (context.readBacks.isReadBackInput(call.input)) return { text: output };
  const offloaded = await offloadOneOutput(output, toolCallId, context, offloadCall);
  if (offloaded === undefined) return { text: output };
  const { reference, freedChars } = offloaded;
  return {
    text: reference,
    action: { type: 'direct-offload', toolCallIds: [toolCallId], references: [reference], freedChars },
  };
}
