/**
 * The Agents SDK's `callModelInputFilter` hook: before each model call, the context manager
 * offloads what is large and compacts what is over the limit. It changes what that call sends,
 * never what the run keeps.
 */
import type { AgentInputItem, CallModelInputFilter } from '@openai/agents';
import { sameMessages } from '../same-messages.js';
import { resolveAgentsContext, type AgentsContextManager } from './context-source.js';
import { preparedHistoriesOf } from './prepared-histories.js';

function isMessageOf(item: AgentInputItem, role: string): boolean {
  const fields = item as { type?: unknown; role?: unknown };
  return (fields.type === undefined || fields.type === 'message') && fields.role === role;
}

/** The user messages at the end of `items`: a run's own input, when `items` are new to the filter. */
function trailingUserMessages(items: readonly AgentInputItem[]): AgentInputItem[] {
  let start = items.length;
  while (start > 0 && isMessageOf(items[start - 1] as AgentInputItem, 'user')) start -= 1;
  return items.slice(start);
}

/**
 * `compacted` with the run's own input messages put back. The runner stores, for the items a run
 * was started with, what the filter sent in their place (and nothing for an item the filter
 * dropped), so a compaction that summarized them away would take the user's message out of the
 * session. Sent again as they are, they keep their place; the summary covers everything, them
 * included. They go last when nothing came after them yet (the run's first call: the request
 * follows the summary of what came before), else right after the leading system messages (the
 * request, then the summary of the work done on it).
 */
function keepRunInput(compacted: readonly AgentInputItem[], runInput: readonly AgentInputItem[], input: readonly AgentInputItem[]): AgentInputItem[] {
  const kept = runInput.filter((item) => input.includes(item) && !compacted.includes(item));
  if (kept.length === 0) return [...compacted];
  if (kept.includes(input[input.length - 1] as AgentInputItem)) return [...compacted, ...kept];
  let head = 0;
  while (head < compacted.length && isMessageOf(compacted[head] as AgentInputItem, 'system')) head += 1;
  return [...compacted.slice(0, head), ...kept, ...compacted.slice(head)];
}

/**
 * Creates a `callModelInputFilter` (for `run()`'s options or the `Runner`'s config) that runs the
 * context manager before every model call: new large `function_call_result` outputs are offloaded
 * to the store (the model sees the reference and can read the content back with the read tool),
 * older large ones batch-offloaded when they weigh enough, and the input compacted into a summary
 * when it is still over the manager's trigger.
 *
 * Only the model call's input changes: the run's items (`result.history`) and the session keep
 * the full history, with one exception the SDK makes: for the items a run was started with, a
 * session stores what the filter sent. The filter therefore sends those user messages as they
 * are after a compaction, so they stay in the session. To shrink what a session stores, wrap it
 * with `createCompactingSession` made with the same manager: it then stores what the filter sent.
 *
 * The filter remembers what it sent: when the runner hands it the same history with new items
 * appended (the next turn of the run, or the next run over a session, whose items are fresh
 * copies), the earlier references and summary are reused as they were, so nothing is summarized
 * twice and the prompt prefix stays byte-stable for prompt caching. Use one manager per
 * conversation.
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
export function createCallModelInputFilter(manager: AgentsContextManager): CallModelInputFilter {
  const context = resolveAgentsContext(manager);
  const histories = preparedHistoriesOf<AgentInputItem>(context.manager);

  const filter: CallModelInputFilter = async ({ modelData }) => {
    const input = modelData.input;
    const known = histories.find(input);
    const fresh = known === undefined ? input : input.slice(known.source.length);
    // New user messages start a run; later calls of the run only add the model's items.
    const request = trailingUserMessages(fresh);
    const runInput = request.length > 0 ? request : (known?.runInput ?? []);
    const history = known === undefined ? input : [...known.prepared, ...fresh];

    const { messages, actions } = await context.manager.prepare(history);
    const compacted = actions.some((action) => action.type === 'compact');
    const sent = compacted ? keepRunInput(messages, runInput, input) : messages;
    // Copies: the runner owns `input`, and may change the array the filter returns.
    histories.remember({ source: [...input], prepared: [...sent], runInput }, known);
    if (sameMessages(sent, input)) return modelData;
    return { ...modelData, input: [...sent] };
  };
  filter.preserveInputIdentity = true;
  return filter;
}
