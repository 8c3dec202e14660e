/**
 * The read tool on the wire of each managed API: its definition added to a request's tools, the
 * calls to it found in an answer (a JSON body or a complete stream of server-sent events), and
 * the history items that carry the model's turn and the read's results into the next request.
 * Anthropic's and OpenAI's wires are here, Gemini's in `gemini-read-calls.ts`.
 * Pure: the proxy's read rounds do the reading and the asking.
 */
import type { ReadOffloadedTool } from '../api/read-offloaded-tool.js';
import { createGeminiWire } from './gemini-read-calls.js';
import { GEMINI_ROUTE_PATH } from './gemini-route.js';
import { readEventPayloads, type ReadToolWire } from './read-wire.js';
import type { ProxyRoutePath } from './routes.js';

export type { ReadToolWire } from './read-wire.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function toolNamed(
  tools: readonly unknown[],
  name: string,
  nameOf: (tool: Record<string, unknown>) => unknown,
): boolean {
  return tools.some((tool) => isRecord(tool) && nameOf(tool) === name);
}

function appendTool(
  tools: unknown,
  definition: unknown,
  name: string,
  nameOf: (tool: Record<string, unknown>) => unknown,
): unknown[] | undefined {
  const list = Array.isArray(tools) ? tools : [];
  return toolNamed(list, name, nameOf) ? undefined : [...list, definition];
}

/** A Messages content block rebuilt from a stream's events. */
interface StreamedBlock {
  block: Record<string, unknown>;
  /** A tool call's input as JSON text, as its deltas brought it. */
  json: string;
}

/** The content blocks of a streamed Messages answer, rebuilt from its events. */
function rebuildAnthropicContent(payloads: readonly unknown[]): Record<string, unknown>[] | undefined {
  const blocks = new Map<number, StreamedBlock>();
  let stopped = false;
  for (const payload of payloads) {
    if (!isRecord(payload) || typeof payload.index !== 'number') {
      if (isRecord(payload) && payload.type === 'message_stop') stopped = true;
      continue;
    }
    if (payload.type === 'content_block_start' && isRecord(payload.content_block)) {
      blocks.set(payload.index, { block: { ...payload.content_block }, json: '' });
      continue;
    }
    const streamed = blocks.get(payload.index);
    if (payload.type !== 'content_block_delta' || streamed === undefined || !isRecord(payload.delta)) continue;
    const { delta } = payload;
    const { block } = streamed;
    if (delta.type === 'text_delta' && typeof delta.text === 'string')
      block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
    else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string')
      streamed.json += delta.partial_json;
    else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string')
      block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
    else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') block.signature = delta.signature;
    else if (delta.type === 'citations_delta' && delta.citation !== undefined)
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
  }
  // an answer cut short is not read: it goes to the client as it came
  if (!stopped) return undefined;
  return [...blocks.entries()]
    .sort(([first], [second]) => first - second)
    .map(([, { block, json }]) => {
      if (block.type !== 'tool_use' && block.type !== 'server_tool_use') return block;
      return { ...block, input: json === '' ? (block.input ?? {}) : (parseJson(json) ?? json) };
    });
}

function createAnthropicWire(tool: ReadOffloadedTool): ReadToolWire {
  const isRead = (block: unknown): block is Record<string, unknown> =>
    isRecord(block) && block.type === 'tool_use' && block.name === tool.name && typeof block.id === 'string';
  return {
    definition: tool.anthropic,
    addTool: (tools) => appendTool(tools, tool.anthropic, tool.name, (entry) => entry.name),
    findReads(answer, streamed) {
      let content: unknown;
      if (streamed) content = rebuildAnthropicContent(readEventPayloads(answer));
      else {
        const body = parseJson(answer);
        content = isRecord(body) ? body.content : undefined;
      }
      if (!Array.isArray(content) || !content.some(isRead)) return undefined;
      const kept = content.filter((block) => !isRecord(block) || block.type !== 'tool_use' || isRead(block));
      return {
        calls: kept.filter(isRead).map((block) => ({ id: block.id as string, input: block.input })),
        turn: [{ role: 'assistant', content: kept }],
      };
    },
    writeResults: (calls, results) => [
      {
        role: 'user',
        content: calls.map((call, index) => ({ type: 'tool_result', tool_use_id: call.id, content: results[index] })),
      },
    ],
  };
}

/** The output items of a streamed Responses answer: each item as its `output_item.done` event gives it, else the completed response's. */
function rebuildResponsesOutput(payloads: readonly unknown[]): unknown[] | undefined {
  const items = new Map<number, unknown>();
  let completed: unknown[] | undefined;
  for (const payload of payloads) {
    if (!isRecord(payload)) continue;
    if (payload.type === 'response.output_item.done' && typeof payload.output_index === 'number')
      items.set(payload.output_index, payload.item);
    else if (
      payload.type === 'response.completed' &&
      isRecord(payload.response) &&
      Array.isArray(payload.response.output)
    )
      completed = payload.response.output;
  }
  if (completed !== undefined && completed.length >= items.size) return completed;
  return items.size === 0
    ? undefined
    : [...items.entries()].sort(([first], [second]) => first - second).map(([, item]) => item);
}

function createResponsesWire(tool: ReadOffloadedTool): ReadToolWire {
  const isRead = (item: unknown): item is Record<string, unknown> =>
    isRecord(item) && item.type === 'function_call' && item.name === tool.name && typeof item.call_id === 'string';
  return {
    definition: tool.openaiResponses,
    addTool: (tools) => appendTool(tools, tool.openaiResponses, tool.name, (entry) => entry.name),
    findReads(answer, streamed) {
      let output: unknown;
      if (streamed) output = rebuildResponsesOutput(readEventPayloads(answer));
      else {
        const body = parseJson(answer);
        output = isRecord(body) ? body.output : undefined;
      }
      if (!Array.isArray(output) || !output.some(isRead)) return undefined;
      const turn = output.filter((item) => !isRecord(item) || item.type !== 'function_call' || isRead(item));
      return {
        calls: turn.filter(isRead).map((item) => ({ id: item.call_id as string, input: item.arguments })),
        turn,
      };
    },
    writeResults: (calls, results) =>
      calls.map((call, index) => ({ type: 'function_call_output', call_id: call.id, output: results[index] })),
  };
}

interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The first choice's message of a streamed completion, rebuilt from its chunks. */
function rebuildChatMessage(payloads: readonly unknown[]): Record<string, unknown> | undefined {
  let content: string | undefined;
  const calls = new Map<number, ChatToolCall>();
  let finished = false;
  for (const payload of payloads) {
    if (!isRecord(payload) || !Array.isArray(payload.choices)) continue;
    const choice: unknown = payload.choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
    if (!isRecord(choice)) continue;
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finished = true;
    if (!isRecord(choice.delta)) continue;
    const { delta } = choice;
    if (typeof delta.content === 'string') content = `${content ?? ''}${delta.content}`;
    if (!Array.isArray(delta.tool_calls)) continue;
    for (const part of delta.tool_calls) {
      if (!isRecord(part)) continue;
      const index = typeof part.index === 'number' ? part.index : 0;
      const call = calls.get(index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (typeof part.id === 'string') call.id = part.id;
      const named = isRecord(part.function) ? part.function : {};
      if (typeof named.name === 'string') call.function.name += named.name;
      if (typeof named.arguments === 'string') call.function.arguments += named.arguments;
      calls.set(index, call);
    }
  }
  if (!finished) return undefined;
  const toolCalls = [...calls.entries()].sort(([first], [second]) => first - second).map(([, call]) => call);
  return { role: 'assistant', content: content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

function createChatWire(tool: ReadOffloadedTool): ReadToolWire {
  const isRead = (call: unknown): call is ChatToolCall =>
    isRecord(call) && isRecord(call.function) && call.function.name === tool.name && typeof call.id === 'string';
  return {
    definition: tool.openai,
    addTool: (tools) =>
      appendTool(tools, tool.openai, tool.name, (entry) =>
        isRecord(entry.function) ? entry.function.name : undefined,
      ),
    findReads(answer, streamed) {
      let message: unknown;
      if (streamed) message = rebuildChatMessage(readEventPayloads(answer));
      else {
        const body = parseJson(answer);
        const choices = isRecord(body) && Array.isArray(body.choices) ? body.choices : [];
        message = choices.length === 1 && isRecord(choices[0]) ? choices[0].message : undefined;
      }
      if (!isRecord(message) || !Array.isArray(message.tool_calls) || !message.tool_calls.some(isRead))
        return undefined;
      const reads = message.tool_calls.filter(isRead);
      // what an assistant message of a request holds: an answer's other fields (refusal, annotations) are not input
      return {
        calls: reads.map((call) => ({ id: call.id, input: call.function.arguments })),
        turn: [{ role: 'assistant', content: message.content ?? null, tool_calls: reads }],
      };
    },
    writeResults: (calls, results) =>
      calls.map((call, index) => ({ role: 'tool', tool_call_id: call.id, content: results[index] })),
  };
}

/**
 * The read tool on the wire of `route`.
 *
 * @throws {Error} for a route no wire is written for: a route added to the proxy needs its wire here.
 */
export function createReadToolWire(route: ProxyRoutePath, tool: ReadOffloadedTool): ReadToolWire {
  switch (route) {
    case '/v1/messages':
      return createAnthropicWire(tool);
    case '/v1/responses':
      return createResponsesWire(tool);
    case '/v1/chat/completions':
      return createChatWire(tool);
    case GEMINI_ROUTE_PATH:
      return createGeminiWire(tool);
    default: {
      const unknownRoute: never = route;
      throw new Error(`agent-context proxy: no read tool wire for the route ${JSON.stringify(unknownRoute)}`);
    }
  }
}
