/**
 * Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`), rebuilt into the
 * messages the model saw.
 *
 * Claude Code writes one line per content block. The lines of one assistant API message share
 * `message.id` but are not always consecutive: with parallel tool calls, each `tool_use` line
 * is followed by the user line holding its `tool_result` before the next `tool_use` line of the
 * same message comes. So the log is rebuilt as one assistant message per `message.id` (blocks
 * in file order), followed by one user message holding the results that answer it (in order),
 * then any other user content. `isMeta` user lines are kept (the model reads them); lines with
 * `isSidechain: true` (sub-agent work) and lines of any other type (`summary`, `system`,
 * `attachment`, `queue-operation`, `custom-title`, `file-history-snapshot`, ...) are not part
 * of the main conversation and are dropped. Unknown blocks pass through untouched.
 */
import type { ContentBlock, Message } from '../../core/types.js';
import { TranscriptError } from './transcript.js';

/** One parsed line of a log, with its 1-based line number in the file. */
export interface LogLine {
  /** The parsed JSON value of the line. */
  value: unknown;
  /** Line number in the file. */
  line: number;
}

/** Messages rebuilt from a log, with the file line each message starts at (for error messages). */
export interface RebuiltClaudeCodeLog {
  /** The main conversation as messages (`{ role, content }` only: the log's metadata is dropped). */
  messages: Message[];
  /** For each message, the file line of its first line. */
  lines: number[];
}

const MESSAGE_LINE_TYPES = new Set(['user', 'assistant']);

/** Line types Claude Code writes; a line of another type is still one when it has the log's own fields. */
const LOG_LINE_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'attachment',
  'progress',
  'queue-operation',
  'custom-title',
  'file-history-snapshot',
]);

/** Fields only log lines have (message items of the APIs never do). */
const LOG_LINE_FIELDS = ['uuid', 'sessionId', 'leafUuid', 'parentUuid'];

/** One assistant API message and the tool results that answer it. */
interface AssistantTurn {
  kind: 'turn';
  blocks: ContentBlock[];
  line: number;
  results: ContentBlock[];
  resultsLine: number;
}

/** A user message that is not a tool result (a prompt, an `isMeta` line, an unmatched result). */
interface UserEntry {
  kind: 'user';
  content: string | ContentBlock[];
  line: number;
}

/**
 * Whether a parsed JSONL line looks like a Claude Code log line rather than a message or an
 * item: a `type` and no `role`, and a type Claude Code writes or a field of its own
 * (`uuid`, `sessionId`, ...). A Responses item (`{ type: 'function_call', ... }`) is not one.
 */
export function isClaudeCodeLogLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const fields = value as Record<string, unknown>;
  if (typeof fields.type !== 'string' || 'role' in fields) return false;
  return LOG_LINE_TYPES.has(fields.type) || LOG_LINE_FIELDS.some((field) => field in fields);
}

function readLineMessage(logLine: LogLine, type: string): { id: unknown; content: string | ContentBlock[] } {
  const message = (logLine.value as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new TranscriptError(`a "${type}" line without a message object`, { line: logLine.line });
  }
  const { id, content } = message as { id?: unknown; content?: unknown };
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw new TranscriptError('message.content must be a string or an array of blocks', { line: logLine.line });
  }
  return { id, content: content as string | ContentBlock[] };
}

function toolUseIdOf(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const fields = block as Record<string, unknown>;
  return fields.type === 'tool_use' && typeof fields.id === 'string' ? fields.id : undefined;
}

function toolResultIdOf(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const fields = block as Record<string, unknown>;
  return fields.type === 'tool_result' && typeof fields.tool_use_id === 'string' ? fields.tool_use_id : undefined;
}

/** A turn's results in the order of the calls they answer (parallel calls may finish in any order). */
function orderResults(turn: AssistantTurn): ContentBlock[] {
  const callOrder = new Map<string, number>();
  turn.blocks.forEach((block, index) => {
    const toolUseId = toolUseIdOf(block);
    if (toolUseId !== undefined && !callOrder.has(toolUseId)) callOrder.set(toolUseId, index);
  });
  const positionOf = (block: ContentBlock): number =>
    callOrder.get(toolResultIdOf(block) ?? '') ?? Number.MAX_SAFE_INTEGER;
  // Array.prototype.sort is stable: results of one call keep their file order.
  return [...turn.results].sort((left, right) => positionOf(left) - positionOf(right));
}

/**
 * Rebuilds the main conversation of a Claude Code log from its parsed lines.
 *
 * @throws {TranscriptError} with the line, when a user or assistant line has no `message`
 * object or its content is neither a string nor an array.
 */
export function rebuildClaudeCodeLog(logLines: readonly LogLine[]): RebuiltClaudeCodeLog {
  const entries: Array<AssistantTurn | UserEntry> = [];
  const turnsByMessageId = new Map<string, AssistantTurn>();
  const turnsByToolUseId = new Map<string, AssistantTurn>();

  for (const logLine of logLines) {
    const fields = logLine.value as Record<string, unknown>;
    const type = fields.type;
    if (typeof type !== 'string' || !MESSAGE_LINE_TYPES.has(type) || fields.isSidechain === true) continue;
    const { id, content } = readLineMessage(logLine, type);

    if (type === 'assistant') {
      const blocks: ContentBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
      let turn = typeof id === 'string' ? turnsByMessageId.get(id) : undefined;
      if (turn === undefined) {
        turn = { kind: 'turn', blocks: [], line: logLine.line, results: [], resultsLine: 0 };
        entries.push(turn);
        if (typeof id === 'string') turnsByMessageId.set(id, turn);
      }
      for (const block of blocks) {
        turn.blocks.push(block);
        const toolUseId = toolUseIdOf(block);
        if (toolUseId !== undefined) turnsByToolUseId.set(toolUseId, turn);
      }
      continue;
    }

    if (typeof content === 'string') {
      entries.push({ kind: 'user', content, line: logLine.line });
      continue;
    }
    // Results join the turn whose tool_use they answer; whatever else the line holds stays a
    // user message at its place, after that turn's results.
    const rest: ContentBlock[] = [];
    for (const block of content) {
      const resultId = toolResultIdOf(block);
      const turn = resultId === undefined ? undefined : turnsByToolUseId.get(resultId);
      if (turn === undefined) {
        rest.push(block);
        continue;
      }
      if (turn.results.length === 0) turn.resultsLine = logLine.line;
      turn.results.push(block);
    }
    if (rest.length > 0 || content.length === 0) entries.push({ kind: 'user', content: rest, line: logLine.line });
  }

  const messages: Message[] = [];
  const lines: number[] = [];
  for (const entry of entries) {
    if (entry.kind === 'user') {
      messages.push({ role: 'user', content: entry.content });
      lines.push(entry.line);
      continue;
    }
    messages.push({ role: 'assistant', content: entry.blocks });
    lines.push(entry.line);
    if (entry.results.length > 0) {
      messages.push({ role: 'user', content: orderResults(entry) });
      lines.push(entry.resultsLine);
    }
  }
  return { messages, lines };
}
