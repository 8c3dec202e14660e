/**
 * Sessions named by content: `deriveSessionId` gives the session a conversation's history
 * names, the same in every process, for servers that have nothing else to name it by (what
 * `createContextManager({ sessionId: 'auto' })` does with the history it is given).
 */
import { describeValue, InvalidOptionError } from '../core/errors.js';
import type { FormatName, MessageFormat } from '../core/format.js';
import { deriveSessionIdWith } from '../core/manage/session-id.js';
import { resolveFormat } from '../formats/index.js';
import { sha256Hashing } from '../infrastructure/sha256-hashing.js';

/** Options of {@link deriveSessionId}. */
export interface DeriveSessionIdOptions {
  /**
   * The shape of `messages`: a built-in format's name or an adapter of your own.
   * @default 'anthropic'
   */
  format?: FormatName | MessageFormat | undefined;
  /** The system prompt, when the messages do not hold it (a request's `system` field): any JSON value. */
  system?: unknown;
  /**
   * Folded into the session, so that two users whose conversations start alike ("hi") get two
   * sessions: a user id, or a hash of the request's credential (never the credential itself).
   */
  salt?: string | undefined;
}

/**
 * The session a conversation's history names: `auto-` and 32 hex digits of the sha256 of the
 * salt, the system prompt (`options.system`, else the history's leading system messages) and
 * the first user message. Prompt-cache markers (`cache_control`) are left out, so a client that
 * moves its markers from request to request keeps one session. Pure: the same history and
 * options give the same session in every process, whatever comes after the first user message.
 *
 * @throws {InvalidOptionError} for an unknown `format` or a `salt` that is not a string;
 * `INVALID_MESSAGE` when `messages` is not a history in that format.
 *
 * @example
 * ```ts
 * const sessionId = deriveSessionId(messages, { salt: userId });
 * const manager = createContextManager({ outputDir: '.context', sessionId });
 * ```
 */
export function deriveSessionId(messages: readonly unknown[], options: DeriveSessionIdOptions = {}): string {
  const fields: DeriveSessionIdOptions = options ?? {};
  if (fields.salt !== undefined && typeof fields.salt !== 'string')
    throw new InvalidOptionError(`salt must be a string, got ${describeValue(fields.salt)}`);
  if (!Array.isArray(messages))
    throw new InvalidOptionError(
      `messages must be an array (a conversation's history), got ${describeValue(messages)}`,
    );
  const format = resolveFormat(fields.format as FormatName | MessageFormat | undefined);
  const canonical = format.toCanonical(messages);
  return deriveSessionIdWith(canonical, sha256Hashing, { system: fields.system, salt: fields.salt });
}
