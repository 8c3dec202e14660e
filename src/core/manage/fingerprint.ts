/**
 * Content fingerprints: the manager keys its records by what a history holds, never by which
 * JavaScript object a message is, so a history rebuilt from JSON in another process finds them.
 * The hash itself comes through a port (the core has no crypto); it must be cryptographic
 * (sha256), since with a session named by content a crafted collision would hand one user's
 * compacted context to another.
 */
import type { Message } from '../types.js';

/** A running hash over text: `update` adds to it, `copy` forks its state, `digest` reads it (hex) without ending it. */
export interface RunningHash {
  update(text: string): void;
  /** An independent hash in the same state: its updates do not reach this one. */
  copy(): RunningHash;
  /** The hex digest of everything added so far; the hash can go on after it. */
  digest(): string;
}

/** Creates running hashes (sha256 over UTF-8). */
export interface Hashing {
  create(): RunningHash;
}

/** Written first into every history fingerprint: a change of the scheme changes every fingerprint. */
const HISTORY_FINGERPRINT_SEED = 'agent-context-offload history v1\n';

/** The text one message adds to a history fingerprint: its JSON (which holds no raw newline), then a newline. */
export function serializeForFingerprint(message: Message): string {
  return `${JSON.stringify(message)}\n`;
}

/** A fresh history fingerprint (no message yet). */
export function startHistoryHash(hashing: Hashing): RunningHash {
  const hash = hashing.create();
  hash.update(HISTORY_FINGERPRINT_SEED);
  return hash;
}

/** The hex sha256 of one text. */
export function hashText(hashing: Hashing, text: string): string {
  const hash = hashing.create();
  hash.update(text);
  return hash.digest();
}
