/**
 * OpenHands trajectories (the JSON array of events its UI and `save_trajectory_path` export),
 * rebuilt into the messages the model saw, the way OpenHands' conversation memory does: the
 * system prompt and user messages as they are; each model response as one assistant message
 * (its text, then every tool call it made, read from `tool_call_metadata.model_response`); each
 * observation answering a call as that call's `tool_result`, its `content` unchanged. Events
 * the model never reads as such (agent state changes, `null` observations) are left out, and
 * so are `recall` observations: OpenHands renders those (workspace and repository context)
 * through templates of its version, which a converter cannot reproduce byte for byte.
 */
import type { ContentBlock, Message } from '../../src/core/types.js';
import { isRecord } from '../../src/formats/fields.js';
import type { ConvertedTranscript } from './convert-openai-chat.js';

type Fields = Record<string, unknown>;

function parseArguments(text: unknown, where: string): Record<string, unknown> {
  if (typeof text !== 'string') throw new Error(`${where}: arguments must be a JSON string, got ${typeof text}`);
  const parsed = JSON.parse(text) as unknown;
  if (!isRecord(parsed)) throw new Error(`${where}: arguments must be a JSON object, got ${text.slice(0, 40)}`);
  return parsed;
}

/** The assistant message of one model response: its text, then its tool calls. */
function readResponse(response: Fields, where: string): Message {
  const choice = Array.isArray(response.choices) ? (response.choices[0] as unknown) : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (message === undefined) throw new Error(`${where}: model_response has no choices[0].message`);
  const blocks: ContentBlock[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    blocks.push({ type: 'text', text: message.content });
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  calls.forEach((call, position) => {
    const fields = isRecord(call) ? call : {};
    const fn = isRecord(fields.function) ? fields.function : {};
    if (typeof fields.id !== 'string' || typeof fn.name !== 'string')
      throw new Error(`${where}: tool_calls[${position}] has no id or function name`);
    blocks.push({
      type: 'tool_use',
      id: fields.id,
      name: fn.name,
      input: parseArguments(fn.arguments, `${where}: tool_calls[${position}]`),
    });
  });
  return { role: 'assistant', content: blocks };
}

/**
 * Converts an OpenHands trajectory: an array of action and observation events, or a run of its
 * evaluation harness (a line of `output.jsonl`, whose `history` is that array).
 */
export function convertOpenHands(value: unknown, source: string): ConvertedTranscript {
  const events = isRecord(value) ? value.history : value;
  if (!Array.isArray(events))
    throw new Error(
      `${source}: an OpenHands trajectory must be a JSON array of events or a record with a history array`,
    );
  const messages: Message[] = [];
  const responsesSeen = new Set<string>();
  events.forEach((event: unknown, index) => {
    const where = `${source}: event ${index}`;
    if (!isRecord(event)) throw new Error(`${where} must be an object`);
    const args = isRecord(event.args) ? event.args : {};
    const metadata = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
    if (typeof event.action === 'string') {
      if (metadata !== undefined) {
        const response = isRecord(metadata.model_response) ? metadata.model_response : undefined;
        if (response === undefined || typeof response.id !== 'string')
          throw new Error(`${where}: tool_call_metadata has no model_response id`);
        // One response can make several calls, each an event of its own: its message goes once.
        if (!responsesSeen.has(response.id)) messages.push(readResponse(response, where));
        responsesSeen.add(response.id);
        return;
      }
      if (event.action === 'system' && typeof args.content === 'string')
        messages.push({ role: 'system', content: args.content });
      else if (event.action === 'message' && typeof args.content === 'string')
        messages.push({ role: event.source === 'user' ? 'user' : 'assistant', content: args.content });
      return;
    }
    if (typeof event.observation === 'string' && metadata !== undefined) {
      if (typeof metadata.tool_call_id !== 'string')
        throw new Error(`${where}: tool_call_metadata has no tool_call_id`);
      if (typeof event.content !== 'string') throw new Error(`${where}: an observation's content must be a string`);
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: metadata.tool_call_id, content: event.content }],
      });
    }
  });
  return { messages };
}
