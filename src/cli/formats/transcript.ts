/**
 * A transcript read from a file: its format, the history it holds as messages, and what is
 * needed to write a new history back in the same shape.
 */
import type { Message } from '../../index.js';

/**
 * The input formats, detected from the content:
 * - `json`: a JSON array of messages;
 * - `request-body`: a request body `{ system?, messages, tools?, ... }`;
 * - `jsonl`: one message per line;
 * - `claude-code`: a Claude Code session log (`~/.claude/projects/<project>/<session>.jsonl`).
 */
export type TranscriptFormat = 'json' | 'request-body' | 'jsonl' | 'claude-code';

/** Names of the formats, for people. */
export const FORMAT_LABELS: Readonly<Record<TranscriptFormat, string>> = {
  json: 'JSON array of messages',
  'request-body': 'request body',
  jsonl: 'JSONL, one message per line',
  'claude-code': 'Claude Code session log',
};

/** A parsed transcript. */
export interface Transcript {
  /** The detected format. */
  format: TranscriptFormat;
  /**
   * The history as messages. For a request body, a `system` field becomes the leading system
   * message, as it is what the model reads first.
   */
  messages: Message[];
  /** A request body's `tools` array (billed as input, so counted), else `undefined`. */
  toolDefinitions: readonly unknown[] | undefined;
  /** A request body as read, to write a new history back in its shape; else `undefined`. */
  requestBody: Readonly<Record<string, unknown>> | undefined;
  /**
   * What was read around rather than refused, one line each for stderr: a JSONL file's last
   * line cut off mid-JSON. Absent when there is nothing to say.
   */
  warnings?: readonly string[];
}
