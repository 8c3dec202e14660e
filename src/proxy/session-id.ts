/**
 * Which session a request belongs to: the `x-agent-context-session` header when the client
 * sends one, else a name derived from what every request of one conversation repeats (the
 * system prompt and the first user message) and from a hash of the request's credential, so
 * two users of one proxy never share a session even when they open with the same words.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isSafePathSegment } from '../core/safe-path.js';
import type { Message } from '../core/types.js';

/** The request header that names the session explicitly. */
export const SESSION_HEADER = 'x-agent-context-session';

/** Headers that carry a credential: their values are hashed into the session, never kept. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key'] as const;

/** Prefix of a derived session id: tells them apart from names a client chose. */
const DERIVED_PREFIX = 'auto-';

/** JSON of `value` without the prompt-cache markers, which clients move from request to request. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (key, field: unknown) => (key === 'cache_control' ? undefined : field)) ?? '';
}

/** The credential's hash: a digest of the credential headers' values (never the values themselves). */
export function hashCredential(headers: IncomingHttpHeaders): string {
  const hash = createHash('sha256');
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers[name];
    hash.update(`${name}\u0000${Array.isArray(value) ? value.join('\u0000') : (value ?? '')}\u0001`);
  }
  return hash.digest('hex');
}

/** What the automatic session is derived from. */
export interface SessionSource {
  /** The body's own system prompt field (`system`, `instructions`), when it has one. */
  system: unknown;
  /** The history as canonical messages: its leading system messages and first user message count. */
  messages: readonly Message[];
  /** {@link hashCredential} of the request. */
  credentialHash: string;
}

/**
 * The automatic session id: `auto-` and 40 hex digits of a SHA-256 over the system prompt (the
 * body's field and the history's leading system messages), the first user message and the
 * credential's hash. Prompt-cache markers are left out, as clients move them every turn.
 */
export function deriveSessionId(source: SessionSource): string {
  const hash = createHash('sha256');
  hash.update(`${source.credentialHash}\u0001`);
  hash.update(`${stableJson(source.system)}\u0001`);
  let index = 0;
  for (; index < source.messages.length && source.messages[index]?.role === 'system'; index += 1) {
    hash.update(`${stableJson(source.messages[index]?.content)}\u0001`);
  }
  const firstUser = source.messages.find((message) => message.role === 'user');
  hash.update(`\u0002${stableJson(firstUser?.content)}`);
  return `${DERIVED_PREFIX}${hash.digest('hex').slice(0, 40)}`;
}

/**
 * The session the header names, `undefined` when the header is absent, or an error message when
 * it is not a usable name (1-200 characters of `[A-Za-z0-9._-]`, not `.` or `..`).
 */
export function readSessionHeader(headers: IncomingHttpHeaders): { sessionId: string | undefined } | { error: string } {
  const value = headers[SESSION_HEADER];
  if (value === undefined) return { sessionId: undefined };
  const name = Array.isArray(value) ? value[0] : value;
  if (name === undefined || !isSafePathSegment(name)) {
    return { error: `the ${SESSION_HEADER} header must be 1-200 characters of letters, digits, ".", "_" and "-" (not "." or ".."), got ${JSON.stringify(String(name).slice(0, 40))}` };
  }
  return { sessionId: name };
}
