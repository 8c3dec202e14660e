/**
 * Connection upgrades, passed through unmanaged: OpenAI's Responses WebSocket mode (`GET
 * /v1/responses` with `Upgrade: websocket`) and any other. The upgrade request goes to the
 * upstream with the client's headers (the proxy's own aside), the upstream's answer comes back
 * as it is, and once the protocol is switched both directions are piped byte for byte: the proxy
 * reads no frame, so nothing sent this way is offloaded or compacted.
 */
import { request as httpRequest, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { buildUpstreamHeaders, normalizeRequestPath, upstreamUrl } from './forward.js';
import { isOwnRoute } from './own-routes.js';
import {
  attributeProvider,
  ERROR_STATUS,
  formatErrorBody,
  guessProvider,
  type ProxyErrorKind,
  type ProxyProvider,
} from './routes.js';

/** A Node `'upgrade'` listener: `server.on('upgrade', handler.upgrade)`. */
export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** What the upgrade listener takes from the proxy it belongs to. */
export interface UpgradeListenerOptions {
  /** The one upstream of every request, if the proxy was given one. */
  upstream: URL | undefined;
  upstreamFor(provider: ProxyProvider): URL;
  /** Whether the request carries the proxy's token; `undefined` when the proxy asks for none. */
  hasToken: ((headers: IncomingHttpHeaders) => boolean) | undefined;
  /** Says `message` once per `kind` for the process. */
  warnOnce(kind: string, message: string): void;
  /** Counts an upgrade passed through or refused. */
  count(outcome: 'passed-through' | 'refused' | 'unauthorized'): void;
}

/** Response headers that belong to one connection, not to the message. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

function writeHead(statusCode: number, statusMessage: string | undefined, rawHeaders: readonly string[]): string {
  let head = `HTTP/1.1 ${statusCode} ${statusMessage ?? STATUS_CODES[statusCode] ?? ''}\r\n`;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2)
    head += `${rawHeaders[index] as string}: ${rawHeaders[index + 1] as string}\r\n`;
  return `${head}\r\n`;
}

/** Answers an upgrade the proxy refuses with an error in the provider's shape, then closes the connection. */
function refuseUpgrade(socket: Duplex, provider: ProxyProvider, kind: ProxyErrorKind, message: string): void {
  const body = formatErrorBody(provider, kind, message);
  const status = ERROR_STATUS[kind];
  const headers = [
    'content-type',
    'application/json',
    'content-length',
    String(Buffer.byteLength(body)),
    'connection',
    'close',
  ];
  socket.end(writeHead(status, undefined, headers) + body);
}

/**
 * Sends the upgrade `request` on to `target` and, once the upstream switches protocols, pipes the
 * two connections together. An upstream that answers without switching (a 401, a 404) has its
 * answer passed back and the connection closed; one that cannot be reached gets a 502 in
 * `provider`'s shape.
 */
function forwardUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: URL,
  provider: ProxyProvider,
): void {
  const headers = buildUpstreamHeaders(request.rawHeaders, target, undefined);
  // the one request whose connection headers are its point: the upgrade asked for goes on
  headers.connection = 'Upgrade';
  headers.upgrade = request.headers.upgrade;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(target, { method: request.method ?? 'GET', headers });
  let answered = false;
  const onClientGone = (): void => {
    if (answered) return;
    answered = true;
    upstream.destroy();
  };
  socket.on('error', onClientGone);
  socket.on('close', onClientGone);

  upstream.on('upgrade', (response, upstreamSocket, upstreamHead) => {
    answered = true;
    socket.write(writeHead(response.statusCode ?? 101, response.statusMessage, response.rawHeaders));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.pipe(socket);
    socket.pipe(upstreamSocket);
    // either side closing or failing ends the other
    upstreamSocket.on('error', () => socket.destroy());
    upstreamSocket.on('close', () => socket.destroy());
    socket.on('error', () => upstreamSocket.destroy());
    socket.on('close', () => upstreamSocket.destroy());
  });
  upstream.on('response', (response) => {
    answered = true;
    const rawHeaders: string[] = [];
    for (let index = 0; index + 1 < response.rawHeaders.length; index += 2) {
      const name = response.rawHeaders[index] as string;
      if (!CONNECTION_HEADERS.has(name.toLowerCase())) rawHeaders.push(name, response.rawHeaders[index + 1] as string);
    }
    // without a length, the body ends when the connection does
    rawHeaders.push('connection', 'close');
    socket.write(writeHead(response.statusCode ?? 502, response.statusMessage, rawHeaders));
    response.pipe(socket);
  });
  upstream.on('error', (error) => {
    if (answered) {
      socket.destroy();
      return;
    }
    answered = true;
    refuseUpgrade(
      socket,
      provider,
      'bad-gateway',
      `agent-context proxy: the upstream ${target.origin} cannot be reached (${error.message})`,
    );
  });
  upstream.end();
}

/**
 * The proxy's `'upgrade'` listener: the same checks as a request (its token, a path that stays
 * under its root, a credential sent only to its own provider), then the upgrade passed through
 * unmanaged, said once in the log.
 */
export function createUpgradeListener(options: UpgradeListenerOptions): UpgradeListener {
  return (request, socket, head) => {
    socket.on('error', () => undefined);
    const shape = guessProvider(request.url, request.headers);
    if (options.hasToken !== undefined && !options.hasToken(request.headers)) {
      options.count('unauthorized');
      return refuseUpgrade(
        socket,
        shape,
        'unauthorized',
        'agent-context proxy: this proxy asks for its token in the x-agent-context-token header',
      );
    }
    const url = normalizeRequestPath(request.url ?? '/');
    if (url === undefined || isOwnRoute(url)) {
      options.count('refused');
      return refuseUpgrade(
        socket,
        shape,
        'invalid-request',
        "agent-context proxy: an upgrade's path must start with '/', never climb above it and not be the proxy's own",
      );
    }
    let provider = shape;
    if (options.upstream === undefined) {
      const attribution = attributeProvider(url, request.headers);
      if (attribution.provider === undefined) {
        options.count('refused');
        return refuseUpgrade(
          socket,
          attribution.shape,
          'invalid-request',
          `agent-context proxy: ${attribution.reason} cannot be sent to a provider the proxy knows without handing its credential to another one; start the proxy with --upstream <that provider's URL> (the upstream option) to send it there`,
        );
      }
      provider = attribution.provider;
    }
    options.warnOnce(
      'upgrade',
      'agent-context proxy: WebSocket connections (the Responses API WebSocket mode) are passed through unmanaged: their history is not prepared',
    );
    options.count('passed-through');
    forwardUpgrade(request, socket, head, upstreamUrl(options.upstreamFor(provider), url), provider);
  };
}
