/**
 * Reads a transcript in any supported format, detected from its content (never from the file
 * name): a JSON array of messages, a request body, JSONL messages, or a Claude Code log.
 */
import { assertMessages, InvalidMessageError } from '../library-subset.js';
import type { Message } from '../../index.js';
import { CliError } from '../errors.js';
import { isClaudeCodeLogLine, rebuildClaudeCodeLog } from './claude-code-log.js';
import type { LogLine } from './claude-code-log.js';
import { isTruncatedJson } from './json-error-location.js';
import { parseJson } from './parse-json.js';
import { readRequestBody } from './request-body.js';
import type { Transcript } from './transcript.js';

const EXPECTED_FORMATS =
  'expected a JSON array of messages, a request body { messages }, JSONL with one message per line, or a Claude Code session log';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeStart(text: string): string {
  const start = text.slice(0, 24).split('\n')[0] ?? '';
  return JSON.stringify(start.length < text.length ? `${start}...` : start);
}

/**
 * Checks the messages, reporting a bad one with its index (and its file line when known):
 * `history.jsonl: line 4: messages[3].role: expected "system", "user" or "assistant", got "tool"`.
 */
function checkMessages(source: string, messages: unknown[], lines?: readonly number[]): asserts messages is Message[] {
  try {
    assertMessages(messages);
  } catch (error) {
    if (!(error instanceof InvalidMessageError)) throw error;
    const index = Number(/^messages\[(\d+)\]/.exec(error.path)?.[1]);
    const line = lines?.[index];
    const where = line === undefined ? '' : ` line ${line}:`;
    throw new CliError(`${source}:${where} not a message: ${error.message}`, undefined, { cause: error });
  }
}

/** Whether a JSON text parses. */
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
      warnings.push(`${source}: line ${index + 1}: skipped the last line, cut off mid-JSON (a log still being written?)`);
      return;
    }
    lines.push({ value: parseJson(lineText, { source, firstLine: index + 1 }), line: index + 1 });
  });
  return { lines, warnings };
}

/** The warnings field of a transcript: present only when there is something to say. */
function withWarnings(warnings: readonly string[]): Pick<Transcript, 'warnings'> {
  return warnings.length === 0 ? {} : { warnings };
}

function readJsonLines(text: string, source: string): Transcript {
  const { lines: logLines, warnings } = parseLines(text, source);
  for (const logLine of logLines) {
    if (!isObject(logLine.value)) throw new CliError(`${source}: line ${logLine.line}: expected a JSON object, got ${JSON.stringify(logLine.value)?.slice(0, 40)}`);
  }
  const first = logLines[0]?.value;
  if (isClaudeCodeLogLine(first)) {
    const rebuilt = rebuildClaudeCodeLog(source, logLines);
    checkMessages(source, rebuilt.messages, rebuilt.lines);
    return { format: 'claude-code', messages: rebuilt.messages, toolDefinitions: undefined, requestBody: undefined, ...withWarnings(warnings) };
  }
  if (isObject(first) && 'role' in first) {
    const messages = logLines.map((logLine) => logLine.value);
    checkMessages(
      source,
      messages,
      logLines.map((logLine) => logLine.line),
    );
    return { format: 'jsonl', messages, toolDefinitions: undefined, requestBody: undefined, ...withWarnings(warnings) };
  }
  throw new CliError(`${source}: unknown format: the first line is neither a message nor a Claude Code log line; ${EXPECTED_FORMATS}`);
}

function readJsonObject(value: Record<string, unknown>, source: string): Transcript {
  if ('messages' in value) {
    const body = readRequestBody(value, source);
    checkMessages(source, body.messages);
    return body;
  }
  // A file of one line is both JSON and JSONL.
  if ('role' in value) {
    const messages: unknown[] = [value];
    checkMessages(source, messages, [1]);
    return { format: 'jsonl', messages, toolDefinitions: undefined, requestBody: undefined };
  }
  if (isClaudeCodeLogLine(value)) {
    const rebuilt = rebuildClaudeCodeLog(source, [{ value, line: 1 }]);
    checkMessages(source, rebuilt.messages, rebuilt.lines);
    return { format: 'claude-code', messages: rebuilt.messages, toolDefinitions: undefined, requestBody: undefined };
  }
  throw new CliError(`${source}: unknown format: a JSON object without "messages"; ${EXPECTED_FORMATS}`);
}

/**
 * Parses a transcript and detects its format from the content.
 *
 * @param text The file's text (a leading byte-order mark is ignored).
 * @param source The file path as given, or `stdin`, for error messages.
 * @returns The transcript; for JSONL whose last line is cut off mid-JSON, without that line
 * and with a warning naming it in `warnings`.
 * @throws {CliError} (exit 1) for an empty input, invalid JSON (with line and column), an
 * unknown format, or a message that is not a message (with its index).
 */
export function parseTranscript(text: string, source: string): Transcript {
  const content = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const trimmed = content.trimStart();
  if (trimmed === '') throw new CliError(`${source}: empty input; ${EXPECTED_FORMATS}`);
  // Keep line numbers true to the file: parse the text as it is, whitespace included.
  if (trimmed.startsWith('[')) {
    const messages = parseJson(content, { source }) as unknown[];
    checkMessages(source, messages);
    return { format: 'json', messages, toolDefinitions: undefined, requestBody: undefined };
  }
  if (!trimmed.startsWith('{')) {
    throw new CliError(`${source}: unknown format: the input starts with ${describeStart(trimmed)}, not JSON; ${EXPECTED_FORMATS}`);
  }
  let whole: unknown;
  let wholeError: unknown;
  try {
    whole = JSON.parse(content) as unknown;
  } catch (error) {
    wholeError = error;
  }
  if (wholeError === undefined) return readJsonObject(whole as Record<string, unknown>, source);
  // Not one JSON document. JSONL when its first line is a JSON value of its own; otherwise a
  // broken document, reported at the place it breaks.
  const firstLine = trimmed.split('\n', 1)[0] ?? '';
  let firstLineParses = true;
  try {
    JSON.parse(firstLine);
  } catch {
    firstLineParses = false;
  }
  if (!firstLineParses) parseJson(content, { source });
  return readJsonLines(content, source);
}
