/**
 * A session wrapper whose compaction hook shrinks what the session stores. The Agents SDK's
 * runner calls `runCompaction()` on a session that has one after it has saved a finished turn;
 * this one runs the context manager over the stored items and writes the result back, so the
 * next run starts from the offloaded, compacted history.
 */
import type {
  AgentInputItem,
  OpenAIResponsesCompactionAwareSession,
  OpenAIResponsesCompactionResult,
  Session,
} from '@openai/agents';
import { describeValue, InvalidOptionError } from '../../core/errors.js';
import type { ContextAction } from '../../core/manage/types.js';
import { resolveAgentsContext } from './context-source.js';
import type { IntegrationContextManager } from '../manager-source.js';
import { sameMessages, startsWith } from '../same-messages.js';
import { keepRunInput } from './run-input.js';
import { isSameItem } from './same-item.js';

/** What one compaction of the stored history did, for {@link CompactingSessionOptions.onRewrite}. */
export interface SessionRewrite {
  /** Items stored before and after. */
  itemsBefore: number;
  itemsAfter: number;
  /** What the context manager did (offloads, a compaction), in order. */
  actions: ContextAction[];
}

/** Options of {@link createCompactingSession}. */
export interface CompactingSessionOptions {
  /** Called after the stored history was rewritten. */
  onRewrite?: ((rewrite: SessionRewrite) => void) | undefined;
}

/**
 * A session that stores through the session it wraps and, when the runner calls
 * `runCompaction()` after a turn, offloads and compacts the stored history with the context
 * manager.
 */
export type CompactingSession = OpenAIResponsesCompactionAwareSession & {
  /** The session this one stores through. */
  readonly session: Session;
};

const SESSION_METHODS = ['getSessionId', 'getItems', 'addItems', 'popItem', 'clearSession'] as const;

function assertSession(session: unknown): asserts session is Session {
  const fields = session as Record<string, unknown> | null;
  const missing =
    typeof session === 'object' && session !== null
      ? SESSION_METHODS.filter((method) => typeof fields?.[method] !== 'function')
      : [...SESSION_METHODS];
  if (missing.length > 0) {
    throw new InvalidOptionError(
      `session must be an Agents SDK Session (MemorySession, OpenAIConversationsSession, your own), got ${describeValue(session)}${typeof session === 'object' && session !== null ? ` without ${missing.map((method) => `${method}()`).join(', ')}` : ''}`,
    );
  }
}

/**
 * Wraps an Agents SDK `Session` so that the stored history is kept small: after each turn the
 * runner saves (it calls the session's `runCompaction()` hook), the context manager runs over
 * the stored items (tool outputs offloaded to the store as the manager's `offload.timing` says,
 * the history compacted into a summary when it is over the trigger), and when that changed
 * anything, the session is rewritten with the result (`clearSession()`, then `addItems()`). The
 * next `run()` over the session starts from that history. When an input filter over the same
 * store and session (`createCallModelInputFilter`) already offloaded or compacted this history
 * during the run, what it sent is what gets stored: the manager's records hold it, so nothing is
 * summarized twice. Every other call goes to the wrapped session as it is.
 *
 * The runner's compaction arguments (`responseId`, `compactionMode`, `store`, `force`) are for
 * the OpenAI Responses compaction endpoint and are not used: the manager's own trigger decides.
 * The hook returns `null` (its summarizer's usage is not the run's model usage).
 *
 * Run one turn at a time per session: a write that lands while the history is summarized is
 * kept (it is appended after the compacted history), but two runs compacting the same session
 * at once are not coordinated. When the rewrite fails, the previous history is put back and the
 * error is thrown.
 *
 * @param session - any `Session` (`MemorySession`, `OpenAIConversationsSession`, your own).
 * @param manager - `createContextManager({ format: 'openai-agents', ... })`.
 * @throws {InvalidOptionError} when `session` is not a session or `manager` not a context manager.
 *
 * @example
 * ```ts
 * const manager = createContextManager({ format: 'openai-agents', outputDir: '.offload', contextTokenLimit: 128_000 });
 * const session = createCompactingSession(new MemorySession(), manager);
 * await run(agent, 'Next question', { session });
 * ```
 */
export function createCompactingSession(
  session: Session,
  manager: IntegrationContextManager,
  options: CompactingSessionOptions = {},
): CompactingSession {
  assertSession(session);
  const context = resolveAgentsContext(manager);
  const onRewrite = options?.onRewrite;
  if (onRewrite !== undefined && typeof onRewrite !== 'function') {
    throw new InvalidOptionError(`onRewrite must be a function, got ${describeValue(onRewrite)}`);
  }
  // The runner passes its run context only to sessions that say they take it.
  const acceptsRunContext = (session as { acceptsRunContext?: unknown }).acceptsRunContext === true;
  const withContext = (runContext: unknown): unknown[] =>
    acceptsRunContext && runContext !== undefined ? [runContext] : [];
  const call = <R>(method: (...args: never[]) => R, ...args: unknown[]): R =>
    (method as (...args: unknown[]) => R).apply(session, args);

  const readAll = (runContext: unknown): Promise<AgentInputItem[]> =>
    call(session.getItems, undefined, ...withContext(runContext));

  const rewrite = async (items: AgentInputItem[], previous: AgentInputItem[], runContext: unknown): Promise<void> => {
    await call(session.clearSession, ...withContext(runContext));
    try {
      await call(session.addItems, items, ...withContext(runContext));
    } catch (error) {
      // Put the history back rather than leave the session empty.
      await call(session.clearSession, ...withContext(runContext));
      await call(session.addItems, previous, ...withContext(runContext));
      throw error;
    }
  };

  const runCompaction = async (
    _args?: unknown,
    runContext?: unknown,
  ): Promise<OpenAIResponsesCompactionResult | null> => {
    const stored = await readAll(runContext);
    if (stored.length === 0) return null;
    // A compaction the input filter made of this history (with the same manager's store) is
    // recorded there: it comes back as it was sent, rather than summarized a second time.
    const result = await context.manager.prepare(stored);
    const prepared = keepRunInput(result.messages, stored);
    if (sameMessages<unknown>(prepared, stored, isSameItem)) return null;
    // Whatever was added while the manager worked goes after the prepared history.
    const current = await readAll(runContext);
    if (!startsWith<unknown>(current, stored, isSameItem)) return null;
    const next = [...prepared, ...current.slice(stored.length)];
    await rewrite(next, current, runContext);
    onRewrite?.({ itemsBefore: current.length, itemsAfter: next.length, actions: result.actions });
    return null;
  };

  const wrapper: Record<string, unknown> = {
    session,
    getSessionId: () => session.getSessionId(),
    getItems: (limit?: number, runContext?: unknown) => call(session.getItems, limit, ...withContext(runContext)),
    addItems: (items: AgentInputItem[], runContext?: unknown) =>
      call(session.addItems, items, ...withContext(runContext)),
    popItem: (runContext?: unknown) => call(session.popItem, ...withContext(runContext)),
    clearSession: (runContext?: unknown) => call(session.clearSession, ...withContext(runContext)),
    runCompaction,
  };
  if (acceptsRunContext) wrapper.acceptsRunContext = true;
  // Optional capabilities that do not conflict with rewriting the history are passed through.
  // History transactions are not: their replayed suffixes assume a history nobody rewrote.
  for (const method of [
    'prepareHistoryItemForModelInput',
    'prepareHistoryItemsForPersistenceComparison',
    'preserveReasoningItemIdsForPersistence',
    'applyHistoryMutations',
  ] as const) {
    const value = (session as unknown as Record<string, unknown>)[method];
    if (typeof value === 'function')
      wrapper[method] = (...args: unknown[]) => (value as (...args: unknown[]) => unknown).apply(session, args);
  }
  return wrapper as unknown as CompactingSession;
}
