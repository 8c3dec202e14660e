/**
 * The wiring of the LangChain middleware: each hook hands its piece of the agent's state to the
 * context manager and turns the answer back into what LangChain expects (a `ToolMessage` from
 * `wrapToolCall`, a `messages` update from `beforeModel`).
 */
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { RemoveMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { ContextManager } from '../../core/manage/types.js';
import { sameMessages } from '../same-messages.js';
import { findLastUsage } from './history.js';

/**
 * The id of a `RemoveMessage` that clears the whole `messages` state before the messages that
 * follow it are added: `REMOVE_ALL_MESSAGES` of `@langchain/langgraph`, a dependency of
 * `langchain` that this package does not load itself.
 */
export const REMOVE_ALL_MESSAGES = '__remove_all__';

/** The middleware `contextOffloadMiddleware` returns: give it to `createAgent({ middleware })`. */
export type ContextOffloadMiddleware = AgentMiddleware<undefined, undefined, unknown, readonly [DynamicStructuredTool]>;

/** What {@link buildContextOffloadMiddleware} wires together. */
export interface ContextOffloadMiddlewareParts {
  /** The middleware's name, as LangChain reports it in errors. */
  name: string;
  /** The manager of the conversation a hook runs for, from the hook's LangGraph runtime. */
  managerFor(runtime: unknown): ContextManager<BaseMessage>;
  /** The read tool the middleware registers, and whose results it never offloads. */
  readTool: DynamicStructuredTool;
}

/** A copy of `message` with `content` replaced and every other field kept. */
function replaceToolContent(message: ToolMessage, content: string): ToolMessage {
  return new ToolMessage({
    content,
    tool_call_id: message.tool_call_id,
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.status === undefined ? {} : { status: message.status }),
    ...(message.artifact === undefined ? {} : { artifact: message.artifact }),
    ...(message.metadata === undefined ? {} : { metadata: message.metadata }),
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/** Builds the middleware `contextOffloadMiddleware` documents, from its parts. */
export function buildContextOffloadMiddleware(parts: ContextOffloadMiddlewareParts): ContextOffloadMiddleware {
  const { managerFor, readTool } = parts;
  return createMiddleware({
    name: parts.name,
    tools: [readTool] as const,
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      // A Command, or content in blocks: left to beforeModel, which sees the whole message.
      if (!ToolMessage.isInstance(result) || typeof result.content !== 'string') return result;
      const toolName = result.name ?? request.toolCall.name;
      const toolCallId = result.tool_call_id || request.toolCall.id;
      // The read tool's answers are what the model asked to see: never offloaded again.
      if (toolName === readTool.name || toolCallId === undefined || toolCallId === '') return result;
      // the call's input tells a read-back (the tool opening a reference): never offloaded again
      const output = await managerFor(request.runtime).offloadOutput(result.content, {
        toolName,
        toolCallId,
        input: request.toolCall.args,
      });
      return output === result.content ? result : replaceToolContent(result, output);
    },
    beforeModel: async (state, runtime) => {
      const messages = state.messages;
      const lastUsage = findLastUsage(messages);
      const prepared = await managerFor(runtime).prepare(messages, {
        ...(lastUsage === undefined ? {} : { lastUsage }),
        ...(runtime.signal === undefined ? {} : { signal: runtime.signal }),
      });
      // Nothing to do is the common case: no state update, so nothing is written or re-sent.
      if (sameMessages(messages, prepared.messages)) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...prepared.messages] };
    },
  });
}
