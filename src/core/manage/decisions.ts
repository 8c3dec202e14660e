/**
 * What the manager decided, kept so it never changes: each offloaded tool result (by call id)
 * and the reference that replaced it. A history that comes back with the raw result again (a
 * framework that rebuilds its messages from the originals every step) gets the very same
 * reference, without writing anything.
 *
 * Recording costs nothing but the reference: the content is told apart by its length first, and
 * only when a raw result of the same id and length comes back is the stored content read once
 * and fingerprinted, so offloading never pays for hashing what it offloads.
 */
import { serializeToolResultContent } from '../offload-files.js';
import type { ContentStore } from '../ports.js';
import { toWellFormedText } from '../text.js';

/** How a result was offloaded: direct offload (`<sessionId>/<id>.md`, overwritten by the same id) or batch (write-once). */
export type OffloadMode = 'direct' | 'batch';

/** One offloaded result. */
export interface OffloadDecision {
  /** The reference text that replaced it in the history. */
  reference: string;
  /** Where its content is in the store (`undefined` when the store could not name it: never matched again). */
  key: string | undefined;
  /** Length of the stored content. */
  chars: number;
  mode: OffloadMode;
  /** Fingerprint of the stored content, once read. */
  fingerprint?: string | undefined;
}

/** FNV-1a over UTF-16 code units, with the length: tells contents apart, deterministically (not cryptographic). */
export function fingerprintText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${text.length}:${(hash >>> 0).toString(36)}`;
}

/** The text of a content that is one text block (how several frameworks wrap a tool's text), else `undefined`. */
export function readLoneText(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const block: unknown = content[0];
  if (typeof block !== 'object' || block === null) return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text : undefined;
}

/**
 * The texts a stored content of this result could be: the content as batch offload writes it
 * (a string, or JSON of blocks), and for a lone text block its text (as the manager's direct
 * offload and per-tool hooks write it). Well-formed, as every store holds text.
 */
export function readResultTexts(content: unknown): string[] {
  const texts = [toWellFormedText(serializeToolResultContent(content))];
  const text = readLoneText(content);
  if (text !== undefined) texts.push(toWellFormedText(text));
  return texts;
}

/** The decisions of one manager. */
export interface DecisionLog {
  /** Whether any decision was taken for this call id (a cheap check before anything else). */
  has(toolCallId: string): boolean;
  /** Whether this call id's result was offloaded directly (to `<id>.md`, which a direct offload of other content would overwrite). */
  hasDirect(toolCallId: string): boolean;
  /**
   * The reference that replaced exactly this content under this call id, if it was offloaded.
   * A candidate of the same length is confirmed against the stored content (read once).
   */
  find(toolCallId: string, content: unknown, store: ContentStore): Promise<string | undefined>;
  /** Records an offloaded result. */
  record(toolCallId: string, decision: OffloadDecision): void;
}

/** An empty decision log. */
export function createDecisionLog(): DecisionLog {
  const byId = new Map<string, OffloadDecision[]>();

  async function readFingerprint(decision: OffloadDecision, store: ContentStore): Promise<string> {
    if (decision.fingerprint === undefined) {
      let stored: string | undefined;
      try {
        stored = decision.key === undefined ? undefined : await store.get(decision.key);
      } catch {
        stored = undefined;
      }
      // unreadable: it can never be confirmed, so it never matches
      decision.fingerprint = stored === undefined ? '' : fingerprintText(stored);
    }
    return decision.fingerprint;
  }

  return {
    has: (toolCallId) => byId.has(toolCallId),
    hasDirect: (toolCallId) => byId.get(toolCallId)?.some((decision) => decision.mode === 'direct') ?? false,
    async find(toolCallId, content, store) {
      const decisions = byId.get(toolCallId);
      if (decisions === undefined) return undefined;
      const texts = readResultTexts(content);
      const fingerprints = new Map<string, string>();
      for (const decision of decisions) {
        const text = texts.find((candidate) => candidate.length === decision.chars);
        if (text === undefined) continue;
        let fingerprint = fingerprints.get(text);
        if (fingerprint === undefined) fingerprints.set(text, (fingerprint = fingerprintText(text)));
        if ((await readFingerprint(decision, store)) === fingerprint) return decision.reference;
      }
      return undefined;
    },
    record(toolCallId, decision) {
      const decisions = byId.get(toolCallId);
      if (decisions === undefined) byId.set(toolCallId, [decision]);
      else if (!decisions.some((known) => known.reference === decision.reference)) decisions.push(decision);
    },
  };
}
