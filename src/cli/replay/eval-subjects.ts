/**
 * What `agent-context eval` expects a compacted context to still hold, read off the raw
 * transcript with rules of its own: the task (the first request), the latest request, every
 * file edited, the last file read, the last shell command, the last error, and the offloaded
 * references. These rules are deliberately separate from the compaction ledger's, so the
 * score checks the ledger and the summary against the transcript rather than against
 * themselves.
 */
import type { Message } from '../../core/types.js';

/** A failed tool result: which call, and the lines that say what went wrong. */
export interface ErrorSubject {
  toolUseId: string;
  /** The tool that failed, or `unknown` when its call is not in the transcript. */
  toolName: string;
  /** Lines of the result that report the failure (the first lines when none does), cut to {@link NEEDLE_CHARS}. */
  lines: string[];
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
  /** The last tool result marked as an error. */
  lastError: ErrorSubject | undefined;
  /** Offload references held by tool results, each once, in order. */
  offloadedReferences: string[];
}

/** Texts are compared by their first characters: a summary may cut what it quotes. */
export const NEEDLE_CHARS = 80;
/** Error lines compared at most, so a huge log stays cheap. */
const MAX_ERROR_LINES = 200;
/** Shorter error lines (`FAIL`, `Error:`) say too little to count as kept. */
const MIN_ERROR_LINE_CHARS = 12;

/** Input fields holding one file path. */
const PATH_FIELDS = ['path', 'file_path', 'filePath', 'filepath', 'filename', 'file_name', 'notebook_path', 'target_file'];
/** `apply_patch` file lines. */
const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm;
/** Text-editor tools name what they do in `command`. */
const EDITOR_EDITS = new Set(['create', 'str_replace', 'insert', 'undo_edit']);
const EDITING_TOOL = /edit|write|patch|replace|insert|create|append|update|delete|remove|rename|move/;
const READING_TOOL = /read|view|open|(?:^|[^a-z])cat(?:[^a-z]|$)/;
const SHELL_TOOL = /bash|shell|terminal|command|exec|^run$|^sh$/;
/** A line that reports a failure. */
const FAILURE_LINE = /error|exception|fail|fatal|panic|traceback|denied|not found|cannot|unable/i;
/** A line holding an error message: `TypeError: ...`, `error[E0308]: ...`, `fatal: ...`. */
const ERROR_MESSAGE = /(?:Error|Exception)\b|^error\b|fatal|panic|traceback/i;
/** User text that is only markup a client injects (`<local-command-caveat>...`, `<command-name>...`). */
const MARKUP_ONLY = /^\s*(?:<([\w-]+)(?:\s[^>]*)?>[\s\S]*?<\/\1>\s*)+$/;
/** Reminders a client injects inside a user message. */
const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
/** Compaction's own user messages: a summary, a restored file. */
const COMPACTION_MESSAGE = /^\[(?:Conversation compressed|Restored after compact)\]/;
const REFERENCE_LINE = /^\[(?:Content offloaded to|Tool result offloaded to file): (.+)\]$/;

/** The first `NEEDLE_CHARS` characters of the first non-blank line, trimmed (a surrogate pair is never split). */
export function toNeedle(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '')?.trim() ?? '';
  return Array.from(line).slice(0, NEEDLE_CHARS).join('').trim();
}

function blocksOf(message: Message): unknown[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : [];
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

/** A user message's request, or `undefined` when it holds none (tool results, injected markup, compaction's own). */
function readRequest(message: Message): string | undefined {
  if (message.role !== 'user') return undefined;
  const text = blocksOf(message)
    .map((block) => fieldsOf(block))
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n')
    .replace(SYSTEM_REMINDER, '')
    .trim();
  if (text === '' || MARKUP_ONLY.test(text) || COMPACTION_MESSAGE.test(text)) return undefined;
  return toNeedle(text);
}

function isSinglePath(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 500 && !value.includes('\n');
}

/** The file paths a tool input names: its path fields, and an `apply_patch` patch's files. */
function readPaths(input: unknown): string[] {
  const fields = fieldsOf(input);
  const paths = PATH_FIELDS.map((field) => fields[field]).filter(isSinglePath);
  const patches = typeof input === 'string' ? [input] : Object.values(fields).filter((value): value is string => typeof value === 'string');
  for (const patch of patches) for (const match of patch.matchAll(PATCH_FILE)) if (isSinglePath(match[1])) paths.push(match[1].trim());
  return [...new Set(paths)];
}

/** The command a shell tool's input runs, or `undefined`. */
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
  const chosen = failures.length > 0 ? [...messages, ...failures.filter((line) => !ERROR_MESSAGE.test(line))] : lines.slice(0, 3);
  return [...new Set(chosen.slice(0, MAX_ERROR_LINES).map((line) => toNeedle(line)))];
}

interface CallRecord {
  name: string;
  input: unknown;
  failed: boolean;
}

/** Reads the subjects off a raw transcript. Linear in its size. */
export function collectEvalSubjects(messages: readonly Message[]): EvalSubjects {
  const requests: string[] = [];
  const calls: CallRecord[] = [];
  const callsById = new Map<string, CallRecord>();
  const references: string[] = [];
  let lastError: ErrorSubject | undefined;
  for (const message of messages) {
    const request = readRequest(message);
    if (request !== undefined && request !== '') requests.push(request);
    for (const block of blocksOf(message)) {
      const fields = fieldsOf(block);
      if (fields.type === 'tool_use' && message.role === 'assistant') {
        const call: CallRecord = { name: typeof fields.name === 'string' ? fields.name : 'unknown', input: fields.input, failed: false };
        calls.push(call);
        callsById.set(String(fields.id), call);
      } else if (fields.type === 'tool_result') {
        const toolUseId = String(fields.tool_use_id);
        const call = callsById.get(toolUseId);
        const text = resultText(fields.content).trim();
        const reference = REFERENCE_LINE.exec(text.split('\n', 1)[0] ?? '')?.[1];
        if (reference !== undefined && !references.includes(reference)) references.push(reference);
        if (fields.is_error === true) {
          if (call !== undefined) call.failed = true;
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
    const edits = (typeof editorCommand === 'string' && EDITOR_EDITS.has(editorCommand)) || (EDITING_TOOL.test(name) && editorCommand !== 'view');
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
    offloadedReferences: references,
  };
}
