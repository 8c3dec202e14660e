/**
 * `contextOffloadMiddleware(options)`: the context manager as a LangChain `createAgent`
 * middleware.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import {
  createContextManager,
  type ContextManagerOptions,
  type ManagerCompactionOptions,
} from '../../api/context-manager.js';
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import type { MessageFormat } from '../../core/format.js';
import { createLangchainFormat } from '../../formats/langchain.js';
import { buildContextOffloadMiddleware, type ContextOffloadMiddleware } from './middleware.js';
import { buildLangchainReadTool } from './read-tool.js';
import { createThreadSessions, DEFAULT_THREAD_SESSION, sessionForThread, threadIdOf } from './thread-sessions.js';

/** The middleware's name unless given another. */
export const DEFAULT_MIDDLEWARE_NAME = 'ContextOffloadMiddleware';

/**
 * The user message appended after a compaction unless `compaction.resumeMessage` says otherwise: a
 * compacted history ends with the assistant's acknowledgement of the summary, and an agent
 * whose last message is its own reply without tool calls would stop (or, with some providers,
 * have its reply continued as a prefill).
 */
export const DEFAULT_RESUME_MESSAGE = 'Continue with the task.';

/**
 * Options of {@link contextOffloadMiddleware}: those of `createContextManager` (where offloaded
 * content goes, `contextTokenLimit`, the summarizer, hooks, the `offload` and `compaction`
 * groups, ...), without `format` (always LangChain messages), plus the middleware's name.
 * `compaction.resumeMessage` defaults to {@link DEFAULT_RESUME_MESSAGE} here, so that the agent
 * goes on with its task after the summary.
 */
export interface ContextOffloadMiddlewareOptions extends Omit<ContextManagerOptions<BaseMessage>, 'format'> {
  /**
   * The middleware's name, as LangChain shows it in errors and traces. Two middleware of one
   * agent must not share a name.
   * @default 'ContextOffloadMiddleware'
   */
  name?: string | undefined;
}

/** `compaction` with {@link DEFAULT_RESUME_MESSAGE} unless it names one; anything but an object is left for the manager to refuse. */
function withResumeMessage(compaction: ManagerCompactionOptions | undefined): ManagerCompactionOptions | undefined {
  if (compaction === undefined) return { resumeMessage: DEFAULT_RESUME_MESSAGE };
  if (
    typeof compaction !== 'object' ||
    compaction === null ||
    Array.isArray(compaction) ||
    compaction.resumeMessage !== undefined
  )
    return compaction;
  return { ...compaction, resumeMessage: DEFAULT_RESUME_MESSAGE };
}

/**
 * Creates a LangChain.js `createAgent` middleware that keeps the agent's context small:
 * - `wrapToolCall`: each tool result goes to the manager as it arrives, following its
 *   `offload.timing`. As results age (the default), a result of more than `offload.maxInlineResultChars`
 *   goes to the store and the `ToolMessage` the agent keeps holds its reference, head and tail;
 *   a smaller one stays whole for the model to act on. On arrival, each result of at least
 *   `offload.directThreshold` characters goes to the store and the `ToolMessage` holds the reference;
 * - `beforeModel`: before every model call, the context manager's `prepare` runs on the
 *   agent's messages (older results offloaded as they age, or by the ratio gate, and compaction
 *   when the history is still over `contextTokenLimit × compaction.triggerRatio`); when it changed
 *   anything, the state's messages are replaced with its result, so a compaction persists.
 *   Compaction summarizes whole turns (a tool call and its result are never split) and
 *   ends with `compaction.resumeMessage`, so the agent goes on;
 * - `tools`: it registers the read tool (`read_offloaded`), with which the model opens any
 *   reference; its own results are never offloaded.
 *
 * Synchronous, like the AI SDK and Agents SDK hooks: `createAgent` reads the middleware's
 * `tools` when it is called, so the read tool must already be a LangChain tool. This subpath
 * therefore imports `langchain` and `@langchain/core` when it is loaded; the package root and
 * the other subpaths never do, so both stay optional for everyone else.
 *
 * One agent serves many conversations: without `sessionId`, each LangGraph thread
 * (`configurable.thread_id`) gets its own context manager and its own session folder in the
 * store (the thread id, or a safe form of it), and the read tool of a thread opens only that
 * thread's references. Invocations without a thread id share the session `'default'`. With
 * `sessionId`, every invocation is that one conversation.
 *
 * @throws {InvalidOptionError} naming the option, as `createContextManager` does, before
 * anything is written.
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain';
 * import { contextOffloadMiddleware } from 'agent-context-offload/langchain';
 *
 * const agent = createAgent({
 *   model: 'anthropic:claude-sonnet-4-6',
 *   tools: [searchDocs, readFile],
 *   middleware: [contextOffloadMiddleware({ outputDir: '.context', contextTokenLimit: 200_000 })],
 * });
 * ```
 */
export function contextOffloadMiddleware(options: ContextOffloadMiddlewareOptions): ContextOffloadMiddleware {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError(
      `options must be an object { outputDir or store, ... }, got ${describeValue(options)}`,
    );
  }
  const { name = DEFAULT_MIDDLEWARE_NAME, ...managerOptions } = options;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new InvalidOptionError(`name must be a non-empty string (the middleware's name), got ${describeValue(name)}`);
  }
  if ('format' in managerOptions && (managerOptions as { format?: unknown }).format !== undefined) {
    throw new InvalidOptionError(
      'format is not an option of contextOffloadMiddleware: the agent state holds LangChain messages',
    );
  }
  // Fresh messages (a compaction's summary) are built with the caller's own classes.
  const format = createLangchainFormat({ messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage } });
  const createManager = (sessionId: string | undefined) =>
    createContextManager<BaseMessage>({
      ...managerOptions,
      ...(sessionId === undefined ? {} : { sessionId }),
      compaction: withResumeMessage(managerOptions.compaction),
      format: format as unknown as MessageFormat<BaseMessage>,
    });
  // Created now, so that a bad option throws here rather than at the first model call.
  const first = createManager(managerOptions.sessionId);
  // A fixed sessionId is one conversation; else each LangGraph thread is its own.
  const sessions = createThreadSessions((session) =>
    session === DEFAULT_THREAD_SESSION ? first : createManager(session),
  );
  const managerFor =
    managerOptions.sessionId === undefined
      ? (runtime: unknown) => sessions.get(sessionForThread(threadIdOf(runtime)))
      : () => first;
  return buildContextOffloadMiddleware({
    name,
    managerFor,
    readTool: buildLangchainReadTool(first.readTool, (config) => managerFor(config).readTool, tool),
  });
}
