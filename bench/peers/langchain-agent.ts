/**
 * LangChain agent middlewares, driven through their own hooks the way `createAgent` calls them,
 * on a recorded transcript. Running a whole agent would re-run the transcript's tools (and
 * deepagents registers tools of its own under names transcripts use, `read_file`,
 * `edit_file`), so the benchmark plays the agent's part itself, step by step:
 *
 * - a tool result arrives through every middleware's `wrapToolCall` (the first middleware
 *   outermost), whose innermost handler returns the recorded `ToolMessage`;
 * - a new user message starts a turn: the `beforeAgent` hooks run;
 * - before each model call, the `beforeModel` hooks run, then the `wrapModelCall` hooks (the
 *   first outermost), whose innermost handler records what the model is sent (the system
 *   message, then the request's messages) and answers with the transcript's next message;
 *   the request's tools are the middlewares' own (deepagents counts their definitions), the
 *   transcript's tools being known only as a token count;
 * - every update a hook returns (a state update, a `Command`) goes into the state, messages
 *   through LangGraph's own `messagesStateReducer`. The model request holds the state's own
 *   message array, as `createAgent` passes it, so a hook that edits it in place (LangChain's
 *   `ClearToolUsesEdit`) edits the state, as it does in a real agent.
 *
 * `tests/unit/bench/peers/langchain-agent.test.ts` checks this against a real `createAgent` run.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';
import { isCommand, messagesStateReducer } from '@langchain/langgraph';
import type { Message } from '../../src/core/types.js';
import { langchainFormat, toCountedMessages } from './shared-summary.js';
import type { PeerTranscript } from './transcripts.js';

/** The state an agent keeps: its messages (the system prompt apart) and whatever middlewares add. */
type AgentState = Record<string, unknown> & { messages: BaseMessage[] };

type Handler<R> = (request: R) => Promise<unknown>;

interface ModelRequest {
  model: BaseChatModel;
  systemPrompt: string;
  systemMessage: SystemMessage;
  messages: BaseMessage[];
  tools: unknown[];
  state: AgentState;
  runtime: Readonly<{ context: Record<string, unknown> }>;
}

interface ToolRequest {
  toolCall: { id: string; name: string; args: Record<string, unknown>; type: 'tool_call' };
  tool: undefined;
  state: AgentState;
  runtime: Readonly<{ context: Record<string, unknown> }>;
}

type StateHook = (state: AgentState, runtime: Readonly<{ context: Record<string, unknown> }>) => unknown;

/** What the driver needs of a middleware (`createMiddleware`'s result). */
interface MiddlewareHooks {
  name: string;
  tools?: unknown[];
  beforeAgent?: StateHook | { hook: StateHook };
  beforeModel?: StateHook | { hook: StateHook };
  wrapModelCall?: (request: ModelRequest, handler: Handler<ModelRequest>) => Promise<unknown>;
  wrapToolCall?: (request: ToolRequest, handler: Handler<ToolRequest>) => Promise<unknown>;
}

/** Options of {@link createAgentHookDriver}. */
export interface AgentHookDriverOptions {
  transcript: PeerTranscript;
  /** The middlewares, in `createAgent`'s `middleware` order. */
  middleware: readonly object[];
  /** The agent's model, as `request.model` (deepagents summarizes with it). */
  model: BaseChatModel;
  /** State fields besides `messages`, at the start. */
  initialState?: Record<string, unknown>;
  /** The agent's own tools; the middlewares' tools are added after them, as `createAgent` does. @default [] */
  tools?: readonly unknown[];
}

function readHook(hook: StateHook | { hook: StateHook } | undefined): StateHook | undefined {
  return typeof hook === 'function' ? hook : hook?.hook;
}

/** The tool call `toolCallId` of the latest AI message that made it. */
function findToolCall(messages: readonly BaseMessage[], toolCallId: string): ToolRequest['toolCall'] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!AIMessage.isInstance(message)) continue;
    const call = message.tool_calls?.find((candidate) => candidate.id === toolCallId);
    if (call !== undefined) return { id: toolCallId, name: call.name, args: call.args, type: 'tool_call' };
  }
  return { id: toolCallId, name: 'unknown', args: {}, type: 'tool_call' };
}

/**
 * A driver that answers each request of `transcript` through `middleware`, as `createAgent`
 * would with the transcript's model answers and tool results.
 */
export function createAgentHookDriver(options: AgentHookDriverOptions): {
  prepareRequest(end: number): Promise<Message[]>;
} {
  const history = langchainFormat.fromCanonical(options.transcript.messages) as BaseMessage[];
  if (history.length !== options.transcript.messages.length) {
    throw new Error(
      `${options.transcript.name}: the LangChain form has ${history.length} messages, not ${options.transcript.messages.length}`,
    );
  }
  const first = history[0];
  const systemMessage = first !== undefined && SystemMessage.isInstance(first) ? first : new SystemMessage('');
  const hooks = options.middleware as readonly MiddlewareHooks[];
  const tools = [...(options.tools ?? []), ...hooks.flatMap((middleware) => middleware.tools ?? [])];
  const runtime = Object.freeze({ context: {} });
  const state: AgentState = { ...options.initialState, messages: [] };
  let seen = SystemMessage.isInstance(first) ? 1 : 0;

  const applyUpdate = (update: unknown): void => {
    const fields = (isCommand(update) ? update.update : update) as Record<string, unknown> | undefined;
    if (typeof fields !== 'object' || fields === null) return;
    for (const [key, value] of Object.entries(fields)) {
      if (key === 'messages') state.messages = messagesStateReducer(state.messages, value as BaseMessage[]);
      else state[key] = value;
    }
  };

  const runStateHooks = async (pick: (middleware: MiddlewareHooks) => StateHook | undefined): Promise<void> => {
    for (const middleware of hooks) {
      const hook = pick(middleware);
      if (hook !== undefined) applyUpdate(await hook(state, runtime));
    }
  };

  const addToolResult = async (result: ToolMessage): Promise<void> => {
    let handler: Handler<ToolRequest> = () => Promise.resolve(result);
    for (const middleware of [...hooks].reverse()) {
      const wrap = middleware.wrapToolCall;
      if (wrap === undefined) continue;
      const inner = handler;
      handler = (request) => wrap.call(middleware, request, inner);
    }
    const outcome = await handler({
      toolCall: findToolCall(state.messages, result.tool_call_id),
      tool: undefined,
      state,
      runtime,
    });
    applyUpdate(ToolMessage.isInstance(outcome) ? { messages: [outcome] } : outcome);
  };

  const callModel = async (answer: BaseMessage | undefined): Promise<BaseMessage[]> => {
    let sent: BaseMessage[] = [];
    let handler: Handler<ModelRequest> = (request) => {
      sent = [...(request.systemMessage.text === '' ? [] : [request.systemMessage]), ...request.messages];
      return Promise.resolve(answer ?? new AIMessage(''));
    };
    for (const middleware of [...hooks].reverse()) {
      const wrap = middleware.wrapModelCall;
      if (wrap === undefined) continue;
      const inner = handler;
      handler = (request) =>
        wrap.call(middleware, { ...request, state: { ...state, messages: state.messages }, runtime }, inner);
    }
    const request: ModelRequest = {
      model: options.model,
      systemPrompt: systemMessage.text,
      systemMessage,
      messages: state.messages,
      tools,
      state,
      runtime,
    };
    const outcome = await handler(request);
    if (isCommand(outcome)) applyUpdate(outcome);
    return sent;
  };

  return {
    async prepareRequest(end) {
      let newTurn = false;
      for (const message of history.slice(seen, end)) {
        if (ToolMessage.isInstance(message)) {
          await addToolResult(message);
          continue;
        }
        applyUpdate({ messages: [message] });
        newTurn ||= HumanMessage.isInstance(message);
      }
      seen = end;
      if (newTurn) await runStateHooks((middleware) => readHook(middleware.beforeAgent));
      await runStateHooks((middleware) => readHook(middleware.beforeModel));
      return toCountedMessages(await callModel(history[end]));
    },
  };
}
