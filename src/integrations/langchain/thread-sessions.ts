/**
 * One session per LangGraph thread. An agent is usually created once and invoked for many
 * conversations (`configurable.thread_id`); each conversation gets its own session in the store,
 * so the read tool of one thread cannot open another thread's references. The managers kept
 * here only spare work: a manager's decisions live in its session's store, so a thread whose
 * manager was dropped (or a restarted server) gets the same messages from a new one.
 */
import { DEFAULT_SESSION_ID } from '../../core/options/defaults.js';
import { createLruMap } from '../../core/util/lru-map.js';
import { cyrb53Base36 } from '../../core/offload/offload-names.js';
import { isSafePathSegment } from '../../core/store/safe-path.js';

/** The session of invocations without a `thread_id`: the context manager's own default. */
export const DEFAULT_THREAD_SESSION = DEFAULT_SESSION_ID;

/** Most managers kept at once; the least recently used goes first (its thread then gets a new one, which finds its session's records). */
const MAX_THREAD_MANAGERS = 1000;

/** The longest readable part of a session built from an unsafe thread id. */
const READABLE_CHARS = 120;

/**
 * The session folder of a thread: the thread id itself when it is a safe folder name
 * (`[A-Za-z0-9._-]`, as UUIDs are), else its safe characters and a hash of the whole id, which
 * tells apart ids that read the same once made safe.
 */
export function sessionForThread(threadId: unknown): string {
  if (threadId === undefined || threadId === null || threadId === '') return DEFAULT_THREAD_SESSION;
  const text = String(threadId);
  // Widened: the guard would narrow `text` to never below.
  if (isSafePathSegment(text as unknown)) return text;
  return `thread-${text.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, READABLE_CHARS)}-${cyrb53Base36(text)}`;
}

/** The `thread_id` of a LangGraph runtime or config, when it has one. */
export function threadIdOf(runtime: unknown): unknown {
  const configurable = (runtime as { configurable?: { thread_id?: unknown } } | null | undefined)?.configurable;
  return configurable?.thread_id;
}

/** Managers by session, created on first use, the least recently used dropped past the cap. */
export interface ThreadSessions<T> {
  /** The manager of `session`, created when there is none. */
  get(session: string): T;
}

/** Creates the cache; `create` builds the manager of a session. */
export function createThreadSessions<T>(
  create: (session: string) => T,
  maxSessions = MAX_THREAD_MANAGERS,
): ThreadSessions<T> {
  const sessions = createLruMap<T>(maxSessions);
  return {
    get(session) {
      const found = sessions.get(session);
      if (found !== undefined) return found;
      const created = create(session);
      sessions.set(session, created);
      return created;
    },
  };
}
