/**
 * What the proxy remembers of a session between two of its requests, in this process: the usage
 * its last answer reported, for the next request's `prepare`. Everything else a session is
 * lives in the store. The least recently used sessions are forgotten past a bound; a forgotten
 * session's next request just goes without the provider's figure.
 */
import type { LastUsage } from '../core/tokens.js';

/** The last usage of each session. */
export interface SessionUsages {
  /** The usage recorded for `sessionId`, removed: a figure describes one request only. */
  take(sessionId: string): LastUsage | undefined;
  /** Records the usage of `sessionId`'s last answer. */
  put(sessionId: string, usage: LastUsage): void;
}

/** A table of the usages of at most `maxSessions` sessions. */
export function createSessionUsages(maxSessions: number): SessionUsages {
  const usages = new Map<string, LastUsage>();
  return {
    take(sessionId) {
      const usage = usages.get(sessionId);
      usages.delete(sessionId);
      return usage;
    },
    put(sessionId, usage) {
      // most recent last: Map keeps insertion order
      usages.delete(sessionId);
      usages.set(sessionId, usage);
      if (usages.size > maxSessions) usages.delete(usages.keys().next().value as string);
    },
  };
}
