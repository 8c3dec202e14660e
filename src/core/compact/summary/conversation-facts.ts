/**
 * Facts read off a history, with no model: the requests, the assistant's statements, every
 * tool call with its result, and what each call did to which file. The extractive summarizer
 * writes its sections from them, and the compaction ledger keeps the ones no summary may drop.
 */
import { isOffloadReference } from '../../offload/offload-reference.js';
import { extractReference } from '../../read/reference-keys.js';
import { isTextBlock, isToolResultBlock, isToolUseBlock, type Message } from '../../types.js';
import { createUserRequestReader, type Utterance } from './user-requests.js';
import {
  COMPRESSED_CONVERSATION_PREFIX,
  parseRestoredFileMessage,
  RESTORED_FILE_ACKNOWLEDGEMENT,
  SUMMARY_ACKNOWLEDGEMENT,
} from '../assemble.js';

/**
 * Input fields that hold a file path, across common agent tool sets (`read_file`/`path`,
 * Claude Code's `Read`/`file_path`, `notebook_path`, editor tools' `filePath`, ...).
 */
const PATH_FIELDS = [
  'path',
  'file_path',
  'filePath',
  'filepath',
  'file_name',
  'fileName',
  'filename',
  'file',
  'notebook_path',
  'target_file',
  'targetFile',
  'source_path',
  'destination_path',
  'old_path',
  'new_path',
] as const;
/** Input fields that hold a list of file paths. */
const PATH_LIST_FIELDS = ['paths', 'file_paths', 'files'] as const;

/** The file lines of an `apply_patch` patch: `*** Update File: src/a.ts`, `*** Move to: src/b.ts`. */
const PATCH_FILE_LINE = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm;
const PATCH_START = '*** Begin Patch';

/** Subcommands of text-editor tools (`str_replace_based_edit_tool`, `str_replace_editor`). */
const EDITOR_COMMANDS: Readonly<Record<string, FileOperation>> = {
  view: 'read',
  create: 'written',
  str_replace: 'edited',
  insert: 'edited',
  undo_edit: 'edited',
};

/** What a tool call did to a file it names. */
type FileOperation = 'read' | 'written' | 'edited' | 'deleted';

/** One tool call and the first result that answered it. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  messageIndex: number;
  result?: ToolCallResult;
}

/** The result of a {@link ToolCall}. */
interface ToolCallResult {
  isError: boolean;
  text: string;
  messageIndex: number;
}

/** A `tool_result` block, whether or not a call in the messages asked for it. */
export interface ToolResultFact {
  toolUseId: string;
  /** The call's tool, when the call is in the messages. */
  toolName: string | undefined;
  isError: boolean;
  /** The block's `content`, as it is. */
  content: unknown;
  messageIndex: number;
}

export type { Utterance } from './user-requests.js';

/** One path a call (or a restored-file message) touched. */
interface FileEvent {
  path: string;
  /** `read`, `written`, `edited`, `deleted`, or `used by {tool}` for a tool of unknown kind. */
  operation: string;
  /** Whether the call failed (an `is_error` result). */
  failed: boolean;
  messageIndex: number;
}

/** Everything {@link gatherFacts} reads off a history. */
export interface ConversationFacts {
  messageCount: number;
  /**
   * What the user asked, in order: user texts that are not tool results, restored files, an
   * earlier summary or harness text, a slash command as typed (see `user-requests.ts`).
   */
  requests: Utterance[];
  /** Assistant texts, without compaction's own acknowledgements. */
  statements: Utterance[];
  /** Tool calls in order. */
  calls: ToolCall[];
  /** Every tool result in order. */
  results: ToolResultFact[];
  /** Restored-file messages first, in message order, then the calls' paths in call order. */
  fileEvents: FileEvent[];
  /** The last earlier compaction's summary (after its `[Conversation compressed]` prefix), if any. */
  earlierSummary: string | undefined;
}

/** Reads the facts off `messages`. Pure; linear in the size of the messages. */
export function gatherFacts(messages: readonly Message[]): ConversationFacts {
  const requestReader = createUserRequestReader();
  const facts: ConversationFacts = {
    messageCount: messages.length,
    requests: requestReader.requests,
    statements: [],
    calls: [],
    results: [],
    fileEvents: [],
    earlierSummary: undefined,
  };
  const callsById = new Map<string, ToolCall>();

  messages.forEach((message, messageIndex) => {
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : Array.isArray(message.content)
          ? message.content
          : [];
    const texts: string[] = [];
    for (const block of blocks) {
      if (isToolUseBlock(block) && message.role === 'assistant') {
        const call: ToolCall = {
          id: String(block.id),
          name: typeof block.name === 'string' ? block.name : 'unknown',
          input: block.input,
          messageIndex,
        };
        facts.calls.push(call);
        callsById.set(call.id, call);
      } else if (isToolResultBlock(block)) {
        const call = callsById.get(block.tool_use_id);
        const isError = block.is_error === true;
        facts.results.push({
          toolUseId: String(block.tool_use_id),
          toolName: call?.name,
          isError,
          content: block.content,
          messageIndex,
        });
        if (call !== undefined && call.result === undefined) {
          call.result = { isError, text: renderResultText(block.content), messageIndex };
        }
      } else if (isTextBlock(block) && typeof block.text === 'string') {
        texts.push(block.text);
      }
    }
    if (message.role === 'assistant') requestReader.noteAssistantMessage();
    const text = texts.join('\n').trim();
    if (text === '') return;
    if (message.role === 'user') {
      const restoredPath = parseRestoredFileMessage(message);
      if (restoredPath !== undefined)
        facts.fileEvents.push({ path: restoredPath, operation: 'read', failed: false, messageIndex });
      else if (text.startsWith(COMPRESSED_CONVERSATION_PREFIX.trim()))
        facts.earlierSummary = text.slice(COMPRESSED_CONVERSATION_PREFIX.trim().length).trim();
      else requestReader.readUserMessage(texts, messageIndex);
    } else if (
      message.role === 'assistant' &&
      text !== SUMMARY_ACKNOWLEDGEMENT &&
      text !== RESTORED_FILE_ACKNOWLEDGEMENT
    ) {
      facts.statements.push({ text, messageIndex });
    }
  });

  for (const call of facts.calls) {
    const operation = classifyOperation(call.name, call.input);
    const failed = call.result?.isError === true;
    for (const path of extractPaths(call.input))
      facts.fileEvents.push({ path, operation, failed, messageIndex: call.messageIndex });
  }
  return facts;
}

/**
 * The paths a tool input names: its path fields, its path-list fields, and the files of an
 * `apply_patch` patch (in a string field, or the input itself when it is the patch).
 * De-duplicated, in that order.
 */
function extractPaths(input: unknown): string[] {
  if (typeof input === 'string') return extractPatchPaths(input);
  if (typeof input !== 'object' || input === null) return [];
  const fields = input as Record<string, unknown>;
  const paths: string[] = [];
  for (const field of PATH_FIELDS) {
    if (isPathLike(fields[field])) paths.push(fields[field]);
  }
  for (const field of PATH_LIST_FIELDS) {
    const list = fields[field];
    if (Array.isArray(list)) for (const item of list) if (isPathLike(item)) paths.push(item);
  }
  for (const value of Object.values(fields)) {
    if (typeof value === 'string') paths.push(...extractPatchPaths(value));
  }
  return [...new Set(paths)];
}

function extractPatchPaths(text: string): string[] {
  if (!text.includes(PATCH_START)) return [];
  const paths: string[] = [];
  for (const match of text.matchAll(PATCH_FILE_LINE)) {
    const path = match[1]?.trim();
    if (isPathLike(path)) paths.push(path);
  }
  return paths;
}

/** A short, single-line string: file content in a `file` field is not a path. */
export function isPathLike(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 500 && !/[\n\r]/.test(value);
}

/** What a tool did to the files it names, from its name (and a text editor's `command`). */
function classifyOperation(toolName: string, input: unknown): string {
  const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
  if (typeof command === 'string' && Object.hasOwn(EDITOR_COMMANDS, command))
    return EDITOR_COMMANDS[command] as FileOperation;
  const name = toolName.toLowerCase();
  if (/delete|remove|unlink|(^|[^a-z])rm([^a-z]|$)/.test(name)) return 'deleted';
  if (/edit|replace|patch|insert|update|modify|append/.test(name)) return 'edited';
  if (/write|create|save/.test(name)) return 'written';
  if (/read|view|open|(^|[^a-z])cat([^a-z]|$)/.test(name)) return 'read';
  return `used by ${toolName}`;
}

/** The text of a tool result's content: the string, or its text blocks joined by newlines. */
export function renderResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) =>
      typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text'
        ? String((block as { text?: unknown }).text ?? '')
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/** The reference an offloaded tool result holds (`./tool-result-x.md`, `redis://...`), else `undefined`. */
export function findOffloadedReference(content: unknown): string | undefined {
  return isOffloadReference(content) ? extractReference(renderResultText(content)) : undefined;
}
