/**
 * A transcript: a history as a file holds it (a JSON array, a request body, JSONL lines, a
 * Claude Code session log), in one of the message formats, with its canonical messages and
 * what is needed to write a new history back in the same shape and format.
 */
import { ContextError } from '../../core/errors.js';
import type { MessageFormat } from '../../core/format.js';
import type { Message } from '../../core/types.js';

/**
 * How a file holds its history, detected from the content:
 * - `json`: a JSON array of messages (or items);
 * - `request-body`: a request body, `{ system?, messages, tools?, ... }` or a Responses body
 *   `{ instructions?, input, tools?, ... }` or a Gemini body `{ systemInstruction?, contents, tools?, ... }`;
 * - `jsonl`: one message (or item) per line;
 * - `claude-code`: a Claude Code session log (`~/.claude/projects/<project>/<session>.jsonl`).
 */
export type TranscriptShape = 'json' | 'request-body' | 'jsonl' | 'claude-code';

/** The field of a request body holding the history. */
export type HistoryField = 'messages' | 'input' | 'contents';

/** The field of a request body holding the system prompt. */
export type SystemField = 'system' | 'instructions' | 'systemInstruction';

/** A request body's system prompt, read as the leading canonical messages. */
interface TranscriptSystem {
  /** The body field it came from. */
  field: SystemField;
  /** The field's value as read, written back unchanged when its messages are. */
  value: unknown;
  /** The canonical messages made from it, at the head of {@link Transcript.messages}. */
  messages: readonly Message[];
}

/** A request body as read, to write a new history back into it. */
export interface TranscriptRequestBody {
  /** The body as read (every field kept on writing). */
  body: Readonly<Record<string, unknown>>;
  /** The field holding the history. */
  historyField: HistoryField;
  /** Whether the history was a single string (a Responses `input: "..."`), read as one user item. */
  historyWasString: boolean;
  /** The system prompt, when the body has one. */
  system: TranscriptSystem | undefined;
}

/** A parsed transcript. */
export interface Transcript {
  /** How the file holds the history. */
  shape: TranscriptShape;
  /** The message format of the history (detected, or as forced). */
  format: MessageFormat;
  /**
   * The history in its own format, as read: a request body's `messages` or `input`, the lines
   * of a JSONL file, the messages rebuilt from a Claude Code log. It is the `original` that
   * {@link MessageFormat.fromCanonical} gets back, so unchanged messages are written as they were.
   */
  items: readonly unknown[];
  /**
   * The history as canonical messages, one per item; a request body's system prompt
   * (`system`, `instructions`) comes first, as it is what the model reads first.
   */
  messages: Message[];
  /** A request body's `tools` array (billed as input, so counted), else `undefined`. */
  toolDefinitions: readonly unknown[] | undefined;
  /** The request body, when the history came in one. */
  requestBody: TranscriptRequestBody | undefined;
  /** The model the history was sent to, when the file names it (a request body's `model`, a Claude Code log's assistant lines). */
  model?: string | undefined;
}

/** Options of {@link TranscriptError}. */
export interface TranscriptErrorOptions {
  /** 1-based line of the file the error is on, when known (JSONL, Claude Code logs). */
  line?: number | undefined;
  /** Whether the content is in no format the reader knows (rather than a bad value in a known one). */
  unknownFormat?: boolean;
  cause?: unknown;
}

/**
 * A transcript that cannot be read: an unknown format, a message that is not a message in
 * its format (the message names its index and field), a history mixing formats. Code
 * `INVALID_MESSAGE`.
 */
export class TranscriptError extends ContextError {
  /** 1-based line of the file, when known. */
  readonly line: number | undefined;
  /** Whether the content is in no known format. */
  readonly unknownFormat: boolean;

  constructor(message: string, options: TranscriptErrorOptions = {}) {
    super('INVALID_MESSAGE', message, 'cause' in options ? { cause: options.cause } : {});
    this.line = options.line;
    this.unknownFormat = options.unknownFormat === true;
  }
}
