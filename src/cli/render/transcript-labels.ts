import type { FormatName } from '../../core/format.js';
import type { Transcript, TranscriptShape } from '../../formats/transcripts/transcript.js';

export const SHAPE_LABELS: Readonly<Record<TranscriptShape, string>> = {
  json: 'JSON array of messages',
  'request-body': 'request body',
  jsonl: 'JSONL, one message per line',
  'claude-code': 'Claude Code session log',
};

const FORMAT_LABELS: Readonly<Record<FormatName, string>> = {
  anthropic: 'Anthropic Messages',
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  'openai-agents': 'OpenAI Agents SDK',
  'ai-sdk': 'AI SDK',
  langchain: 'LangChain',
  gemini: 'Gemini API',
};

/** A format's label, or its name for a format of someone else's. */
export function labelFormat(name: string): string {
  return (FORMAT_LABELS as Readonly<Record<string, string>>)[name] ?? name;
}

/**
 * What a transcript is: `JSON array of messages`, `request body (OpenAI Responses)`, `Claude
 * Code session log`. The package's own format goes unnamed.
 */
export function describeTranscript(transcript: Pick<Transcript, 'shape' | 'format'>): string {
  const shape = SHAPE_LABELS[transcript.shape];
  return transcript.format.name === 'anthropic' ? shape : `${shape} (${labelFormat(transcript.format.name)})`;
}

/** What a new history is written as: `request body`, `JSON array`, or for JSONL and logs `JSON array of messages`. */
export function describeWrittenShape(transcript: Pick<Transcript, 'shape' | 'format'>): string {
  const shape =
    transcript.shape === 'request-body'
      ? 'request body'
      : transcript.shape === 'json'
        ? 'JSON array'
        : 'JSON array of messages';
  return transcript.format.name === 'anthropic' ? shape : `${shape}, ${labelFormat(transcript.format.name)}`;
}
