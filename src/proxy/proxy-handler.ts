/**
 * `createProxyHandler`: a Node `(request, response)` handler that applies the context manager to
 * every model request an agent sends and forwards it to the upstream. Composition: the options,
 * the file store, one context manager per session, and per request the route, the session, the
 * prepared body, the forwarding and the usage read off the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createContextManager } from '../api/context-manager.js';
import { assertContentStore } from '../api/store-target.js';
import { createExtractiveSummarizer } from '../core/compact/extractive-summarizer.js';
import { describeError } from '../core/errors.js';
import { resolveInitialCalibrationRatio } from '../core/manage/manager-options.js';
import type { ContextManager } from '../core/manage/types.js';
import { OPTIONS, resolveTableOption } from '../core/option-table.js';
import type { Logger, Summarizer } from '../core/ports.js';
import type { LastUsage } from '../core/tokens.js';
import type { Message } from '../core/types.js';
import { splitRequestBody } from '../formats/transcripts/request-body.js';
import { consoleLogger } from '../infrastructure/console-logger.js';
import { defaultTokenCounter, preloadTokenizer } from '../infrastructure/tokenizer.js';
import { createFileStore } from '../stores/file-store.js';
import { forwardRequest } from './forward.js';
import { resolveProxyOptions, type ProxyHandlerOptions, type ProxyRequestEvent } from './proxy-options.js';
import { readRequestBody, sendError } from './request-body.js';
import { guessProvider, matchRoute, toLastUsage, type ProxyProvider, type ProxyRoute } from './routes.js';
import { deriveProxySessionId, hashCredential, readSessionHeader } from './session-id.js';
import { createBodyParser, type BodyLayout, type ParsedRequestBody } from './body-parser.js';
import { writeBodyPartsWithHistory } from './body-writer.js';
import { createSeenHistories } from './seen-histories.js';
import { createLruMap } from '../core/lru-map.js';
import { createWarmManagers, type ManagerFactory } from './sessions.js';
import { createOverheadCounter } from './fixed-overhead.js';
import { createSplitStore } from './split-store.js';
import { summarizeUpstream } from './upstream-summarizer.js';
import { createUsageTap } from './usage-tap.js';

/** A Node HTTP request handler: `http.createServer(handler)`, or mounted in a server of your own. Its promise never rejects. */
export type ProxyHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** A request body prepared for the upstream, and what the answer's usage should be recorded against. */
interface PreparedRequest {
  /** The body, or its parts in order. */
  body: Buffer | Buffer[];
  sessionId: string;
  /** The history items sent, when the answer's usage can describe the next history's first items. */
  usageMessageCount: number | undefined;
  event: ProxyRequestEvent;
}

/**
 * A failure's description for the log: the error's own words, except values quoted from the
 * request (an invalid message's `got ...`), which are the agent's content and never logged.
 */
function describeFailure(error: unknown): string {
  const text = describeError(error);
  const quoted = text.indexOf(', got ');
  return quoted === -1 ? text.slice(0, 300) : text.slice(0, Math.min(quoted, 300));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates the proxy's request handler. `POST /v1/messages` (Anthropic Messages), `POST
 * /v1/responses` (OpenAI Responses) and `POST /v1/chat/completions` (OpenAI Chat Completions),
 * streamed or not, have their history prepared by a context manager (large tool results
 * offloaded to files under `dir`, the history compacted when it reaches the trigger) before they
 * are forwarded; every other request is forwarded untouched. Headers (credentials included) and
 * the rest of the body go on as they came; the answer comes back as it arrives, byte for byte,
 * and the usage it reports is the session's `lastUsage` for its next request.
 *
 * Sessions: the `x-agent-context-session` header names one; without it the session is derived
 * from the system prompt, the first user message and a hash of the request's credential, so
 * two users never share one.
 *
 * Faults: invalid JSON is answered 400 and a body over `maxBodyBytes` 413, in the provider's
 * error shape; an unreachable upstream 502; an upstream's own error is passed through. When the
 * context manager fails, the original request is forwarded unchanged and the failure logged.
 *
 * Counting: the tokenizer is loaded when the handler is created (~0.5 s), so no request waits
 * for it; a request's counting lets the event loop run every few milliseconds, so one session's
 * megabyte of base64 does not stall the others.
 *
 * @throws {InvalidOptionError} naming the option, at creation.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createProxyHandler } from 'agent-context-offload/proxy';
 *
 * createServer(createProxyHandler({ dir: '.agent-context' })).listen(8787, '127.0.0.1');
 * // ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
 * ```
 */
export function createProxyHandler(options: ProxyHandlerOptions = {}): ProxyHandler {
  const settings = resolveProxyOptions(options);
  const logger: Logger = options.logger ?? consoleLogger;
  const fileStore = createFileStore({ dir: settings.dir });
  if (options.store !== undefined) assertContentStore(options.store);
  const store = options.store === undefined ? fileStore : createSplitStore(fileStore, options.store);
  const extractive = settings.summarizer === 'extractive' ? createExtractiveSummarizer() : undefined;
  const window = resolveTableOption(OPTIONS.contextTokenLimit, options.contextTokenLimit, process.env);
  const countOverhead = createOverheadCounter(defaultTokenCounter);
  const usages = createLruMap<LastUsage>(settings.maxSessions);
  // usage being read off answers that have reached their clients, by session
  const readingUsage = new Map<string, Promise<void>>();

  // Managers stay warm per session, window and credential: the session's decisions are records
  // in the store, so a new manager (a forgotten one, another process) prepares a history alike.
  const createManager = (
    sessionId: string,
    provider: ProxyProvider,
    contextTokenLimit: number,
    summarizer: Summarizer,
  ): ContextManager<Message> =>
    createContextManager({
      store,
      sessionId,
      format: 'anthropic',
      provider,
      summarizer,
      contextTokenLimit,
      offload: { threshold: options.threshold, timing: options.offloadTiming },
      compaction: { trigger: { ratio: options.compactThresholdRatio } },
      // a proxy never puts its own files into an agent's context: restore only from a directory named for it
      workDir: options.workDir,
      logger,
    });
  // the manager checks its options when created: check them now, not at the first request
  createManager('check', 'anthropic', window, createExtractiveSummarizer());
  // the tokenizer takes ~0.5 s to load, the event loop held: before the server listens, not in its first request
  preloadTokenizer();
  const managers = createWarmManagers(settings.maxSessions);
  const histories = createSeenHistories(settings.maxSessions);
  const bodies = createBodyParser(settings.maxSessions);

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
    const systemField = parts.historyField === 'messages' ? 'system' : 'instructions';
    const sessionId =
      sessionName ?? deriveProxySessionId({ system: body[systemField], messages: parsed, credentialHash });
    const canonical = histories.adopt(`${sessionId}\u0000${credentialHash}`, parsed);
    await readingUsage.get(sessionId);
    const taken = usages.get(sessionId);
    usages.delete(sessionId);
    const lastUsage = taken !== undefined && taken.messageCount <= canonical.length ? taken : undefined;
    // Without the provider's figure the manager counts the history alone: the system prompt and
    // the tools take their share of the window first (scaled as the manager scales estimates).
    const overhead =
      lastUsage === undefined
        ? Math.ceil(countOverhead([body[systemField], body.tools]) * resolveInitialCalibrationRatio(route.provider))
        : 0;
    const limit = Math.max(1, window - overhead);
    const create: ManagerFactory = (current) =>
      createManager(
        sessionId,
        route.provider,
        limit,
        extractive ?? { summarize: (messages, summary) => summarizeUpstream(current(), messages, summary) },
      );
    const upstreamRequest = {
      route,
      upstream: settings.upstreamFor(route.provider),
      rawHeaders: request.rawHeaders,
      body,
    };
    const result = await managers.prepare(
      `${sessionId}\u0000${limit}\u0000${credentialHash}`,
      create,
      upstreamRequest,
      canonical,
      { lastUsage, signal },
    );
    const prepared = result.messages;
    const unchanged =
      prepared.length === canonical.length && prepared.every((message, index) => message === canonical[index]);
    let sent: Buffer | Buffer[] = raw;
    let sentBytes = raw.length;
    if (!unchanged) {
      const items = route.format.fromCanonical(prepared, parts.items);
      // the client's bytes for what the manager left alone, when they are known
      sent =
        layout !== undefined && body[parts.historyField] === parts.items
          ? writeBodyPartsWithHistory(raw, layout, parts.items, items)
          : Buffer.from(JSON.stringify({ ...body, [parts.historyField]: items }));
      sentBytes = Array.isArray(sent) ? sent.reduce((sum, part) => sum + part.length, 0) : sent.length;
    }
    return {
      body: sent,
      sessionId,
      // a compacted history is shorter than the one the client keeps: its figure describes no prefix of the next request
      usageMessageCount: prepared.length === canonical.length ? canonical.length : undefined,
      event: {
        route: route.path,
        sessionId,
        outcome: unchanged ? 'unchanged' : 'managed',
        actions: result.actions,
        stats: result.stats,
        messagesIn: canonical.length,
        messagesOut: prepared.length,
        bytesIn: raw.length,
        bytesOut: sentBytes,
      },
    };
  }

  async function handleManaged(route: ProxyRoute, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const header = readSessionHeader(request.headers);
    if ('error' in header)
      return sendError(response, route.provider, 'invalid-request', `agent-context proxy: ${header.error}`);
    const read = await readRequestBody(request, settings.maxBodyBytes);
    if (read.kind === 'aborted') return;
    if (read.kind === 'too-large') {
      return sendError(
        response,
        route.provider,
        'too-large',
        `agent-context proxy: the request body is over the proxy's limit of ${settings.maxBodyBytes} bytes`,
      );
    }
    const credentialHash = hashCredential(request.headers);
    let parsed: ParsedRequestBody;
    try {
      parsed = bodies.parse(read.body, credentialHash);
    } catch (error) {
      return sendError(
        response,
        route.provider,
        'invalid-request',
        `agent-context proxy: the request body is not valid JSON (${describeError(error)})`,
      );
    }
    let prepared: PreparedRequest | undefined;
    // a client that goes away stops a compaction under way (an upstream summary costs money)
    const gone = new AbortController();
    const onClose = (): void => gone.abort(new Error('the client went away'));
    response.once('close', onClose);
    try {
      const body = parsed.value;
      if (!isRecord(body)) throw new TypeError('the request body is not a JSON object');
      prepared = await prepare(
        route,
        request,
        read.body,
        body,
        parsed.layout,
        credentialHash,
        header.sessionId,
        gone.signal,
      );
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
        bytesIn: read.body.length,
        bytesOut: read.body.length,
        error,
      };
      notify(event);
    }
    response.off('close', onClose);
    if (gone.signal.aborted) return;
    if (prepared !== undefined) notify(prepared.event);
    const upstream = settings.upstreamFor(route.provider);
    await forwardRequest(request, response, {
      upstream,
      body: prepared?.body ?? read.body,
      observe(upstreamResponse) {
        const status = upstreamResponse.statusCode ?? 0;
        const sessionId = prepared?.sessionId;
        const messageCount = prepared?.usageMessageCount;
        if (sessionId === undefined || messageCount === undefined || status < 200 || status >= 300) return undefined;
        const tap = createUsageTap(
          route,
          upstreamResponse.headers['content-type'],
          upstreamResponse.headers['content-encoding'],
        );
        return {
          chunk: (chunk) => tap.write(chunk),
          end() {
            // the answer is out: the session's next request waits for its figures (an inflated body takes a few ms)
            const read = tap.end().then((figures) => {
              if (figures !== undefined) usages.set(sessionId, toLastUsage(route.provider, figures, messageCount));
              if (readingUsage.get(sessionId) === read) readingUsage.delete(sessionId);
            });
            readingUsage.set(sessionId, read);
          },
        };
      },
      onUnreachable: (error) => unreachable(response, route.provider, upstream, error),
    });
  }

  function notify(event: ProxyRequestEvent): void {
    try {
      options.onRequest?.(event);
    } catch (error) {
      logger.warn(`agent-context proxy: the onRequest hook threw (${describeError(error)})`);
    }
  }

  function unreachable(response: ServerResponse, provider: 'anthropic' | 'openai', upstream: URL, error: Error): void {
    const message = `agent-context proxy: the upstream ${upstream.origin} cannot be reached (${describeError(error)})`;
    logger.warn(message);
    sendError(response, provider, 'bad-gateway', message);
  }

  return async function handleProxyRequest(request, response) {
    const route = matchRoute(request.method, request.url);
    try {
      if (route !== undefined) {
        await handleManaged(route, request, response);
        return;
      }
      const provider = guessProvider(request.url, request.headers);
      const upstream = settings.upstreamFor(provider);
      await forwardRequest(request, response, {
        upstream,
        onUnreachable: (error) => unreachable(response, provider, upstream, error),
      });
    } catch (error) {
      logger.warn(
        `agent-context proxy: ${request.method ?? ''} ${route?.path ?? 'request'} failed (${describeFailure(error)})`,
      );
      sendError(
        response,
        route?.provider ?? guessProvider(request.url, request.headers),
        'bad-gateway',
        'agent-context proxy: the request failed in the proxy',
      );
    }
  };
}
