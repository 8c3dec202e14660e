/**
 * A small HTTP server on 127.0.0.1 that speaks just enough of the Anthropic and OpenAI APIs for
 * the real SDKs: `POST /v1/messages`, `POST /v1/messages/count_tokens`,
 * `POST /v1/chat/completions`. Tests script its responses per route and read back every
 * request it received (headers and parsed JSON body).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted response. */
export interface ScriptedResponse {
  /** HTTP status. @default 200 */
  status?: number;
  /** Extra response headers (`retry-after`, ...). */
  headers?: Record<string, string>;
  /** JSON body. */
  body: unknown;
  /** Wait this long before answering (for abort tests). */
  delayMs?: number;
}

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type Route = '/v1/messages' | '/v1/messages/count_tokens' | '/v1/chat/completions';

export interface FakeProviderServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Queues responses for a route; when its queue is empty the route answers `fallback(route)`. */
  enqueue(route: Route, ...responses: ScriptedResponse[]): void;
  /** Requests received on one route. */
  requestsTo(route: Route): RecordedRequest[];
  close(): Promise<void>;
}

/** An Anthropic `Message` whose content is the given blocks (text by default). */
export function anthropicMessage(content: string | unknown[], model = 'claude-test'): ScriptedResponse {
  return {
    body: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model,
      content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

/** An Anthropic error response. */
export function anthropicError(status: number, type: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers, body: { type: 'error', error: { type, message: `${type} (test)` } } };
}

/** An OpenAI chat completion whose first choice has this content. */
export function chatCompletion(content: string | null, model = 'gpt-test'): ScriptedResponse {
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** An OpenAI error response. */
export function openAIError(status: number, type: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers, body: { error: { message: `${type} (test)`, type, param: null, code: null } } };
}

function fallback(route: Route): ScriptedResponse {
  switch (route) {
    case '/v1/messages':
      return anthropicMessage('## Goals & Decisions\nDefault summary.');
    case '/v1/messages/count_tokens':
      return { body: { input_tokens: 42 } };
    case '/v1/chat/completions':
      return chatCompletion('## Goals & Decisions\nDefault summary.');
  }
}

export async function startFakeProviderServer(): Promise<FakeProviderServer> {
  const requests: RecordedRequest[] = [];
  const queues = new Map<string, ScriptedResponse[]>();

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        body = { unparsed: text };
      }
      requests.push({ method: request.method ?? '', path, headers: request.headers, body });
      const known = path === '/v1/messages' || path === '/v1/messages/count_tokens' || path === '/v1/chat/completions';
      const scripted = known
        ? (queues.get(path)?.shift() ?? fallback(path))
        : { status: 404, body: { error: { message: `no route ${path}` } } };
      const send = (): void => {
        if (response.destroyed) return;
        response.writeHead(scripted.status ?? 200, { 'content-type': 'application/json', ...scripted.headers });
        response.end(JSON.stringify(scripted.body));
      };
      if (scripted.delayMs === undefined) {
        send();
        return;
      }
      const timer = setTimeout(send, scripted.delayMs);
      response.on('close', () => clearTimeout(timer));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue(route, ...responses) {
      queues.set(route, [...(queues.get(route) ?? []), ...responses]);
    },
    requestsTo(route) {
      return requests.filter((request) => request.path === route);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
