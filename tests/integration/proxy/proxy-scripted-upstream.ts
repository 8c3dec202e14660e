/**
 * A scripted model API on 127.0.0.1 for the proxy's tests: each request is recorded (method,
 * path, headers, the body's exact bytes and its JSON) and answered by the test's own function,
 * which writes to the response directly (status, headers, chunks, pauses). Builders give the
 * bodies and server-sent events of the Anthropic Messages, OpenAI Responses and Chat
 * Completions APIs, as the official SDKs parse them.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the upstream received. */
export interface UpstreamRecord {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body's exact bytes. */
  rawBody: Buffer;
  /** The body's JSON, or `undefined` when it is not JSON. */
  body: Record<string, unknown> | undefined;
  /** Closes when the proxy's connection for this request ends (an abort from the client side). */
  closed: Promise<void>;
}

/** Answers one request. */
export type UpstreamAnswer = (
  request: UpstreamRecord,
  response: ServerResponse,
  incoming: IncomingMessage,
) => void | Promise<void>;

export interface ScriptedUpstream {
  origin: string;
  requests: UpstreamRecord[];
  /** Replaces the answering function. */
  answer(handler: UpstreamAnswer): void;
  close(): Promise<void>;
}

/** Starts a scripted upstream answering with `handler` (a 200 JSON `{}` until told otherwise). */
export async function startScriptedUpstream(handler?: UpstreamAnswer): Promise<ScriptedUpstream> {
  const requests: UpstreamRecord[] = [];
  let current: UpstreamAnswer = handler ?? ((_request, response) => sendJson(response, {}));
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: Record<string, unknown> | undefined;
      try {
        body = rawBody.length === 0 ? undefined : (JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>);
      } catch {
        body = undefined;
      }
      const closed = new Promise<void>((resolve) => response.on('close', () => resolve()));
      const record: UpstreamRecord = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        rawBody,
        body,
        closed,
      };
      requests.push(record);
      void Promise.resolve(current(record, response, incoming)).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, { error: String(error) }, 500);
        else response.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      current = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes a JSON answer. */
export function sendJson(
  response: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** One server-sent event as the Anthropic and OpenAI APIs write them. */
export function sseEvent(event: { type: string; [field: string]: unknown }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Writes a streamed answer: the head, then each chunk in turn, awaiting `between(index)` before chunk `index` when given. */
export async function sendStream(
  response: ServerResponse,
  chunks: readonly string[],
  between?: (index: number) => Promise<void>,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let index = 0; index < chunks.length; index += 1) {
    if (between !== undefined) await between(index);
    if (response.destroyed) return;
    response.write(chunks[index]);
  }
  response.end();
}

/** Anthropic usage with distinct figures, so a test can tell which ones the proxy read. */
export interface AnthropicUsage {
  input_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  output_tokens: number;
}

/** Replies so far: each gets its own id, as the real APIs give them (Claude Code merges replies that share one). */
let replyCount = 0;

/** An Anthropic `Message` body. */
export function anthropicBody(
  content: readonly unknown[],
  usage: AnthropicUsage,
  stopReason = 'end_turn',
): Record<string, unknown> {
  replyCount += 1;
  return {
    id: `msg_scripted_${replyCount}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}

/** The events of a streamed Anthropic reply with one text block, or tool calls. */
export function anthropicStreamEvents(
  content: readonly ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[],
  usage: AnthropicUsage,
): string[] {
  const { output_tokens: outputTokens, ...inputUsage } = usage;
  const events = [
    sseEvent({
      type: 'message_start',
      message: { ...anthropicBody([], { ...inputUsage, output_tokens: 1 }), stop_reason: null },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(sseEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      events.push(sseEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }));
    } else {
      events.push(
        sseEvent({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      events.push(
        sseEvent({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        }),
      );
    }
    events.push(sseEvent({ type: 'content_block_stop', index }));
  });
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  events.push(
    sseEvent({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    }),
  );
  events.push(sseEvent({ type: 'message_stop' }));
  return events;
}

/** An OpenAI Responses output item: a message with text, or a function call. */
export type ResponsesOutputItem =
  { type: 'message'; text: string } | { type: 'function_call'; call_id: string; name: string; arguments: string };

function toResponsesItem(item: ResponsesOutputItem, index: number): Record<string, unknown> {
  if (item.type === 'function_call')
    return {
      type: 'function_call',
      id: `fc_${replyCount}_${index}`,
      status: 'completed',
      call_id: item.call_id,
      name: item.name,
      arguments: item.arguments,
    };
  return {
    type: 'message',
    id: `msg_${replyCount}_${index}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: item.text, annotations: [] }],
  };
}

/** An OpenAI `Response` body. */
export function responsesBody(output: readonly ResponsesOutputItem[], inputTokens: number): Record<string, unknown> {
  replyCount += 1;
  return {
    id: `resp_scripted_${replyCount}`,
    object: 'response',
    created_at: 1_700_000_000,
    status: 'completed',
    model: 'gpt-test',
    output: output.map(toResponsesItem),
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + 5,
    },
  };
}

/** The events of a streamed Responses reply. */
export function responsesStreamEvents(output: readonly ResponsesOutputItem[], inputTokens: number): string[] {
  const body = responsesBody(output, inputTokens);
  const items = body.output as Record<string, unknown>[];
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): string =>
    sseEvent({ type, sequence_number: sequence++, ...fields });
  const events = [event('response.created', { response: { ...body, status: 'in_progress', output: [], usage: null } })];
  items.forEach((item, index) => {
    events.push(event('response.output_item.added', { output_index: index, item }));
    if (item.type === 'message') {
      const text = (output[index] as { text: string }).text;
      events.push(
        event('response.output_text.delta', {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: text,
          logprobs: [],
        }),
      );
    }
    events.push(event('response.output_item.done', { output_index: index, item }));
  });
  events.push(event('response.completed', { response: body }));
  return events;
}

/** A chat completion body with one text choice. */
export function chatBody(text: string, promptTokens: number): Record<string, unknown> {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 },
  };
}

/** The chunks of a streamed chat completion, the last one with usage (`stream_options.include_usage`). */
export function chatStreamChunks(text: string, promptTokens: number): string[] {
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-test' };
  return [
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 } })}\n\n`,
    'data: [DONE]\n\n',
  ];
}
