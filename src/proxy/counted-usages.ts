/**
 * The usage figures the proxy read off answers, each kept with the fingerprint of the history it
 * counted. A figure anchors only a later request of the same session and credential whose
 * history starts with that history: a sub-agent sharing the main agent's session header, or
 * another credential under the same session name, never takes another conversation's figure.
 */
import { createCountedHistoryFingerprints } from '../core/manage/usage-anchor.js';
import type { Hashing } from '../core/manage/fingerprint.js';
import { createLruMap } from '../core/lru-map.js';
import type { LastUsage } from '../core/tokens.js';
import type { Message } from '../core/types.js';

/**
 * Figures kept per session: the conversations that share one session name at once (a main
 * agent and the sub-agents it runs in parallel) each find their own.
 */
export const COUNTED_USAGES_PER_SESSION = 8;

interface CountedUsage {
  usage: LastUsage;
  /** The fingerprint of the history the figure counted (its first `usage.messageCount` messages). */
  fingerprint: string;
}

/** Usage figures by session key, each with the history it counted. */
export interface CountedUsages {
  /** The fingerprint of `history`'s first `messageCount` messages, to keep with the figure its answer reports. */
  fingerprint(history: readonly Message[], messageCount: number): string;
  /** Keeps `usage` for `key`, counted for the history of `fingerprint`. */
  keep(key: string, usage: LastUsage, fingerprint: string): void;
  /**
   * Takes out the figure of `key` whose counted history `history` starts with (the one covering
   * the most messages), or `undefined` when none does.
   */
  take(key: string, history: readonly Message[]): LastUsage | undefined;
  /** The figure {@link CountedUsages.take} would take, left in place (a token count is not the request it anchors). */
  peek(key: string, history: readonly Message[]): LastUsage | undefined;
}

/** Figures of at most `maxSessions` sessions, the least recently used forgotten. */
export function createCountedUsages(maxSessions: number, hashing: Hashing): CountedUsages {
  const sessions = createLruMap<CountedUsage[]>(maxSessions);
  const fingerprints = createCountedHistoryFingerprints(hashing);
  /** The figure of `key` whose counted history `history` starts with, covering the most messages. */
  const find = (kept: readonly CountedUsage[], history: readonly Message[]): CountedUsage | undefined => {
    let best: CountedUsage | undefined;
    for (const counted of kept) {
      const { messageCount } = counted.usage;
      if (messageCount > history.length || (best !== undefined && messageCount <= best.usage.messageCount)) continue;
      if (fingerprints.of(history, messageCount) === counted.fingerprint) best = counted;
    }
    return best;
  };
  return {
    fingerprint: (history, messageCount) => fingerprints.of(history, messageCount),
    peek(key, history) {
      const kept = sessions.get(key);
      return kept === undefined ? undefined : find(kept, history)?.usage;
    },
    keep(key, usage, fingerprint) {
      const kept = (sessions.get(key) ?? []).filter((counted) => counted.fingerprint !== fingerprint);
      kept.push({ usage, fingerprint });
      sessions.set(key, kept.slice(-COUNTED_USAGES_PER_SESSION));
    },
    take(key, history) {
      const kept = sessions.get(key);
      if (kept === undefined) return undefined;
      const best = find(kept, history);
      if (best === undefined) return undefined;
      // a figure anchors the request it is given to: the next one has the figure of its own answer
      sessions.set(
        key,
        kept.filter((counted) => counted !== best),
      );
      return best.usage;
    },
  };
}
