/**
 * What the proxy remembers of a session between two of its requests, in this process: its
 * context manager, the usage the last response reported (for the next `prepare`), and the
 * request being prepared (for a summary asked of the upstream). The least recently used
 * sessions are forgotten past a bound; a forgotten session starts again from its store.
 */
import type { ContextManager } from '../core/manage/types.js';
import type { Message } from '../core/types.js';
import type { LastUsage } from '../core/tokens.js';
import type { UpstreamRequest } from './upstream-summarizer.js';

/** One session's state. */
export interface ProxySession {
  readonly id: string;
  readonly manager: ContextManager<Message>;
  /** The usage of the session's last answered request, for the next one; taken once. */
  lastUsage: LastUsage | undefined;
  /** The request being prepared, while a `prepare` runs. */
  current: UpstreamRequest | undefined;
}

/** Sessions by id, the least recently used forgotten first. */
export interface SessionTable {
  /** The session `id`, created with `createManager` the first time (or again after it was forgotten). */
  get(id: string): ProxySession;
  /** How many sessions are remembered. */
  readonly size: number;
}

/** A table of at most `maxSessions` sessions. */
export function createSessionTable(maxSessions: number, createManager: (id: string, session: () => ProxySession) => ContextManager<Message>): SessionTable {
  const sessions = new Map<string, ProxySession>();
  return {
    get(id) {
      let session = sessions.get(id);
      if (session !== undefined) {
        // most recent last: Map keeps insertion order
        sessions.delete(id);
        sessions.set(id, session);
        return session;
      }
      const created: ProxySession = { id, manager: createManager(id, () => created), lastUsage: undefined, current: undefined };
      session = created;
      sessions.set(id, session);
      while (sessions.size > maxSessions) {
        const oldest = sessions.keys().next().value as string;
        sessions.delete(oldest);
      }
      return session;
    },
    get size() {
      return sessions.size;
    },
  };
}
