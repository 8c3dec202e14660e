/**
 * Sessions named by content, for servers that have nothing else to name a conversation by: the
 * session of a history is derived from its system prompt and its first user message, which
 * stay the same for the whole conversation when the caller sends its own (raw) history.
 */
import type { Message } from '../types.js';
import { sha256Hex, type Hashing } from './records/fingerprint.js';

/** The `sessionId` value that asks for a session derived from the history. */
export const AUTO_SESSION_ID = 'auto';

/** What a derived session is made from besides the messages. */
export interface SessionDerivation {
  /** The system prompt when the messages do not hold it (the request's `system` field). */
  system?: unknown;
  /** Folded into the hash, so equal conversations of different users get different sessions (a hash of a credential, a user id). */
  salt?: string | undefined;
}

/** Hex digits of the hash a derived session carries (128 bits). */
const SESSION_HASH_CHARS = 32;

/** Leaves out prompt-cache markers, which clients move from request to request (Claude Code marks the last message of each). */
const dropCacheMarkers = (key: string, value: unknown): unknown => (key === 'cache_control' ? undefined : value);

/**
 * `auto-<32 hex>`: the sha256 of the salt, the system prompt (`derivation.system`, else the
 * leading system messages) and the first user message, prompt-cache markers (`cache_control`)
 * left out: a client that moves its markers keeps its session. The same inputs give the same
 * session in every process; anything else, another one.
 */
export function deriveSessionIdWith(
  messages: readonly Message[],
  hashing: Hashing,
  derivation: SessionDerivation = {},
): string {
  let head = 0;
  while (head < messages.length && messages[head]?.role === 'system') head += 1;
  const system =
    derivation.system !== undefined ? derivation.system : messages.slice(0, head).map((message) => message.content);
  const firstUser = messages.find((message) => message.role === 'user')?.content ?? null;
  const text = JSON.stringify({ salt: derivation.salt ?? '', system: system ?? null, firstUser }, dropCacheMarkers);
  return `auto-${sha256Hex(hashing, text).slice(0, SESSION_HASH_CHARS)}`;
}
