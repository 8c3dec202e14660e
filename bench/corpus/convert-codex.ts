/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one JSON line per
 * event. The lines of type `response_item` are the Responses API items the model read and
 * wrote, in order; they are read with the package's own OpenAI Responses format (a
 * `function_call` becomes a `tool_use`, its `function_call_output` the `tool_result`). The
 * other lines (`session_meta`, `turn_context`, `event_msg`, ...) are the CLI's bookkeeping and
 * are left out.
 */
import { formats, type OpenAIResponsesItem } from '../../src/formats/index.js';
import { isRecord } from '../../src/formats/fields.js';
import type { ConvertedTranscript } from './convert-openai-chat.js';

/** Converts the text of a Codex CLI rollout. */
export function convertCodexRollout(text: string, source: string): ConvertedTranscript {
  const items: unknown[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`${source}: line ${index + 1} is not JSON`, { cause: error });
    }
    if (isRecord(value) && value.type === 'response_item') items.push(value.payload);
  });
  if (items.length === 0) throw new Error(`${source}: no response_item lines; not a Codex CLI rollout`);
  // The format checks each item as it converts it.
  return { messages: formats.openaiResponses.toCanonical(items as OpenAIResponsesItem[]) };
}
