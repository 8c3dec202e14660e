/**
 * Converters for harnesses that keep the model's messages in the OpenAI chat shape:
 * mini-swe-agent's `.traj.json` (`messages`) and SWE-agent's `.traj` (`history`). Both are read
 * with the package's own OpenAI chat format, so a tool call becomes a `tool_use` block and a
 * `tool` message a `tool_result`, as they would in the package's users' hands.
 */
import { formats, type OpenAIChatMessage } from '../../src/formats/index.js';
import type { Message } from '../../src/core/types.js';
import { isRecord } from '../../src/formats/fields.js';

/** What a converter makes of a source: canonical messages and, when recorded, the tool definitions. */
export interface ConvertedTranscript {
  /** The conversation as canonical messages, in the order the model read them. */
  messages: Message[];
  /** The tool definitions the requests sent, when the source records them. */
  tools?: unknown[];
}

function requireArray(value: unknown, field: string, source: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${source}: ${field} must be an array, got ${typeof value}`);
  return value;
}

/**
 * A mini-swe-agent trajectory (`trajectory_format: mini-swe-agent-1.x`). Its last message,
 * role `exit`, records how the run ended (the submitted patch) and was never sent to the model,
 * so it is left out; every other message is the model's own, in order.
 */
export function convertMiniSweAgent(value: unknown, source: string): ConvertedTranscript {
  if (!isRecord(value)) throw new Error(`${source}: a mini-swe-agent trajectory must be a JSON object`);
  const messages = requireArray(value.messages, 'messages', source).filter(
    (message) => !(isRecord(message) && message.role === 'exit'),
  );
  // The format checks each message as it converts it.
  return { messages: formats.openaiChat.toCanonical(messages as OpenAIChatMessage[]) };
}

/**
 * A SWE-agent trajectory's `history`: the messages as the model saw them. A `tool` entry names
 * the call it answers in `tool_call_ids`; an entry answering several calls at once has no
 * single `tool_call_id` to give, so such a source is refused rather than split.
 */
export function convertSweAgent(value: unknown, source: string): ConvertedTranscript {
  if (!isRecord(value)) throw new Error(`${source}: a SWE-agent trajectory must be a JSON object`);
  const history = requireArray(value.history, 'history', source).map((entry, index) => {
    if (!isRecord(entry)) throw new Error(`${source}: history[${index}] must be an object`);
    if (entry.role !== 'tool') return { role: entry.role, content: entry.content, tool_calls: entry.tool_calls };
    const ids = requireArray(entry.tool_call_ids, `history[${index}].tool_call_ids`, source);
    if (ids.length !== 1 || typeof ids[0] !== 'string')
      throw new Error(
        `${source}: history[${index}].tool_call_ids must hold exactly one id, got ${JSON.stringify(ids)}`,
      );
    return { role: 'tool', tool_call_id: ids[0], content: entry.content };
  });
  return { messages: formats.openaiChat.toCanonical(history as OpenAIChatMessage[]) };
}
