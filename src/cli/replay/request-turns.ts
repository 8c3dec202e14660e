/**
 * The model requests a transcript records. Each assistant message is the answer to one
 * request, and that request sent everything before it: the requests are the prefixes of the
 * history that end right before an assistant message.
 */
import type { Message } from '../../core/types.js';

/** Indices of the assistant messages: request `k` sent `messages.slice(0, turns[k])`. */
export function findRequestTurns(messages: readonly Message[]): number[] {
  const turns: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') turns.push(index);
  });
  return turns;
}

/** How many messages the history opens with that are system messages (the system prompt). */
export function countLeadingSystemMessages(messages: readonly Message[]): number {
  let count = 0;
  while (count < messages.length && messages[count]?.role === 'system') count += 1;
  return count;
}

/**
 * What the agent appends after request `k` was answered: the answer and everything up to the
 * next request (tool results, the user's next message). After the last request, the rest of
 * the transcript, which no request sent.
 */
export function sliceTurn(messages: readonly Message[], turns: readonly number[], requestIndex: number): Message[] {
  const start = turns[requestIndex];
  if (start === undefined) return [];
  return messages.slice(start, turns[requestIndex + 1] ?? messages.length);
}
