/**
 * What the middleware reads from the agent's `messages` state: the usage of the model call that
 * produced the last reply.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { GenericUsage } from '../../core/text/tokens.js';

/** The fields of an `AIMessage` read here; duck-typed, so serialized messages work too. */
interface AiMessageLike {
  type?: unknown;
  usage_metadata?: { input_tokens?: unknown } | undefined;
}

/**
 * The usage of the model call right before this one: the last AI message's `usage_metadata`
 * (LangChain's `input_tokens` counts cached tokens too), with the messages before it as what
 * that call sent. Given only when nothing but its tool results follows it, that is, when it is
 * the reply of the previous step of this loop: after a new user turn, or when a later message
 * is of another kind, the figure may not describe the history any more, and counting falls back
 * to local estimates.
 */
export function findLastUsage(messages: readonly BaseMessage[]): GenericUsage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as AiMessageLike | undefined;
    const type = message?.type;
    if (type === 'tool') continue;
    if (type !== 'ai') return undefined;
    const inputTokens = message?.usage_metadata?.input_tokens;
    if (typeof inputTokens !== 'number' || !Number.isFinite(inputTokens) || inputTokens <= 0) return undefined;
    return { inputTokens, messageCount: index };
  }
  return undefined;
}
