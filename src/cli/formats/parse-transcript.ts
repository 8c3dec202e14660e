/**
 * Reads a transcript's text: a JSON document (an array of messages or items, a request body,
 * one message) or JSONL (one message or item per line, or a Claude Code session log). The
 * text is parsed here, where a broken one is reported with its line and column; what the
 * parsed JSON holds, and in which message format, is read by `src/formats/transcripts/`.
 */
import { readTranscriptDocument, readTranscriptLines } from '../../formats/transcripts/read-transcript.js';
import type { ReadTranscriptOptions } from '../../formats/transcripts/read-transcript.js';
import type { LogLine } from '../../formats/transcripts/claude-code-log.js';
import { TranscriptError } from '../../formats/transcripts/transcript.js';
import type { Transcript } from '../../formats/transcripts/transcript.js';
import { CliError } from '../errors.js';
import { isTruncatedJson } from './json-error-location.js';
import { parseJson } from './parse-json.js';

/** What every error about an unreadable input ends with. */
const EXPECTED_FORMATS =
  'expected a JSON array of messages, a request body { messages } or { input }, JSONL with one message per line, or a Claude Code session log';

/** A parsed transcript, with what was read around rather than refused. */
export interface ParsedTranscript extends Transcript {
  /**
   * One line each for stderr: a JSONL file's last line cut off mid-JSON. Absent when there is
   * nothing to say.
   */
  warnings?: readonly string[];
}

function describeStart(text: string): string {
  const start = text.slice(0, 24).split('\n')[0] ?? '';
  return JSON.stringify(start.length < text.length ? `${start}...` : start);
}

function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses the lines of a JSONL text. The last non-empty line alone may be cut off mid-JSON:
 * a log still being written (Claude Code appends a line per block) is read without it, and a
 * warning says so. Any other broken line, and a last line broken before its end, is an error
 * with its line and column.
 */
function parseLines(text: string, source: string): { lines: LogLine[]; warnings: string[] } {
  const lineTexts = text.split('\n');
  let lastIndex = lineTexts.length - 1;
  while (lastIndex > 0 && (lineTexts[lastIndex] ?? '').trim() === '') lastIndex -= 1;
  const lines: LogLine[] = [];
  const warnings: string[] = [];
  lineTexts.forEach((lineText, index) => {
    if (lineText.trim() === '') return;
    if (index === lastIndex && !isValidJson(lineText) && isTruncatedJson(lineText)) {
      warnings.push(
        `${source}: line ${index + 1}: skipped the last line, cut off mid-JSON (a log still being written?)`,
      );
      return;
    }
    lines.push({ value: parseJson(lineText, { source, firstLine: index + 1 }), line: index + 1 });
  });
  return { lines, warnings };
}

/** Runs a read, turning its error into the CLI's: `history.jsonl: line 4: not a message: messages[3]...`. */
function readWithSource(source: string, read: () => Transcript): Transcript {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof TranscriptError)) throw error;
    const where = error.line === undefined ? '' : ` line ${error.line}:`;
    const message = error.unknownFormat ? `unknown format: ${error.message}; ${EXPECTED_FORMATS}` : error.message;
    throw new CliError(`${source}:${where} ${message}`, undefined, { cause: error });
  }
}

/**
 * Parses a transcript and detects its shape and message format from the content.
 *
 * @param text The file's text (a leading byte-order mark is ignored).
 * @param source The file path as given, or `stdin`, for error messages.
 * @param options `format` forces the message format.
 * @returns The transcript; for JSONL whose last line is cut off mid-JSON, without that line
 * and with a warning naming it in `warnings`.
 * @throws {CliError} (exit 1) for an empty input, invalid JSON (with line and column), an
 * unknown format, a history mixing formats, or a message that is not a message of its format
 * (with its index and field).
 */
export function parseTranscript(text: string, source: string, options: ReadTranscriptOptions = {}): ParsedTranscript {
  const content = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = content.trimStart();
  if (trimmed === '') throw new CliError(`${source}: empty input; ${EXPECTED_FORMATS}`);
  // Keep line numbers true to the file: parse the text as it is, whitespace included.
  if (trimmed.startsWith('[')) {
    const value = parseJson(content, { source });
    return readWithSource(source, () => readTranscriptDocument(value, options));
  }
  if (!trimmed.startsWith('{')) {
    throw new CliError(
      `${source}: unknown format: the input starts with ${describeStart(trimmed)}, not JSON; ${EXPECTED_FORMATS}`,
    );
  }
  let whole: unknown;
  let wholeError: unknown;
  try {
    whole = JSON.parse(content) as unknown;
  } catch (error) {
    wholeError = error;
  }
  if (wholeError === undefined) return readWithSource(source, () => readTranscriptDocument(whole, options));
  // Not one JSON document. JSONL when its first line is a JSON value of its own; otherwise a
  // broken document, reported at the place it breaks.
  const firstLine = trimmed.split('\n', 1)[0] ?? '';
  if (!isValidJson(firstLine)) parseJson(content, { source });
  const { lines, warnings } = parseLines(content, source);
  const transcript = readWithSource(source, () => readTranscriptLines(lines, options));
  return warnings.length === 0 ? transcript : { ...transcript, warnings };
}
