/**
 * Reading a transcript from parsed JSON: one document (an array, a request body, a single
 * message) or the lines of a JSONL file (messages, items, or a Claude Code log). The message
 * format is detected from the content, never from a file name, unless the caller forces one.
 * Parsing the text (and saying where it breaks) is the caller's.
 */
import { InvalidMessageError } from '../../core/errors.js';
import type { MessageFormat } from '../../core/format.js';
import type { Message } from '../../core/types.js';
import { assertMessages } from '../../core/messages/validate-messages.js';
import { anthropic } from '../anthropic.js';
import { detectFormat, formats } from '../index.js';
import { isClaudeCodeLogLine, rebuildClaudeCodeLog } from './claude-code-log.js';
import type { LogLine } from './claude-code-log.js';
import { isRequestBody, readSystemMessages, splitRequestBody } from './request-body.js';
import { TranscriptError } from './transcript.js';
import type { HistoryField, Transcript, TranscriptShape } from './transcript.js';

/** Options of {@link readTranscriptDocument} and {@link readTranscriptLines}. */
export interface ReadTranscriptOptions {
  /** The message format of the history; detected from the content when absent. */
  format?: MessageFormat | undefined;
}

/** Where a history sits, for error messages: its field in a request body, its file lines. */
interface HistoryPlace {
  /** The request body field holding it (`input` renames the `messages[i]` of errors). */
  historyField?: HistoryField | undefined;
  /** The file line of each item (JSONL). */
  lines?: readonly number[] | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ALL_FORMATS: readonly MessageFormat[] = Object.values(formats);

/** `a openai-chat` → `an openai-chat`. */
function withArticle(name: string): string {
  return `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

/** An adapter's or a check's error, named for the file: its field renamed, its line added. */
function toTranscriptError(error: InvalidMessageError, what: string | undefined, place: HistoryPlace): TranscriptError {
  const index = Number(/^messages\[(\d+)\]/.exec(error.path)?.[1]);
  const text = place.historyField === 'input' ? error.message.replace(/^messages\[/, 'input[') : error.message;
  return new TranscriptError(what === undefined ? text : `${what}: ${text}`, {
    line: place.lines?.[index],
    cause: error,
  });
}

/**
 * The format of `items`: the forced one, else the one every item fits. When some item fits
 * no format, the format of the items before it (or the package's own, for the first) is
 * returned, so that converting reports that item's bad field.
 *
 * @throws {TranscriptError} for a history mixing formats, naming the first item that breaks.
 */
function chooseFormat(
  items: readonly unknown[],
  place: HistoryPlace,
  forced: MessageFormat | undefined,
): MessageFormat {
  if (forced !== undefined) return forced;
  if (items.length === 0) return anthropic;
  let detected: MessageFormat | undefined;
  try {
    detected = detectFormat(items);
  } catch (error) {
    if (error instanceof InvalidMessageError) throw toTranscriptError(error, undefined, place);
    throw error;
  }
  if (detected !== undefined) return detected;
  const misfit = items.findIndex((item) => !ALL_FORMATS.some((format) => format.detect([item])));
  return (misfit > 0 ? detectFormat(items.slice(0, misfit)) : undefined) ?? anthropic;
}

/**
 * The canonical messages of `items` in `format`, checked.
 *
 * @throws {TranscriptError} naming the index and field (and line) of the first item that is
 * not a message of the format.
 */
function convertItems(items: readonly unknown[], format: MessageFormat, place: HistoryPlace): Message[] {
  const what = format.name === 'anthropic' ? 'not a message' : `not ${withArticle(format.name)} message`;
  try {
    // The package's own format is checked in full before anything else (ids, blocks, depth).
    if (format.name === 'anthropic') assertMessages(items);
    const messages = format.toCanonical(items);
    if (format.name !== 'anthropic') assertMessages(messages);
    return messages;
  } catch (error) {
    if (error instanceof InvalidMessageError) throw toTranscriptError(error, what, place);
    throw error;
  }
}

function readItems(
  shape: TranscriptShape,
  items: readonly unknown[],
  options: ReadTranscriptOptions,
  lines?: readonly number[],
): Transcript {
  const place = { lines };
  const format = chooseFormat(items, place, options.format);
  return {
    shape,
    format,
    items,
    messages: convertItems(items, format, place),
    toolDefinitions: undefined,
    requestBody: undefined,
  };
}

function readRequestBody(body: Readonly<Record<string, unknown>>, options: ReadTranscriptOptions): Transcript {
  const parts = splitRequestBody(body);
  const place = { historyField: parts.historyField };
  const format = chooseFormat(parts.items, place, options.format);
  const history = convertItems(parts.items, format, place);
  const system =
    parts.systemField === undefined
      ? undefined
      : {
          field: parts.systemField,
          value: body[parts.systemField],
          messages: readSystemMessages(parts.systemField, body[parts.systemField], format),
        };
  return {
    shape: 'request-body',
    format,
    items: parts.items,
    messages: system === undefined ? history : [...system.messages, ...history],
    toolDefinitions: parts.toolDefinitions,
    requestBody: { body, historyField: parts.historyField, historyWasString: parts.historyWasString, system },
    ...(typeof body.model === 'string' && body.model !== '' ? { model: body.model } : {}),
  };
}

function readClaudeCodeLog(logLines: readonly LogLine[], options: ReadTranscriptOptions): Transcript {
  if (options.format !== undefined && options.format.name !== 'anthropic') {
    throw new TranscriptError(`a Claude Code session log holds anthropic messages, not ${options.format.name}`);
  }
  const rebuilt = rebuildClaudeCodeLog(logLines);
  const transcript = readItems('claude-code', rebuilt.messages, { format: anthropic }, rebuilt.lines);
  const model = findLogModel(logLines);
  return model === undefined ? transcript : { ...transcript, model };
}

/** The model of a Claude Code log's first assistant line that names a real one (`<synthetic>` lines are the client's own). */
function findLogModel(logLines: readonly LogLine[]): string | undefined {
  for (const logLine of logLines) {
    const fields = logLine.value as Record<string, unknown>;
    if (fields.type !== 'assistant' || !isObject(fields.message)) continue;
    const model = fields.message.model;
    if (typeof model === 'string' && model !== '' && !model.startsWith('<')) return model;
  }
  return undefined;
}

/**
 * Reads a transcript from one JSON document: an array of messages or items, a request body
 * (`messages`, or a Responses `input`), one message or item alone, or one Claude Code log line.
 *
 * @throws {TranscriptError} for an unknown format, a request body whose fields are not what
 * they must be, a history mixing formats, or an item that is not a message of its format
 * (naming its index and field).
 */
export function readTranscriptDocument(value: unknown, options: ReadTranscriptOptions = {}): Transcript {
  if (Array.isArray(value)) return readItems('json', value, options);
  if (!isObject(value))
    throw new TranscriptError('a JSON value that is neither an array nor an object', { unknownFormat: true });
  if (isRequestBody(value)) return readRequestBody(value, options);
  if (isClaudeCodeLogLine(value)) return readClaudeCodeLog([{ value, line: 1 }], options);
  // A file of one message or item is both JSON and JSONL.
  if (options.format === undefined && !ALL_FORMATS.some((format) => format.detect([value])) && !('role' in value)) {
    throw new TranscriptError('a JSON object without "messages"', { unknownFormat: true });
  }
  return readItems('jsonl', [value], options, [1]);
}

/**
 * Reads a transcript from the parsed lines of a JSONL file: a Claude Code session log (when
 * the first line is a log line), else one message or item per line.
 *
 * @throws {TranscriptError} with the line, for a line that is not a JSON object, an unknown
 * format, a history mixing formats, or an item that is not a message of its format.
 */
export function readTranscriptLines(logLines: readonly LogLine[], options: ReadTranscriptOptions = {}): Transcript {
  for (const logLine of logLines) {
    if (!isObject(logLine.value)) {
      throw new TranscriptError(`expected a JSON object, got ${JSON.stringify(logLine.value)?.slice(0, 40)}`, {
        line: logLine.line,
      });
    }
  }
  const first = logLines[0]?.value;
  if (isClaudeCodeLogLine(first)) return readClaudeCodeLog(logLines, options);
  const items = logLines.map((logLine) => logLine.value);
  if (
    options.format === undefined &&
    isObject(first) &&
    !('role' in first) &&
    !ALL_FORMATS.some((format) => format.detect([first]))
  ) {
    throw new TranscriptError('the first line is neither a message nor a Claude Code log line', {
      unknownFormat: true,
    });
  }
  return readItems(
    'jsonl',
    items,
    options,
    logLines.map((logLine) => logLine.line),
  );
}
