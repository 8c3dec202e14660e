/**
 * `createProxyHandler`: a Node `(request, response)` handler that applies the context manager to
 * every model request an agent sends and forwards it to the upstream. Composition: the options,
 * the file store, one context manager per session, and per request the route, the session, the
 * prepared body, the forwarding and the usage read off the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertContentStore } from '../api/store-target.js';
import { selectCostModel } from '../core/cost/cost-model.js';
import { describeError } from '../core/errors.js';
import { resolveContextManagerOptions } from '../api/context-manager.js';
import type { Logger } from '../core/ports.js';
import type { Message } from '../core/types.js';
import { splitRequestBody, systemFieldOf } from '../formats/transcripts/request-body.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { defaultTokenCounter, preloadTokenizer } from '../infrastructure/tokenizer.js';
import { createFileStore } from '../stores/file-store.js';
import { decodeRequestBody } from './body-encoding.js';
import { forwardRequest, normalizeRequestPath } from './forward.js';
import { createProxyReads } from './proxy-reads.js';
import { createExtractiveSummarizer } from '../summarize.js';
import { READ_OFFLOADED_TOOL_NAME } from '../defaults.js';
import {
  DEFAULT_MAX_READ_ROUNDS,
  resolveProxyOptions,
  type ProxyHandlerOptions,
  type ProxyRequestEvent,
} from './proxy-options.js';
import { readRequestBody, sendError } from './request-body.js';
import {
  attributeProvider,
  COUNT_TOKENS_PATH,
  guessProvider,
  matchCountTokens,
  matchRoute,
  matchUnmanagedApi,
  type ProxyErrorKind,
  type ProxyProvider,
  type ProxyRoute,
} from './routes.js';
import { deriveProxySessionId, hashCredential, readClaudeCodeSession, readSessionHeader } from './session-id.js';
import { createBodyParser, type BodyLayout, type ParsedRequestBody } from './body-parser.js';
import { writeBodyPartsWithHistory } from './body-writer.js';
import { createSeenHistories } from './seen-histories.js';
import { createWarmManagers, type ManagerFactory } from './sessions.js';
import { createOverheadCounter } from './fixed-overhead.js';
import { createSplitStore } from './split-store.js';
import { summarizeUpstream } from './upstream-summarizer.js';
import { createUsageObserver } from './usage-observer.js';
import { createSessionManagerFactory } from './session-manager.js';
import { describeFailure, describeHeldBack, isOverWindow } from './request-outcome.js';
import { createHistoryFingerprinter, createUsageRecords, type HistoryFingerprints } from './usage-records.js';
import { createProxyStatistics } from './statistics.js';
import { createProxyMetrics } from './metrics.js';
import { handleOwnRoute, isOwnRoute, readPageToken } from './own-routes.js';
import { AUTH_HEADER, createTokenCheck } from './auth.js';
import { createUpgradeListener, type UpgradeListener } from './upgrade-forward.js';

/**
 * A Node HTTP request handler: `http.createServer(handler)`, or mounted in a server of your own.
 * Its promise never rejects. Its `upgrade` is the server's `'upgrade'` listener: WebSocket
 * connections (the Responses API WebSocket mode) pass through it unmanaged.
 */
export interface ContextProxyHandler {
  (request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** `server.on('upgrade', handler.upgrade)`: an upgrade goes to the upstream and both directions are piped as they are. */
  upgrade: UpgradeListener;
}

/** A request body prepared for the upstream, and what the answer's usage should be recorded against. */
interface PreparedRequest {
  /** The body, or its parts in order. */
  body: Buffer | Buffer[];
  /** The session and credential: the answer's usage is kept for their next request. */
  sessionKey: string;
  /** The history items sent, when the answer's usage can describe the next history's first items. */
  usageMessageCount: number | undefined;
  /** The client's history as it came: what the answer's figure is recorded under. */
  history: HistoryFingerprints['whole'];
  event: ProxyRequestEvent;
  /** The history sent, and the client's: for the session's figures. */
  sent: readonly Message[];
  unmanaged: readonly Message[];
  /** The history sent, in the route's format, and the body field it goes in: for reads the proxy answers. */
  wireHistory: { field: string; items: readonly unknown[] };
}

/** The request's `model`, when it names one. */
function readModel(body: unknown): string | undefined {
  return isRecord(body) && typeof body.model === 'string' && body.model.trim() !== '' ? body.model : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates the proxy's request handler. `POST /v1/messages` (Anthropic Messages), `POST
 * /v1/responses` (OpenAI Responses), `POST /v1/chat/completions` (OpenAI Chat Completions) and
 * `POST /v1beta/models/<model>:generateContent` or `:streamGenerateContent` (Gemini), streamed or not, have their history prepared by a context manager (large tool results
 * offloaded to files under `dir`, the history compacted when it reaches the trigger) before they
 * are forwarded; every other request is forwarded untouched. Headers (credentials included) and
 * the rest of the body go on as they came; the answer comes back as it arrives, byte for byte,
 * and the usage it reports is the session's `lastUsage` for its next request.
 *
 * `POST /v1/messages/count_tokens` is counted upstream for the history the proxy would send
 * (prepared by the session's manager, as the next request's would be). Paths under
 * `/_agent-context/` are answered by the proxy itself and never forwarded: the live page (`/`),
 * `health`, `api/sessions`, `api/sessions/<id>` (each session's figures, in memory),
 * `api/sessions/<id>/content?ref=` (what the proxy offloaded or archived for it, by reference)
 * and `metrics` (Prometheus text format). With `authToken`, every request must carry it in the
 * `x-agent-context-token` header (401 otherwise), which is never forwarded; the page alone may
 * carry it as `?token=` instead, since a browser opens a page without headers.
 *
 * Sessions: the `x-agent-context-session` header names one, else Claude Code's
 * `x-claude-code-session-id` (with the credential's hash folded in); without either the session
 * is derived from the system prompt, the first user message and a hash of the request's
 * credential, so two users never share one.
 *
 * The providers' own compaction passes whole: an Anthropic `compaction` block or an encrypted
 * Responses `compaction` item is the head of the history (it and what precedes it go on byte for
 * byte), `context_management` goes on as it came, and `POST /v1/responses/compact` is passed
 * through. A WebSocket upgrade (the Responses API WebSocket mode) passes through unmanaged by
 * `handler.upgrade`, the server's `'upgrade'` listener.
 *
 * Edges: a body in gzip, deflate, br or zstd is decoded and forwarded
 * decoded; a path is normalised before it is routed; without `upstream`, a request goes only
 * to the provider its path or headers name.
 *
 * Faults: invalid JSON is answered 400 and a body over `maxBodyBytes` (also once decoded) 413,
 * in the provider's error shape; so is, with 400, a path that climbs above its root, and,
 * without `upstream`, a request whose credential the proxy cannot attribute (an Azure key, a
 * Gemini key on another provider's path); an unreachable upstream 502; an upstream's own error is passed through. When the
 * context manager fails, the original request is forwarded unchanged and the failure logged.
 *
 * Counting: the tokenizer is loaded when the handler is created (~0.5 s), so no request waits
 * for it; a request's counting lets the event loop run every few milliseconds, so one session's
 * megabyte of base64 does not stall the others.
 *
 * @throws {InvalidOptionError} naming the option, or a key that is not an option, at creation.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createProxyHandler } from 'agent-context-offload/proxy';
 *
 * const handler = createProxyHandler({ dir: '.agent-context' });
 * createServer(handler).on('upgrade', handler.upgrade).listen(8787, '127.0.0.1');
 * // ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
 * ```
 */
export function createProxyHandler(options: ProxyHandlerOptions = {}): ContextProxyHandler {
  const settings = resolveProxyOptions(options);
  const logger: Logger = options.logger ?? consoleLogger;
  const fileStore = createFileStore({ dir: settings.dir });
  if (options.store !== undefined) assertContentStore(options.store);
  // with reads answered here, the shared store holds the content too: any proxy of a pool reads what another wrote
  const store =
    options.store === undefined
      ? fileStore
      : settings.readTool === 'proxy'
        ? options.store
        : createSplitStore(fileStore, options.store);
  const reads =
    settings.readTool === 'proxy'
      ? createProxyReads({
          store,
          maxSessions: settings.maxSessions,
          maxRounds: DEFAULT_MAX_READ_ROUNDS,
          maxAnswerBytes: settings.maxBodyBytes,
        })
      : undefined;
  const extractive = settings.summarizer === 'extractive' ? createExtractiveSummarizer() : undefined;
  const countOverhead = createOverheadCounter(defaultTokenCounter);
  const usages = createUsageRecords(store, settings.maxSessions, logger);
  const fingerprinter = createHistoryFingerprinter(settings.maxSessions, settings.maxKeptBytes);
  // usage being read off answers and recorded, by session and credential
  const readingUsage = new Map<string, Promise<void>>();

  // the manager's options, checked once here (not at the first request) by the public layer's own resolver
  const { contextTokenLimit: window } = resolveContextManagerOptions({
    store,
    contextTokenLimit: options.contextTokenLimit,
    workDir: options.workDir,
    offload: options.offload,
    compaction: options.compaction,
  });
  const createManager = createSessionManagerFactory({
    store,
    window,
    options,
    referenceReader: settings.readTool === 'proxy' ? 'read-tool' : 'own-tools',
    logger,
  });
  // the tokenizer takes ~0.5 s to load, the event loop held: before the server listens, not in its first request
  preloadTokenizer();
  // bounded in sessions and in the bytes of the requests their histories came in
  const managers = createWarmManagers(settings.maxSessions, settings.maxKeptBytes);
  const histories = createSeenHistories(settings.maxSessions, settings.maxKeptBytes);
  const bodies = createBodyParser(settings.maxSessions, settings.maxKeptBytes);
  const metrics = createProxyMetrics();
  const statistics = createProxyStatistics(settings.maxSessions, metrics, logger);

  async function prepare(
    route: ProxyRoute,
    request: IncomingMessage,
    raw: Buffer,
    body: Record<string, unknown>,
    layout: BodyLayout | undefined,
    credentialHash: string,
    sessionName: string | undefined,
    signal: AbortSignal,
  ): Promise<PreparedRequest> {
    const parts = splitRequestBody(body);
    const parsed = route.format.toCanonical(parts.items);
    const systemField = systemFieldOf(parts.historyField);
    const sessionId =
      sessionName ??
      readClaudeCodeSession(request.headers, credentialHash) ??
      deriveProxySessionId({ system: body[systemField], messages: parsed, credentialHash });
    const sessionKey = `${sessionId}\u0000${credentialHash}`;
    const canonical = histories.adopt(sessionKey, parsed, raw.length);
    await readingUsage.get(sessionKey);
    // the figure of the request this history follows, whichever process served it: not a sub-agent's, not another key's
    // (a token count reads it too: finding a figure leaves it for the request it anchors)
    const fingerprints = fingerprinter.fingerprint(sessionKey, canonical, raw.length);
    const lastUsage = await usages.find(sessionId, sessionKey, fingerprints);
    // the history does not hold the system prompt and tools: the manager counts them in when no usage figure does
    const fixedTokens = countOverhead([body[systemField], body.tools, reads?.definition(route.path)]);
    const create: ManagerFactory = (current) =>
      createManager(
        sessionId,
        route.provider,
        extractive ?? { summarize: (messages, summary) => summarizeUpstream(current(), messages, summary) },
        readModel(body),
      );
    const upstreamRequest = {
      route,
      upstream: settings.upstreamFor(route.provider),
      rawHeaders: request.rawHeaders,
      body,
      windowTokens: window,
    };
    const result = await managers.prepare(
      sessionKey,
      create,
      upstreamRequest,
      canonical,
      { lastUsage, signal, fixedTokens },
      raw.length,
    );
    const prepared = result.messages;
    const unchanged =
      prepared.length === canonical.length && prepared.every((message, index) => message === canonical[index]);
    const overWindow = isOverWindow(result, window);
    if (overWindow) {
      logger.warn(
        `agent-context proxy: ${route.path}: session ${sessionId}: the history is still over the window after the context manager's steps ` +
          `(about ${result.stats.tokensAfter} tokens of ${window}; ${describeHeldBack(result.actions)}); the request was sent on as it is`,
      );
    }
    let sent: Buffer | Buffer[] = raw;
    let sentBytes = raw.length;
    let items: readonly unknown[] = parts.items;
    if (!unchanged) {
      items = route.format.fromCanonical(prepared, parts.items);
      // the client's bytes for what the manager left alone, when they are known
      sent =
        layout !== undefined && body[parts.historyField] === parts.items
          ? writeBodyPartsWithHistory(raw, layout, parts.items, items)
          : Buffer.from(JSON.stringify({ ...body, [parts.historyField]: items }));
      sentBytes = Array.isArray(sent) ? sent.reduce((sum, part) => sum + part.length, 0) : sent.length;
    }
    // a compacted history is shorter than the one the client keeps: its figure describes no prefix of the next request
    const usageMessageCount = prepared.length === canonical.length ? canonical.length : undefined;
    return {
      body: sent,
      sessionKey,
      history: fingerprints.whole,
      usageMessageCount,
      event: {
        route: route.path,
        sessionId,
        outcome: overWindow ? 'over-window' : unchanged ? 'unchanged' : 'managed',
        actions: result.actions,
        stats: result.stats,
        messagesIn: canonical.length,
        messagesOut: prepared.length,
        bytesIn: raw.length,
        bytesOut: sentBytes,
      },
      sent: prepared,
      unmanaged: canonical,
      wireHistory: { field: parts.historyField, items },
    };
  }

  async function handleManaged(
    route: ProxyRoute,
    url: string,
    request: IncomingMessage,
    response: ServerResponse,
    countOnly = false,
  ): Promise<void> {
    const started = performance.now();
    const header = readSessionHeader(request.headers);
    if ('error' in header) return refuse(route, response, 'invalid-request', `agent-context proxy: ${header.error}`);
    const read = await readRequestBody(request, settings.maxBodyBytes);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too-large') {
      return refuse(
        route,
        response,
        'too-large',
        `agent-context proxy: the request body is over the proxy's limit of ${settings.maxBodyBytes} bytes`,
      );
    }
    const decoded = await decodeRequestBody(read.body, request.headers['content-encoding'], settings.maxBodyBytes);
    if (decoded.kind === 'unsupported') {
      // the client names the encoding: a name of its own is said once for all, not once each
      warnOnce(
        'encoding other',
        'agent-context proxy: request bodies in an encoding other than gzip, deflate, br or zstd are passed through unmanaged',
      );
      const upstream = settings.upstreamFor(route.provider);
      metrics.countRequest(route.path, 'passed-through');
      await forwardRequest(request, response, {
        upstream,
        url,
        body: read.body,
        onUnreachable: (error) => unreachable(response, route.provider, upstream, error),
      });
      return;
    }
    if (decoded.kind === 'too-large') {
      return refuse(
        route,
        response,
        'too-large',
        `agent-context proxy: the request body, decoded, is over the proxy's limit of ${settings.maxBodyBytes} bytes`,
      );
    }
    if (decoded.kind === 'invalid') {
      return refuse(
        route,
        response,
        'invalid-request',
        `agent-context proxy: the request body is not valid ${decoded.encoding} (${describeError(decoded.error)})`,
      );
    }
    const raw = decoded.body;
    const credentialHash = hashCredential(request.headers, url);
    let parsed: ParsedRequestBody;
    try {
      parsed = bodies.parse(raw, credentialHash);
    } catch (error) {
      return refuse(
        route,
        response,
        'invalid-request',
        `agent-context proxy: the request body is not valid JSON (${describeError(error)})`,
      );
    }
    let prepared: PreparedRequest | undefined;
    // the request's figures, recorded once its answer is out: counting them must not hold the answer back
    let recorded: { event: ProxyRequestEvent; sent: readonly Message[]; unmanaged: readonly Message[] } | undefined;
    const preparedAt = Date.now();
    // the route names the family (Anthropic's explicit breakpoints, OpenAI's automatic prefix cache), the model its discount
    // Gemini's implicit caching prices as OpenAI's automatic prefix caching does (no write premium), its cached reads at 0.25x
    const costModel =
      route.provider === 'gemini'
        ? selectCostModel({ provider: 'openai', model: readModel(parsed.value), override: { readRatio: 0.25 } })
        : selectCostModel({ provider: route.provider, model: readModel(parsed.value) });
    // a client that goes away stops a compaction under way (an upstream summary costs money)
    const gone = new AbortController();
    const onClose = (): void => gone.abort(new Error('the client went away'));
    response.once('close', onClose);
    try {
      const body = parsed.value;
      if (!isRecord(body)) throw new TypeError('the request body is not a JSON object');
      prepared = await prepare(route, request, raw, body, parsed.layout, credentialHash, header.sessionId, gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return;
      // fail-open: the agent keeps working with its request as it was
      logger.warn(
        `agent-context proxy: ${route.path}: the context manager failed (${describeFailure(error)}); the request was sent on unchanged`,
      );
      const event: ProxyRequestEvent = {
        route: route.path,
        sessionId: header.sessionId,
        outcome: 'fail-open',
        actions: [],
        messagesIn: 0,
        messagesOut: 0,
        bytesIn: raw.length,
        bytesOut: raw.length,
        error,
      };
      if (countOnly) metrics.countRequest(COUNT_TOKENS_PATH, 'fail-open');
      else {
        notify(event);
        recorded = { event, sent: [], unmanaged: [] };
      }
    }
    response.off('close', onClose);
    if (gone.signal.aborted) return;
    if (countOnly) {
      // the count of the history the next request would send: no request was made, nothing is recorded
      if (prepared !== undefined) metrics.countRequest(COUNT_TOKENS_PATH, prepared.event.outcome);
      const upstream = settings.upstreamFor(route.provider);
      // with reads answered here, the request goes upstream with the read tool: counted with it
      const withReadTool =
        reads === undefined || prepared === undefined
          ? undefined
          : reads.writeBody({
              route,
              body: parsed.value as Record<string, unknown>,
              historyField: prepared.wireHistory.field,
              history: prepared.wireHistory.items,
            });
      await forwardRequest(request, response, {
        upstream,
        url,
        body: withReadTool ?? prepared?.body ?? raw,
        decoded: decoded.kind === 'decoded',
        onUnreachable: (error) => unreachable(response, route.provider, upstream, error),
      });
      return;
    }
    if (prepared !== undefined) {
      notify(prepared.event);
      recorded = prepared;
    }
    metrics.observeLatency(route.path, (performance.now() - started) / 1000);
    const upstream = settings.upstreamFor(route.provider);
    // the usage of the answer to the history prepared: read off it on the side, recorded for the session's next request
    const observe = createUsageObserver({ route, prepared, usages, readingUsage });
    const answered =
      reads !== undefined && prepared?.event.sessionId !== undefined
        ? await reads.answer(
            request,
            response,
            {
              route,
              sessionId: prepared.event.sessionId,
              upstream,
              url,
              body: parsed.value as Record<string, unknown>,
              historyField: prepared.wireHistory.field,
              history: prepared.wireHistory.items,
            },
            {
              async onFirstAnswer(answer) {
                // the first answer's figure counts the history prepared; later rounds' count the reads the client never keeps
                const observer = observe({ statusCode: answer.status, headers: answer.headers });
                observer?.chunk(answer.body);
                await observer?.end();
              },
              onUnreachable: (error) => unreachable(response, route.provider, upstream, error),
              onTooManyRounds: (rounds) =>
                sendError(
                  response,
                  route.provider,
                  'invalid-request',
                  `agent-context proxy: the model still called ${READ_OFFLOADED_TOOL_NAME} after ${rounds} rounds of reads in one turn; ask it to read less at a time, or continue`,
                ),
            },
          )
        : undefined;
    if (answered !== undefined) metrics.countReads(route.path, answered.readCalls);
    else
      await forwardRequest(request, response, {
        upstream,
        url,
        body: prepared?.body ?? raw,
        decoded: decoded.kind === 'decoded',
        observe,
        onUnreachable: (error) => unreachable(response, route.provider, upstream, error),
      });
    if (recorded !== undefined)
      statistics.record(recorded.event, recorded.sent, recorded.unmanaged, preparedAt, costModel);
  }

  /** Answers a managed request with an error in its provider's shape, counted as refused. */
  function refuse(route: ProxyRoute, response: ServerResponse, kind: ProxyErrorKind, message: string): void {
    metrics.countRequest(route.path, 'refused');
    sendError(response, route.provider, kind, message);
  }

  // what is said once per process, by kind (an encoding passed through, a route left unmanaged)
  const warned = new Set<string>();
  function warnOnce(kind: string, message: string): void {
    if (warned.has(kind)) return;
    warned.add(kind);
    logger.warn(message);
  }

  function notify(event: ProxyRequestEvent): void {
    try {
      options.onRequest?.(event);
    } catch (error) {
      logger.warn(`agent-context proxy: the onRequest hook threw (${describeError(error)})`);
    }
  }

  function unreachable(response: ServerResponse, provider: ProxyProvider, upstream: URL, error: Error): void {
    const message = `agent-context proxy: the upstream ${upstream.origin} cannot be reached (${describeError(error)})`;
    logger.warn(message);
    sendError(response, provider, 'bad-gateway', message);
  }

  const hasToken = settings.authToken === undefined ? undefined : createTokenCheck(settings.authToken);
  // the live page alone may carry its token in its address: a browser sends no header when it opens a page
  const hasPageToken = (rawUrl: string | undefined): boolean => {
    const token = readPageToken(rawUrl);
    return token !== undefined && hasToken !== undefined && hasToken({ [AUTH_HEADER]: token });
  };

  const upgrade = createUpgradeListener({
    upstream: settings.upstream,
    upstreamFor: settings.upstreamFor,
    hasToken,
    warnOnce,
    // counted as the requests passed through and the unauthorized ones are
    count: (outcome) => metrics.countRequest(outcome === 'unauthorized' ? 'any' : 'other', outcome),
  });

  const handleProxyRequest = async function handleProxyRequest(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (hasToken !== undefined && !hasToken(request.headers) && !hasPageToken(request.url)) {
      metrics.countRequest('any', 'unauthorized');
      // the body is not read: the connection closes after the answer
      response.setHeader('connection', 'close');
      return sendError(
        response,
        guessProvider(request.url, request.headers),
        'unauthorized',
        `agent-context proxy: this proxy asks for its token in the ${AUTH_HEADER} header`,
      );
    }
    const url = normalizeRequestPath(request.url ?? '/');
    if (url === undefined) {
      // `/../admin` would reach the upstream as `/admin`, outside the base path it was given
      return sendError(
        response,
        guessProvider(request.url, request.headers),
        'invalid-request',
        "agent-context proxy: the request path must start with '/' and never climb above it with '..'",
      );
    }
    if (isOwnRoute(url)) {
      await handleOwnRoute(request, response, url, { sessions: statistics.sessions, metrics, store });
      return;
    }
    const route = matchRoute(request.method, url);
    let provider = route?.provider ?? guessProvider(url, request.headers);
    if (settings.upstream === undefined) {
      const attribution = attributeProvider(url, request.headers);
      if (attribution.provider === undefined) {
        const message = `agent-context proxy: ${attribution.reason} cannot be sent to a provider the proxy knows without handing its credential to another one; start the proxy with --upstream <that provider's URL> (the upstream option) to send it there`;
        warnOnce(`refused ${attribution.reason}`, message);
        return sendError(response, route?.provider ?? attribution.shape, 'invalid-request', message);
      }
      provider = attribution.provider;
    }
    const unmanaged = route === undefined ? matchUnmanagedApi(url) : undefined;
    if (unmanaged !== undefined) {
      warnOnce(
        `unmanaged ${unmanaged}`,
        'agent-context proxy: Azure OpenAI requests are passed through unmanaged: their history is not prepared',
      );
    }
    try {
      if (route !== undefined) {
        await handleManaged(route, url, request, response);
        return;
      }
      const counted = matchCountTokens(request.method, url);
      if (counted !== undefined) {
        await handleManaged(counted, url, request, response, true);
        return;
      }
      const upstream = settings.upstreamFor(provider);
      metrics.countRequest('other', 'passed-through');
      await forwardRequest(request, response, {
        upstream,
        url,
        onUnreachable: (error) => unreachable(response, provider, upstream, error),
      });
    } catch (error) {
      logger.warn(
        `agent-context proxy: ${request.method ?? ''} ${route?.path ?? 'request'} failed (${describeFailure(error)})`,
      );
      sendError(response, provider, 'bad-gateway', 'agent-context proxy: the request failed in the proxy');
    }
  };
  return Object.assign(handleProxyRequest, { upgrade });
}
