/**
 * The provider's usage figures, as the proxy hands them to the context manager: a figure shapes
 * the next request (it anchors the estimate that decides offloads and compaction), so whichever
 * proxy serves that request must use the same one. Each figure is kept in the session's records
 * folder under the fingerprint of the history it counted, and written before the answer's last
 * bytes reach the client; the next request of that history (the one whose last assistant turn
 * is that answer) finds it there by key, in this process's memory first. A request whose
 * previous figure is nowhere (a failing store, a client that changed what it sent) counts
 * locally in every process alike. The fingerprints are seeded with the session key (session and
 * credential), so two credentials under one session name never share a figure, and a figure
 * anchors only the request that follows its answer (a sub-agent's history is another one).
 */
import {
  buildUsageRecordKey,
  serializeForFingerprint,
  startHistoryFingerprint,
  type RunningHash,
} from '../api/history-fingerprints.js';
import { describeError } from '../core/errors.js';
import type { ContentStore, Logger } from '../core/ports.js';
import type { LastUsage } from '../core/text/tokens.js';
import type { Message } from '../core/types.js';
import { createLruMap } from '../core/util/lru-map.js';

/** The fingerprints of one request's history: the whole of it, and the history of the request before it. */
export interface HistoryFingerprints {
  /** Messages and fingerprint of the whole history: what this request's figure will count. */
  whole: { messages: number; fingerprint: string };
  /** The history up to its last assistant turn (the request that turn answered), or `undefined` without one. */
  previous: { messages: number; fingerprint: string } | undefined;
}

/**
 * Fingerprints each request's history; `fingerprint(key, history, bytes)` per session key (the
 * key seeds the hash), `bytes` being the request body's size, counted against the memory bound.
 */
export interface HistoryFingerprinter {
  fingerprint(key: string, history: readonly Message[], bytes?: number): HistoryFingerprints;
}

/**
 * Fingerprints histories (prompt-cache markers left out, as the manager's records do). A
 * history that extends the one fingerprinted last under the same key, with the same message
 * objects (the proxy adopts the messages it has seen), hashes only its new messages: the hash
 * of the rest is kept, at most `maxSessions` of them, from bodies of at most `maxBytes` in all.
 */
export function createHistoryFingerprinter(maxSessions: number, maxBytes?: number): HistoryFingerprinter {
  const last = createLruMap<{ messages: readonly Message[]; hash: RunningHash; fingerprint: string }>(
    maxSessions,
    maxBytes,
  );
  return {
    fingerprint(key, history, bytes) {
      let lastAssistant = -1;
      for (let index = history.length - 1; index >= 0 && lastAssistant === -1; index -= 1)
        if (history[index]?.role === 'assistant') lastAssistant = index;
      const known = last.get(key);
      let from = 0;
      let hash: RunningHash;
      let previous: HistoryFingerprints['previous'];
      if (
        known !== undefined &&
        known.messages.length <= history.length &&
        known.messages.every((message, index) => message === history[index])
      ) {
        from = known.messages.length;
        hash = known.hash.copy();
        if (lastAssistant === from) previous = { messages: from, fingerprint: known.fingerprint };
      } else {
        hash = startHistoryFingerprint();
        hash.update(key);
      }
      for (let index = from; index < history.length; index += 1) {
        if (index === lastAssistant) previous = { messages: index, fingerprint: hash.digest() };
        hash.update(serializeForFingerprint(history[index] as Message));
      }
      // a history before the one known last: its last assistant turn lies in what was not hashed again
      if (previous === undefined && lastAssistant >= 0 && lastAssistant < from) {
        const again = startHistoryFingerprint();
        again.update(key);
        for (let index = 0; index < lastAssistant; index += 1)
          again.update(serializeForFingerprint(history[index] as Message));
        previous = { messages: lastAssistant, fingerprint: again.digest() };
      }
      const fingerprint = hash.digest();
      last.set(key, { messages: history.slice(), hash, fingerprint }, bytes);
      return { whole: { messages: history.length, fingerprint }, previous };
    },
  };
}

/** The figures of a proxy's sessions. */
export interface UsageRecords {
  /**
   * The figure of the request `fingerprints.previous` names, or `undefined` when none was
   * recorded; `sessionId` names the records folder, `sessionKey` the session and credential.
   */
  find(sessionId: string, sessionKey: string, fingerprints: HistoryFingerprints): Promise<LastUsage | undefined>;
  /** Keeps the figure of the request whose history `whole` names; never rejects (a failed write is warned about). */
  record(sessionId: string, sessionKey: string, whole: HistoryFingerprints['whole'], usage: LastUsage): Promise<void>;
}

/** Figures over `store`, the last one of at most `maxSessions` sessions kept in memory. */
export function createUsageRecords(store: ContentStore, maxSessions: number, logger: Logger): UsageRecords {
  const latest = createLruMap<{ key: string; usage: LastUsage }>(maxSessions);
  return {
    async find(sessionId, sessionKey, { previous }) {
      if (previous === undefined || previous.messages === 0) return undefined;
      const key = buildUsageRecordKey(sessionId, previous.messages, previous.fingerprint);
      const known = latest.get(sessionKey);
      if (known?.key === key) return known.usage;
      let text: string | undefined;
      try {
        text = await store.get(key);
      } catch (error) {
        logger.warn(
          `agent-context proxy: the usage figure ${key} could not be read (${describeError(error)}); counting locally`,
        );
        return undefined;
      }
      if (text === undefined) return undefined;
      try {
        const parsed = JSON.parse(text) as { version?: unknown; usage?: unknown };
        if (parsed.version === 1 && typeof parsed.usage === 'object' && parsed.usage !== null)
          return parsed.usage as LastUsage;
      } catch {
        // a record that does not parse is one that is not there
      }
      return undefined;
    },
    async record(sessionId, sessionKey, whole, usage) {
      const key = buildUsageRecordKey(sessionId, whole.messages, whole.fingerprint);
      latest.set(sessionKey, { key, usage });
      try {
        // the first figure of a history stays: a request sent again counts the same
        await store.putIfAbsent(key, `${JSON.stringify({ version: 1, usage })}\n`);
      } catch (error) {
        logger.warn(
          `agent-context proxy: the usage figure ${key} could not be written (${describeError(error)}); another process counts that request's successor locally`,
        );
      }
    },
  };
}
