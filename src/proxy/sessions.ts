/**
 * What the proxy keeps of its sessions in this process, bounded in sessions and in bytes: the
 * usage each session's last answer reported (for its next `prepare`) and warm context managers. Everything a session is
 * lives in the store, so a forgotten entry costs only speed: a new manager reads the session's
 * records again, and a request without the provider's figure counts locally.
 */
import type { ContextManager, PrepareOptions, PrepareResult } from '../core/manage/types.js';
import type { Message } from '../core/types.js';
import type { UpstreamRequest } from './upstream-summarizer.js';
import { createLruMap } from '../core/util/lru-map.js';

/** Creates a manager whose summaries, when the upstream writes them, are asked with `current()`'s request. */
export type ManagerFactory = (current: () => UpstreamRequest | undefined) => ContextManager<Message>;

/** Warm managers by key, each preparing one request at a time. */
export interface WarmManagers {
  /**
   * Prepares `messages` on the manager of `key` (created with `create` when it has none) for
   * `request`; `bytes`, the size of the request body, is what the warm manager is counted as
   * holding (its last history), against the limit of bytes kept.
   */
  prepare(
    key: string,
    create: ManagerFactory,
    request: UpstreamRequest,
    messages: readonly Message[],
    options: PrepareOptions,
    bytes?: number,
  ): Promise<PrepareResult<Message>>;
}

interface WarmManager {
  manager: ContextManager<Message>;
  /** The latest request handed to it, kept only while one is in flight (it holds credentials). */
  request: UpstreamRequest | undefined;
  inFlight: number;
}

/**
 * At most `maxManagers` warm managers, holding the histories of bodies of at most `maxBytes` in
 * all; past either the least recently used is forgotten (a manager keeps its last history).
 */
export function createWarmManagers(maxManagers: number, maxBytes?: number): WarmManagers {
  const managers = createLruMap<WarmManager>(maxManagers, maxBytes);
  return {
    async prepare(key, create, request, messages, options, bytes) {
      let warm = managers.get(key);
      if (warm === undefined) {
        const created: WarmManager = { manager: create(() => created.request), request: undefined, inFlight: 0 };
        warm = created;
      }
      // counted at the size of what it now holds; past the limit, others are forgotten first
      managers.set(key, warm, bytes);
      // two requests of one key at once: the summary goes with the later one's, which share the session and the credential
      warm.request = request;
      warm.inFlight += 1;
      try {
        return await warm.manager.prepare(messages, options);
      } finally {
        warm.inFlight -= 1;
        if (warm.inFlight === 0) warm.request = undefined;
      }
    },
  };
}
