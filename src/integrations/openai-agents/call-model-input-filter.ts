/**
 * The Agents SDK's `callModelInputFilter` hook: before each model call, the context manager
 * offloads what is large and compacts what is over the limit. It changes what that call sends,
 * never what the run keeps.
 */
import type { CallModelInputFilter } from '@openai/agents';
import { sameMessages } from '../same-messages.js';
import { resolveAgentsContext } from './context-source.js';
import type { IntegrationContextManager } from '../manager-source.js';
import { keepRunInput } from './run-input.js';

/**
 * Creates a `callModelInputFilter` (for `run()`'s options or the `Runner`'s config) that runs the
 * context manager before every model call: `function_call_result` outputs are offloaded to the
 * store as the manager's `offload.timing` says (as results age, the default: the newest sent whole
 * unless too large for the window, then cut to reference, head and tail, and older ones offloaded
 * in batches; on arrival: every new large output replaced by its reference), the model reading
 * offloaded content back with the read tool, and the input compacted into a summary when it is
 * still over the manager's trigger.
 *
 * Only the model call's input changes: the run's items (`result.history`) and the session keep
 * the full history, with one exception the SDK makes: for the items a run was started with, a
 * session stores what the filter sent. The filter therefore sends those user messages as they
 * are after a compaction, so they stay in the session. To shrink what a session stores, wrap it
 * with `createCompactingSession` made with the same manager: it then stores what the filter sent.
 *
 * The filter keeps nothing itself: the manager's decisions are kept in its store and keyed by
 * content, so when the runner hands it the same history with new items appended (the next turn
 * of the run, the next run over a session whose items are fresh copies, another process), the
 * earlier references and summary come back as they were: nothing is summarized twice and the
 * prompt prefix stays byte-stable for prompt caching.
 *
 * The filter treats the items as immutable (it sets `preserveInputIdentity`, so the runner hands
 * it its own items without copying them, which keeps the manager's per-item caches warm).
 *
 * @param manager - `createContextManager({ format: 'openai-agents', ... })`.
 * @throws {InvalidOptionError} when `manager` is not a context manager. The filter rejects with
 * the manager's own errors (a store that cannot be written); the run then fails with them.
 *
 * @example
 * ```ts
 * const manager = createContextManager({ format: 'openai-agents', outputDir: '.offload', contextTokenLimit: 128_000 });
 * const result = await run(agent, 'Summarize the logs', { callModelInputFilter: createCallModelInputFilter(manager) });
 * ```
 */
export function createCallModelInputFilter(manager: IntegrationContextManager): CallModelInputFilter {
  const context = resolveAgentsContext(manager);

  const filter: CallModelInputFilter = async ({ modelData }) => {
    const input = modelData.input;
    const { messages } = await context.manager.prepare(input);
    // fewer items than given: a compaction (applied now, or recorded before) summarized some
    const sent = keepRunInput(messages, input);
    if (sameMessages(sent, input)) return modelData;
    // a copy: the runner may change the array the filter returns
    return { ...modelData, input: [...sent] };
  };
  filter.preserveInputIdentity = true;
  return filter;
}
