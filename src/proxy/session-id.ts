/**
 * Which session a request belongs to: the `x-agent-context-session` header when the client
 * sends one, else a name derived from what every request of one conversation repeats (the
 * system prompt and the first user message) and from a hash of the request's credential, so
 * two users of one proxy never share a session even when they open with the same words.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { deriveSessionId } from '../api/session-id.js';
import { isSafePathSegment } from '../core/store/safe-path.js';
import type { Message } from '../core/types.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';

/** The request header that names the session explicitly. */
export const SESSION_HEADER = 'x-agent-context-session';

/** Claude Code's header naming its session (a UUID), sent with every request of one conversation. */
export const CLAUDE_CODE_SESSION_HEADER = 'x-claude-code-session-id';

/**
 * The session Claude Code's header names, with the credential's hash folded in (two users who
 * send one id never share a session): `claude-<id>-<12 hex digits>`; `undefined` when the header
 * is absent or not a usable name (then the session is derived, as for any client).
 */
export function readClaudeCodeSession(headers: IncomingHttpHeaders, credentialHash: string): string | undefined {
  const value = headers[CLAUDE_CODE_SESSION_HEADER];
  if (typeof value !== 'string' || value.length > 150 || !isSafePathSegment(value)) return undefined;
  return `claude-${value}-${credentialHash.slice(0, 12)}`;
}

/** Headers that carry a credential: their values are hashed into the session, never kept. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key'] as const;

/**
 * The credential's hash: a digest of the credential headers' values and of a Gemini key given as
 * the `key=` query of `url` (never the values themselves). A Gemini credential is folded in only
 * when present, so every other request's hash is what it always was.
 */
export function hashCredential(headers: IncomingHttpHeaders, url = ''): string {
  const hash = sha256Hashing.create();
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers[name];
    hash.update(`${name}\u0000${Array.isArray(value) ? value.join('\u0000') : (value ?? '')}\u0001`);
  }
  const googleKey = headers['x-goog-api-key'];
  if (googleKey !== undefined)
    hash.update(`x-goog-api-key\u0000${Array.isArray(googleKey) ? googleKey.join('\u0000') : googleKey}\u0001`);
  const queryStart = url.indexOf('?');
  const queryKey = queryStart === -1 ? null : new URLSearchParams(url.slice(queryStart + 1)).get('key');
  if (queryKey !== null) hash.update(`key=\u0000${queryKey}\u0001`);
  return hash.digest();
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
 * The automatic session id ({@link deriveSessionId}'s `auto-` and 32 hex digits), salted with
 * the credential's hash. Prompt-cache markers are left out (by `deriveSessionId`): Claude Code
 * marks the last message of each request, so its first user message carries one in the first
 * request only.
 */
export function deriveProxySessionId(source: SessionSource): string {
  const firstUser = source.messages.findIndex((message) => message.role === 'user');
  const head = source.messages.slice(0, firstUser + 1);
  return deriveSessionId(head, {
    ...(source.system !== undefined && { system: source.system }),
    salt: source.credentialHash,
  });
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
    return {
      error: `the ${SESSION_HEADER} header must be 1-200 characters of letters, digits, ".", "_" and "-" (not "." or ".."), got ${JSON.stringify(String(name).slice(0, 40))}`,
    };
  }
  return { sessionId: name };
}
