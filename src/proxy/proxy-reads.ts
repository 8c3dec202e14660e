/**
 * The proxy's side of `readTool: 'proxy'`: one read tool per session over the store the
 * session's content is in, and the request sent with that tool among its tools, the model's
 * calls to it answered before the client gets an answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadOffloadedTool, type ReadOffloadedTool } from '../api/read-offloaded-tool.js';
import { createLruMap } from '../core/util/lru-map.js';
import type { ContentStore } from '../core/ports.js';
import { createReadToolWire } from './read-calls.js';
import { answerWithReads, type AnswerWithReadsResult, type HeldAnswer } from './read-rounds.js';
import type { ProxyRoute, ProxyRoutePath } from './routes.js';

/** A prepared request, as the read rounds send it. */
interface ReadRequest {
  route: ProxyRoute;
  sessionId: string;
  upstream: URL;
  url: string;
  /** The client's body (its history and tools are replaced). */
  body: Readonly<Record<string, unknown>>;
  historyField: string;
  /** The history as prepared, in the route's format. */
  history: readonly unknown[];
}

/** What the handler does around the rounds: the first answer's usage, and the client's errors. */
interface ReadRequestHooks {
  onFirstAnswer(answer: HeldAnswer): Promise<void>;
  onUnreachable(error: Error): void;
  onTooManyRounds(rounds: number): void;
}

/** Answers managed requests' read calls in the proxy. */
export interface ProxyReads {
  /** The read tool's definition as `route` takes it: counted with the request's fixed overhead. */
  definition(route: ProxyRoutePath): unknown;
  /**
   * The body of `prepared` with the read tool among its tools, as its first round goes upstream
   * (a token count counts it so); `undefined` when the client has a tool of that name already.
   */
  writeBody(prepared: Omit<ReadRequest, 'sessionId' | 'upstream' | 'url'>): Buffer | undefined;
  /**
   * Sends `prepared` with the read tool and answers its reads; `undefined`, with nothing sent,
   * when the client has a tool of the read tool's name already (the request is the client's to
   * forward as it is).
   */
  answer(
    request: IncomingMessage,
    response: ServerResponse,
    prepared: ReadRequest,
    hooks: ReadRequestHooks,
  ): Promise<AnswerWithReadsResult | undefined>;
}

/** Options of {@link createProxyReads}. */
export interface ProxyReadsOptions {
  /** The store the sessions' content is in. */
  store: ContentStore;
  /** Sessions whose read tool (and the line positions it learnt) is kept. */
  maxSessions: number;
  maxRounds: number;
  maxAnswerBytes: number;
}

/** Creates the proxy's read answering over `options.store`. */
export function createProxyReads(options: ProxyReadsOptions): ProxyReads {
  const tools = createLruMap<ReadOffloadedTool>(options.maxSessions);
  const toolFor = (sessionId: string): ReadOffloadedTool => {
    let tool = tools.get(sessionId);
    if (tool === undefined) {
      // bound to the session: a model never reads another session's content, whatever reference it makes up
      tool = createReadOffloadedTool({ store: options.store, sessionId });
      tools.set(sessionId, tool);
    }
    return tool;
  };
  // the definition is the same for every session: the description and the schema name none
  const definitions = createReadOffloadedTool({ store: options.store });
  return {
    definition: (route) => createReadToolWire(route, definitions).definition,
    writeBody(prepared) {
      const tools = createReadToolWire(prepared.route.path, definitions).addTool(prepared.body.tools);
      if (tools === undefined) return undefined;
      return Buffer.from(
        JSON.stringify({ ...prepared.body, tools, [prepared.historyField]: prepared.history }),
        'utf8',
      );
    },
    async answer(request, response, prepared, hooks) {
      const readTool = toolFor(prepared.sessionId);
      const wire = createReadToolWire(prepared.route.path, readTool);
      const withTool = wire.addTool(prepared.body.tools);
      if (withTool === undefined) return undefined;
      return answerWithReads(request, response, {
        upstream: prepared.upstream,
        url: prepared.url,
        body: { ...prepared.body, tools: withTool },
        historyField: prepared.historyField,
        history: prepared.history,
        wire,
        readTool,
        maxRounds: options.maxRounds,
        maxAnswerBytes: options.maxAnswerBytes,
        ...hooks,
      });
    },
  };
}
