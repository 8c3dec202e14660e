/**
 * The proxy's own credential: with an auth token, every request (to the proxy's routes and to
 * the forwarded ones) must carry it in the `x-agent-context-token` header, which is never sent
 * on. Compared in constant time: both sides are hashed first, so neither the bytes nor the
 * length of the token leak through the time an answer takes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The request header that carries the proxy's auth token. */
export const AUTH_HEADER = 'x-agent-context-token';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Whether a request's headers carry `token`: a check made once per request. */
export type TokenCheck = (headers: IncomingHttpHeaders) => boolean;

/** The check of `token`. */
export function createTokenCheck(token: string): TokenCheck {
  const expected = digest(token);
  return (headers) => {
    const value = headers[AUTH_HEADER];
    // a repeated header is not a token: the check never picks one of several
    if (typeof value !== 'string') return false;
    return timingSafeEqual(digest(value), expected);
  };
}
