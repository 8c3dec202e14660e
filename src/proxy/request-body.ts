/**
 * Reading a request body whole, up to a limit, and answering in the provider's error shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_STATUS, formatErrorBody, type ProxyErrorKind, type ProxyProvider } from './routes.js';

/** A body read whole, or why it was not. */
export type BodyReadResult = { kind: 'body'; body: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

/** Reads `request`'s body, stopping as soon as it is known to exceed `maxBytes`. */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<BodyReadResult> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (result: BodyReadResult): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAbort);
      request.off('aborted', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > maxBytes) {
        chunks.length = 0;
        finish({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: 'body', body: Buffer.concat(chunks, length) });
    const onAbort = (): void => finish({ kind: 'aborted' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onAbort);
    request.on('aborted', onAbort);
  });
}

/**
 * Answers with an error in the provider's shape. A body left unread (too large) cannot be
 * drained at no cost, so that connection is closed after the answer.
 */
export function sendError(
  response: ServerResponse,
  provider: ProxyProvider,
  kind: ProxyErrorKind,
  message: string,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = formatErrorBody(provider, kind, message);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  if (kind === 'too-large') headers.connection = 'close';
  response.writeHead(ERROR_STATUS[kind], headers);
  response.end(body);
}
