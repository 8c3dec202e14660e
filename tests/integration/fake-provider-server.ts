/**
 * A small HTTP server on 127.0.0.1 that speaks just enough of the Anthropic and OpenAI APIs for
 * the real SDKs: `POST /v1/messages`, `POST /v1/messages/count_tokens`,
 * `POST /v1/chat/completions`. Tests script its responses per route and read back every
 * request it received (headers, the body's bytes and its parsed JSON). With `promptCache`, it
 * also plays Anthropic's prompt cache on `/v1/messages` (see {@link FakeProviderOptions}).
 */
import { createHash } from 'node:crypto';
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
  /** Called once the whole request has arrived, before any answer (an abort test aborts here). */
  onReceived?: () => void;
}

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body exactly as it arrived (UTF-8). */
  rawBody: string;
}

/** Options of {@link startFakeProviderServer}. */
export interface FakeProviderOptions {
  /**
   * Plays Anthropic's prompt cache on `/v1/messages`: the `usage` of each reply is replaced by
   * what the cache did with the request. The request is read as a sequence of blocks (each
   * tool, the system prompt or each of its blocks, each block of each message with its role),
   * keyed with the model; a block's tokens are a quarter of its JSON's length, rounded up, and
   * `cache_control` is left out of the key, as the API matches content, not breakpoints. A
   * request with breakpoints reads the longest prefix, ending at a block boundary at or before
   * its last breakpoint, that an earlier request wrote (`cache_read_input_tokens`), and writes
   * the prefix at each of its breakpoints (`cache_creation_input_tokens` for what was not
   * read); the rest is `input_tokens`. No minimum length, no expiry.
   * @default false
   */
  promptCache?: boolean;
}

type Route = '/v1/messages' | '/v1/messages/count_tokens' | '/v1/chat/completions';

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
      choices: [
        { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
      ],
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

/** One block of a request as the prompt cache sees it. */
interface CacheUnit {
  text: string;
  breakpoint: boolean;
}

function toCacheUnit(prefix: string, block: unknown): CacheUnit {
  if (typeof block !== 'object' || block === null)
    return { text: `${prefix}${JSON.stringify(block)}`, breakpoint: false };
  const { cache_control: breakpoint, ...content } = block as Record<string, unknown>;
  return { text: `${prefix}${JSON.stringify(content)}`, breakpoint: breakpoint !== undefined && breakpoint !== null };
}

/** The blocks of a Messages API body in the cache's order: tools, system, messages. */
function toCacheUnits(body: Record<string, unknown>): CacheUnit[] {
  const units: CacheUnit[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) units.push(toCacheUnit('tool:', tool));
  if (typeof body.system === 'string') units.push({ text: `system:${JSON.stringify(body.system)}`, breakpoint: false });
  for (const block of Array.isArray(body.system) ? body.system : []) units.push(toCacheUnit('system:', block));
  for (const message of Array.isArray(body.messages)
    ? (body.messages as { role?: unknown; content?: unknown }[])
    : []) {
    const role = `${String(message.role)}:`;
    if (Array.isArray(message.content)) for (const block of message.content) units.push(toCacheUnit(role, block));
    else units.push({ text: `${role}${JSON.stringify(message.content)}`, breakpoint: false });
  }
  return units;
}

/** The usage Anthropic's prompt cache would report for `body`, writing its breakpoints to `cache`. */
function playPromptCache(body: Record<string, unknown>, cache: Set<string>): Record<string, number> {
  const units = toCacheUnits(body);
  const keys: string[] = [];
  const tokensUpTo: number[] = [];
  let hash = createHash('sha256').update(String(body.model)).digest('hex');
  let tokens = 0;
  for (const unit of units) {
    hash = createHash('sha256').update(hash).update(unit.text).digest('hex');
    tokens += Math.ceil(unit.text.length / 4);
    keys.push(hash);
    tokensUpTo.push(tokens);
  }
  const lastBreakpoint = units.map((unit) => unit.breakpoint).lastIndexOf(true);
  let read = 0;
  for (let index = lastBreakpoint; index >= 0; index -= 1) {
    if (cache.has(keys[index] ?? '')) {
      read = tokensUpTo[index] ?? 0;
      break;
    }
  }
  units.forEach((unit, index) => {
    if (unit.breakpoint) cache.add(keys[index] ?? '');
  });
  const written = lastBreakpoint === -1 ? 0 : Math.max(0, (tokensUpTo[lastBreakpoint] ?? 0) - read);
  return { input_tokens: tokens - read - written, cache_read_input_tokens: read, cache_creation_input_tokens: written };
}

export async function startFakeProviderServer(options: FakeProviderOptions = {}): Promise<FakeProviderServer> {
  const requests: RecordedRequest[] = [];
  const queues = new Map<string, ScriptedResponse[]>();
  const promptCache = new Set<string>();

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
      requests.push({ method: request.method ?? '', path, headers: request.headers, body, rawBody: text });
      const known = path === '/v1/messages' || path === '/v1/messages/count_tokens' || path === '/v1/chat/completions';
      let scripted = known
        ? (queues.get(path)?.shift() ?? fallback(path))
        : { status: 404, body: { error: { message: `no route ${path}` } } };
      const reply = scripted.body as { usage?: Record<string, unknown> } | null;
      if (options.promptCache === true && path === '/v1/messages' && typeof reply?.usage === 'object') {
        scripted = {
          ...scripted,
          body: { ...reply, usage: { ...reply.usage, ...playPromptCache(body, promptCache) } },
        };
      }
      scripted.onReceived?.();
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
