/**
 * The AI SDK's `prepareStep` hook (generateText, streamText, ToolLoopAgent): before each model
 * call, the context manager offloads what is large and compacts what is over the limit.
 *
 * The two majors differ in what a returned `messages` does: `ai` 7 carries it forward to the next
 * steps, `ai` 6 uses it for this step only and rebuilds the next step's messages from the
 * originals. Both are served by running the manager every step on whatever messages the SDK
 * hands over: its decisions are kept in its store and keyed by content, so the originals come
 * back offloaded and compacted as before (nothing is summarized twice), and its own output
 * passes through it unchanged. The hook keeps only what it needs to pass the provider's usage
 * figure on: how many messages the previous step sent.
 */
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import type { LastUsage } from '../../core/text/tokens.js';
import { sameMessages, startsWith } from '../same-messages.js';
import { assertContextManager } from './types.js';
import type { IntegrationContextManager } from '../manager-source.js';

/** The usage the AI SDK reports for one finished step (`steps[i].usage`). */
export interface AiSdkStepUsage {
  /** Prompt tokens the provider counted for that step's request. */
  inputTokens?: number | undefined;
}

/** The part of the AI SDK's `prepareStep` argument this hook reads. */
export interface AiSdkPrepareStepOptions<MESSAGE> {
  /** The messages the next model call would send (`ModelMessage[]`). */
  messages: MESSAGE[];
  /** The number of the step about to run, 0 for the first. */
  stepNumber?: number | undefined;
  /** The steps run so far; the last one's `usage.inputTokens` calibrates the token estimate. */
  steps?: ReadonlyArray<{ usage?: AiSdkStepUsage | undefined }> | undefined;
}

/** What the hook returns: the prepared messages, or `undefined` when nothing changed. */
export type AiSdkPrepareStepResult<MESSAGE> = { messages: MESSAGE[] } | undefined;

/**
 * A `prepareStep` function for `generateText`, `streamText` and `ToolLoopAgent` (`ai` 6 and 7).
 * Generic over the message type, so it fits either major's declared `PrepareStepFunction`.
 */
export type AiSdkPrepareStep = <MESSAGE>(
  options: AiSdkPrepareStepOptions<MESSAGE>,
) => Promise<AiSdkPrepareStepResult<MESSAGE>>;

/** The last step this hook prepared: what the SDK gave it and what it sent instead. */
interface PreparedStep {
  input: readonly unknown[];
  output: readonly unknown[];
  stepNumber: number | undefined;
}

/**
 * The provider's count for the request the previous step sent, when this step's messages start
 * with what it sent (`ai` 7), or with what it was given (`ai` 6 rebuilt them from the originals):
 * the figure counts the messages as sent, which is how the manager reads it.
 */
function lastUsageOf(
  options: AiSdkPrepareStepOptions<unknown>,
  messages: readonly unknown[],
  previous: PreparedStep,
): LastUsage | undefined {
  const steps = options.steps;
  if (steps === undefined || steps.length === 0) return undefined;
  // Only the step right after the one prepared here sent `previous.output`.
  if (
    options.stepNumber === undefined ||
    previous.stepNumber === undefined ||
    options.stepNumber !== previous.stepNumber + 1
  )
    return undefined;
  const aligned = startsWith(messages, previous.output) || startsWith(messages, previous.input);
  if (!aligned) return undefined;
  const inputTokens = steps[steps.length - 1]?.usage?.inputTokens;
  if (typeof inputTokens !== 'number' || !Number.isFinite(inputTokens) || inputTokens < 0) return undefined;
  return { inputTokens, messageCount: previous.output.length };
}

/**
 * Creates a `prepareStep` hook that runs the context manager before every model call of an
 * AI SDK loop: tool results are offloaded as the manager's `offload.timing` says (as results age,
 * the default: the newest sent whole unless too large for the window, older ones in batches; on
 * arrival: every new large one), and the history compacted when it is still over the trigger. It returns the
 * prepared `messages` when anything changed, and `undefined` otherwise (the SDK then sends its
 * own). Works with `ai` 6 (where a returned `messages` lasts one step) and `ai` 7 (where it
 * carries forward): a compaction is done once, not again at every step, and not again in the
 * next request either: a route handler that rebuilds the history from JSON and creates a new
 * manager and hook per request gets the same messages, since the manager's decisions are kept
 * in its store.
 *
 * To combine it with a `prepareStep` of your own, call it inside yours and pass its `messages` on.
 *
 * @param manager - `createContextManager({ format: 'ai-sdk', ... })`.
 * @throws {InvalidOptionError} when `manager` is not a context manager; the hook itself rejects
 * when `messages` is not an array, and with the manager's own errors (a store that cannot be
 * written, an aborted compaction).
 *
 * @example
 * ```ts
 * const manager = createContextManager({ format: 'ai-sdk', outputDir: '.offload', contextTokenLimit: 200_000 });
 * const result = await generateText({ model, tools, messages, prepareStep: createPrepareStep(manager), stopWhen: stepCountIs(20) });
 * ```
 */
export function createPrepareStep(manager: IntegrationContextManager): AiSdkPrepareStep {
  assertContextManager(manager);
  let previous: PreparedStep | undefined;

  return async <MESSAGE>(options: AiSdkPrepareStepOptions<MESSAGE>): Promise<AiSdkPrepareStepResult<MESSAGE>> => {
    const messages: unknown = options?.messages;
    if (!Array.isArray(messages)) {
      throw new InvalidOptionError(
        `prepareStep options.messages must be an array of AI SDK messages, got ${describeValue(messages)}`,
      );
    }
    const lastUsage = previous === undefined ? undefined : lastUsageOf(options, messages, previous);
    const result = await manager.prepare(messages, lastUsage === undefined ? {} : { lastUsage });
    previous = { input: messages, output: result.messages, stepNumber: options.stepNumber };
    return sameMessages(result.messages, messages) ? undefined : { messages: result.messages as MESSAGE[] };
  };
}
