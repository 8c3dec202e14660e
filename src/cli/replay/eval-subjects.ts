/**
 * What `agent-context eval` expects a compacted context to still hold, read off the raw
 * transcript with rules of its own: the task (the first request; a Claude Code slash command
 * as typed), the latest request, every file edited, the last file read, the last shell
 * command, the last error a tool printed (marked or not), and every offloaded result with
 * the gist of its call. These rules are deliberately separate from the compaction ledger's,
 * so the score checks the ledger and the summary against the transcript rather than against
 * themselves.
 */
import { createUserRequestReader } from '../../core/compact/summary/user-requests.js';
import type { Message } from '../../core/types.js';

/** A failed tool result: which call, and the lines that say what went wrong. */
interface ErrorSubject {
  toolUseId: string;
  /** The tool that failed, or `unknown` when its call is not in the transcript. */
  toolName: string;
  /** Lines of the result that report the failure (the first lines when none does), cut to {@link NEEDLE_CHARS}. */
  lines: string[];
}

/** An offloaded tool result: its reference, and what its call was (command or path), when eval can tell. */
interface OffloadedSubject {
  reference: string;
  /** The call's shell command (first line) or file path, cut to {@link GIST_NEEDLE_CHARS}; `undefined` when it has neither. */
  gist: string | undefined;
}

/** The facts of a transcript that a compacted context should keep. */
export interface EvalSubjects {
  /** The first request of the user (first line, cut), or `undefined`. */
  task: string | undefined;
  /** The latest request of the user (first line, cut), or `undefined`. */
  latestRequest: string | undefined;
  /** Files written, edited or deleted by a call that did not fail, each once, in order. */
  editedFiles: string[];
  /** The file of the last read that did not fail. */
  lastReadFile: string | undefined;
  /** The last shell command (first line, cut). */
  lastCommand: string | undefined;
  /**
   * The last error a tool printed: the last tool result marked as an error, or holding an
   * error line though not marked (unless its tool fetches content: a read, a search).
   */
  lastError: ErrorSubject | undefined;
  /** Offloaded tool results (by the reference they hold), each once, in order. */
  offloadedResults: OffloadedSubject[];
}

/** Texts are compared by their first characters: a summary may cut what it quotes. */
export const NEEDLE_CHARS = 80;
/** A gist is compared by its first characters: a ledger cuts it (to 80, with its own mark). */
const GIST_NEEDLE_CHARS = 40;
/** Error lines compared at most, so a huge log stays cheap. */
const MAX_ERROR_LINES = 200;
/** Shorter error lines (`FAIL`, `Error:`) say too little to count as kept. */
const MIN_ERROR_LINE_CHARS = 12;

/** Input fields holding one file path. */
const PATH_FIELDS = [
  'path',
  'file_path',
  'filePath',
  'filepath',
  'filename',
  'file_name',
  'notebook_path',
  'target_file',
];
/** `apply_patch` file lines. */
const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;
/** Text-editor tools name what they do in `command`. */
const EDITOR_EDITS = new Set(['create', 'str_replace', 'insert', 'undo_edit']);
const EDITING_TOOL = /edit|write|patch|replace|insert|create|append|update|delete|remove|rename|move/;
const READING_TOOL = /read|view|open|(?:^|[^a-z])cat(?:[^a-z]|$)/;
const SHELL_TOOL = /bash|shell|terminal|command|exec|^run$|^sh$/;
const FAILURE_LINE = /error|exception|fail|fatal|panic|traceback|denied|not found|cannot|unable/i;
/** A line holding an error message: `TypeError: ...`, `error[E0308]: ...`, `fatal: ...`. */
const ERROR_MESSAGE = /(?:Error|Exception)\b|^error\b|fatal|panic|traceback/i;
/**
 * A line by which a result that is not marked as an error still reports one: an error or
 * exception message, a compiler error, a failing test, a non-zero exit status. Zero counts and
 * prose that mentions errors do not match.
 */
const PRINTED_ERROR =
  /^\s*(?:(?:E\s+)?[\w.$]*(?:Error|Exception)(?::|$)|(?:error(?:\[\w+\]| TS\d+)?|fatal|panic):|(?:--- )?FAIL(?:ED)?\b|Traceback \(most recent call last\)|\S+?(?::\d+){1,2}:? (?:- )?error\b|\S+?\(\d+,\d+\): error\b)|\b[1-9]\d* (?:failed|failing)\b|\bexit(?:ed with)? (?:code|status):? ?[1-9]/m;
/** Tools whose output is content they fetched: an error line in it is not theirs. */
const CONTENT_TOOL = /read|view|open|grep|search|glob|find|list|fetch|web|(?:^|[^a-z])(?:cat|ls|rg)(?:[^a-z]|$)/;
/** Compaction's own user messages: a summary, a restored file. */
const COMPACTION_MESSAGE = /^\[(?:Conversation compressed|Restored after compact)\]/;
const REFERENCE_LINE = /^\[(?:Content offloaded to|Tool result offloaded to file): (.+)\]$/;

/** The first `NEEDLE_CHARS` characters of the first non-blank line, trimmed (a surrogate pair is never split). */
export function toNeedle(text: string): string {
  const line =
    text
      .split('\n')
      .find((candidate) => candidate.trim() !== '')
      ?.trim() ?? '';
  return Array.from(line).slice(0, NEEDLE_CHARS).join('').trim();
}

function blocksOf(message: Message): unknown[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : Array.isArray(message.content)
      ? message.content
      : [];
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** The text of a tool result's content: the string, or its text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => fieldsOf(block))
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/**
 * The user's requests, in order, read as compaction's ledger reads them (one reader decides what
 * a request is, so the eval asks for what a summary is meant to keep): a slash command as typed,
 * harness text and compaction's own messages never; one per user message holding some.
 */
function readRequests(messages: readonly Message[]): string[] {
  const reader = createUserRequestReader();
  messages.forEach((message, messageIndex) => {
    if (message.role === 'assistant') reader.noteAssistantMessage();
    if (message.role !== 'user') return;
    const texts = blocksOf(message)
      .map((item) => fieldsOf(item))
      .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []));
    if (texts.some((text) => COMPACTION_MESSAGE.test(text.trim()))) return;
    reader.readUserMessage(texts, messageIndex);
  });
  return reader.requests.map((request) => toNeedle(request.text));
}

function isSinglePath(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 500 && !value.includes('\n');
}

/** The file paths a tool input names: its path fields, and an `apply_patch` patch's files. */
function readPaths(input: unknown): string[] {
  const fields = fieldsOf(input);
  const paths = PATH_FIELDS.map((field) => fields[field]).filter(isSinglePath);
  const patches =
    typeof input === 'string'
      ? [input]
      : Object.values(fields).filter((value): value is string => typeof value === 'string');
  for (const patch of patches)
    for (const match of patch.matchAll(PATCH_FILE)) if (isSinglePath(match[1])) paths.push(match[1].trim());
  return [...new Set(paths)];
}

function readCommand(input: unknown): string | undefined {
  const fields = fieldsOf(input);
  const value = fields.command ?? fields.cmd;
  if (typeof value === 'string') return value.trim() === '' ? undefined : toNeedle(value);
  if (!Array.isArray(value) || value.length === 0 || !value.every((part) => typeof part === 'string')) return undefined;
  const parts = value as string[];
  // ['bash', '-lc', 'npm test']: the script is the command
  return toNeedle(parts.length === 3 && /^-l?c$/.test(parts[1] as string) ? (parts[2] as string) : parts.join(' '));
}

function readErrorLines(content: unknown): string[] {
  const lines = resultText(content)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const failures = lines.filter((line) => FAILURE_LINE.test(line) && line.length >= MIN_ERROR_LINE_CHARS);
  // an error message (`AssertionError: ...`) says more than a banner (`⎯⎯ Failed Tests 1 ⎯⎯`): it comes first
  const messages = failures.filter((line) => ERROR_MESSAGE.test(line));
  const chosen =
    failures.length > 0 ? [...messages, ...failures.filter((line) => !ERROR_MESSAGE.test(line))] : lines.slice(0, 3);
  return [...new Set(chosen.slice(0, MAX_ERROR_LINES).map((line) => toNeedle(line)))];
}

interface CallRecord {
  name: string;
  input: unknown;
  failed: boolean;
}

/** What an offloaded result's call was: its command's first line, else its file path, cut. */
function readGist(call: CallRecord | undefined): string | undefined {
  if (call === undefined) return undefined;
  const gist =
    (SHELL_TOOL.test(call.name.toLowerCase()) ? readCommand(call.input) : undefined) ?? readPaths(call.input)[0];
  return gist === undefined
    ? undefined
    : Array.from(gist.replace(/\s+/g, ' ')).slice(0, GIST_NEEDLE_CHARS).join('').trim();
}

/** Reads the subjects off a raw transcript. Linear in its size. */
export function collectEvalSubjects(messages: readonly Message[]): EvalSubjects {
  const requests = readRequests(messages).filter((request) => request !== '');
  const calls: CallRecord[] = [];
  const callsById = new Map<string, CallRecord>();
  const offloaded = new Map<string, OffloadedSubject>();
  let lastError: ErrorSubject | undefined;
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      const fields = fieldsOf(block);
      if (fields.type === 'tool_use' && message.role === 'assistant') {
        const call: CallRecord = {
          name: typeof fields.name === 'string' ? fields.name : 'unknown',
          input: fields.input,
          failed: false,
        };
        calls.push(call);
        callsById.set(String(fields.id), call);
      } else if (fields.type === 'tool_result') {
        const toolUseId = String(fields.tool_use_id);
        const call = callsById.get(toolUseId);
        const text = resultText(fields.content).trim();
        const reference = REFERENCE_LINE.exec(text.split('\n', 1)[0] ?? '')?.[1];
        if (reference !== undefined && !offloaded.has(reference))
          offloaded.set(reference, { reference, gist: readGist(call) });
        const printed =
          reference === undefined && !CONTENT_TOOL.test(call?.name.toLowerCase() ?? '') && PRINTED_ERROR.test(text);
        if (fields.is_error === true || printed) {
          if (call !== undefined && fields.is_error === true) call.failed = true;
          lastError = { toolUseId, toolName: call?.name ?? 'unknown', lines: readErrorLines(fields.content) };
        }
      }
    }
  }

  const editedFiles: string[] = [];
  let lastReadFile: string | undefined;
  let lastCommand: string | undefined;
  for (const call of calls) {
    if (call.failed) continue;
    const name = call.name.toLowerCase();
    const editorCommand = fieldsOf(call.input).command;
    const paths = readPaths(call.input);
    const edits =
      (typeof editorCommand === 'string' && EDITOR_EDITS.has(editorCommand)) ||
      (EDITING_TOOL.test(name) && editorCommand !== 'view');
    if (edits) {
      for (const path of paths) if (!editedFiles.includes(path)) editedFiles.push(path);
    } else if ((READING_TOOL.test(name) || editorCommand === 'view') && paths.length > 0) {
      lastReadFile = paths.at(-1);
    }
    if (SHELL_TOOL.test(name)) lastCommand = readCommand(call.input) ?? lastCommand;
  }
  return {
    task: requests[0],
    latestRequest: requests.at(-1),
    editedFiles,
    lastReadFile,
    lastCommand,
    lastError,
    offloadedResults: [...offloaded.values()],
  };
}
