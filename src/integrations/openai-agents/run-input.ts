/**
 * The run's own input after a compaction. The Agents SDK's runner stores, for the items a run was
 * started with, what the model input held in their place (and nothing for an item it dropped),
 * so a compaction that summarized the run's request away would take it out of the session. The
 * input filter and the session wrapper both put it back, by the same rule, so what one sends is
 * what the other stores.
 */
import type { AgentInputItem } from '@openai/agents';

function isMessageOf(item: AgentInputItem, role: string): boolean {
  const fields = item as { type?: unknown; role?: unknown };
  return (fields.type === undefined || fields.type === 'message') && fields.role === role;
}

/**
 * The run's own input, as far as the items tell: the last group of user messages. Within a run
 * only the model's items and tool results follow the request the run was started with.
 */
function latestUserMessages(items: readonly AgentInputItem[]): AgentInputItem[] {
  let end = items.length;
  while (end > 0 && !isMessageOf(items[end - 1] as AgentInputItem, 'user')) end -= 1;
  let start = end;
  while (start > 0 && isMessageOf(items[start - 1] as AgentInputItem, 'user')) start -= 1;
  return items.slice(start, end);
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
export function keepRunInput(compacted: readonly AgentInputItem[], input: readonly AgentInputItem[]): AgentInputItem[] {
  // as many items as given: nothing was compacted
  if (compacted.length >= input.length) return [...compacted];
  const runInput = latestUserMessages(input);
  const kept = runInput.filter((item) => input.includes(item) && !compacted.includes(item));
  if (kept.length === 0) return [...compacted];
  if (kept.includes(input[input.length - 1] as AgentInputItem)) return [...compacted, ...kept];
  let head = 0;
  while (head < compacted.length && isMessageOf(compacted[head] as AgentInputItem, 'system')) head += 1;
  return [...compacted.slice(0, head), ...kept, ...compacted.slice(head)];
}
