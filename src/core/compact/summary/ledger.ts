/**
 * The compaction ledger: the facts that every summary carries whoever wrote it — where the
 * compacted messages were archived, the offloaded results still reachable, the task and the
 * latest request, the files read and edited, the commands run and the last error. It is read
 * off the messages (no model), written as a short section of fixed lines after the
 * summarizer's text, and read back from an earlier summary at the next compaction, so its
 * facts carry over from one compaction to the next. Pure.
 */
import { DEFAULT_REFERENCE_READER } from '../../options/defaults.js';
import { BATCH_REFERENCE_PREFIX, buildBatchReference, isOffloadReference } from '../../offload/offload-reference.js';
import type { SummarizerOptions } from '../../ports.js';
import { extractReference } from '../../read/reference-keys.js';
import { findHeadEnd } from '../../text/text.js';
import type { Message } from '../../types.js';
import { gatherFacts, isPathLike, type ConversationFacts } from './conversation-facts.js';
import { describeInputGist, extractCommand, type CommandHeads } from './input-gist.js';
import { findLastError, type LastErrorFinding } from './last-error.js';
import {
  formatOffloadedEntry,
  listOffloadedResults,
  parseOffloadedEntry,
  type OffloadedResultEntry,
  type OffloadIndex,
} from './offload-index.js';
import { LEDGER_NOTES, type ReferenceReader } from './reference-reader.js';
import { cutTextInMiddle } from './summary-prompt.js';
import type { StoredHead } from '../stored-text.js';

/** The heading of the ledger section: the last one in a summary is the ledger. */
const LEDGER_HEADING = '## Context Ledger';

/** The latest request when it is the task: not written twice. */
const SAME_AS_TASK = 'the task above';

/**
 * The facts every summary of a compaction carries. Its parts are written out here rather than
 * named: users read them as `CompactLedger['lastError']` and so on, and the names stay the
 * ledger's own. Each list keeps the most recent entries, oldest first (`items`), and counts the
 * older ones it left out to keep the section short (`omittedCount`).
 */
export interface CompactLedger {
  /** The archive of the messages this summary replaces, or `null` when it could not be written. */
  archiveReference: string | null;
  /** Archives of earlier compactions, carried from the summaries before. */
  earlierArchiveReferences: { items: string[]; omittedCount: number };
  /** The task: the first request of the session (carried from an earlier summary when there is one). */
  task: string | undefined;
  /** The latest user request. */
  latestRequest: string | undefined;
  /** Files read (by a successful call or a restored-file message), least recent first; every one is in the index when there is one. */
  filesRead: { items: string[]; omittedCount: number };
  /** Files written, edited or deleted by a successful call, least recent first. */
  filesEdited: { items: string[]; omittedCount: number };
  /** Shell commands run, least recent first, each once (at its latest run). */
  commands: { items: string[]; omittedCount: number };
  /**
   * The last error a tool printed: the newest tool result marked `is_error`, or holding an
   * error line though it is not marked (a failing test run, a compiler error, a non-zero exit
   * status).
   */
  lastError:
    | {
        /** The tool that failed (`'unknown'` when its call is not in the messages). */
        toolName: string;
        toolUseId: string;
        /** What the call was (its command, path or query, at most 80 characters), when its call is in the messages. */
        input?: string | undefined;
        /**
         * The line of the result that best says what went wrong, cut to a few hundred characters.
         * For a marked result with no such line, its first line (for an offloaded result whose text
         * could not be read, its reference line).
         */
        message: string;
        /**
         * Where the whole result is, when it was offloaded and `message` was read from the
         * offloaded text: the read tool opens it.
         */
        reference?: string | undefined;
      }
    | undefined;
  /** Offloaded tool results, least recent first: the most recent, when an index lists them all. */
  offloadedResults: {
    items: Array<{
      /** The tool that produced it (`'unknown'` when its call is not in the messages). */
      toolName: string;
      toolUseId: string;
      /** What the call was, in at most 80 characters: its command, path or query; `''` when unknown. */
      input: string;
      /** As the read tool takes it: `./tool-result-x.md`, an absolute path, `redis://...`. */
      reference: string;
    }>;
    omittedCount: number;
  };
  /** The index of every offloaded result and every file read or edited, written in the store, when one was. */
  offloadIndex:
    | {
        /** As the read tool takes it: the tool pages and searches it. */
        reference: string;
        /** How many offloaded results it lists. */
        count: number;
        /** How many files read it lists, when it lists any. */
        filesRead?: number | undefined;
        /** How many files written, edited or deleted it lists, when it lists any. */
        filesEdited?: number | undefined;
      }
    | undefined;
}

/** A list of which the ledger keeps the most recent entries. */
interface LedgerList<T> {
  /** Oldest first. */
  items: T[];
  /** Older entries left out to keep the section short. */
  omittedCount: number;
}

/** The last error a tool printed, as the ledger holds it. */
export type LedgerError = NonNullable<CompactLedger['lastError']>;

/**
 * What compaction passes to its summarizer: the {@link SummarizerOptions}, and the last error
 * it found, whose line it may have read back from the store (the messages then hold only the
 * result's reference). A summarizer may quote it; the extractive summarizer does.
 */
export interface CompactionSummarizerOptions extends SummarizerOptions {
  /** The last error a tool printed in the messages summarized, when there is one. */
  lastError?: LedgerError | undefined;
}

/** Options of {@link buildLedger}. */
export interface BuildLedgerOptions {
  /** Where the messages were archived, as the read tool takes it; `null` when they were not. */
  archiveReference: string | null;
  /** Tools whose `tool_use` reads a file, besides those the name tells (`Read`, `view_file`, ...). */
  readToolNames?: readonly string[] | undefined;
  /** The field of those tools' input holding the path. */
  pathField?: string | undefined;
  /** A user message compaction itself appends (`"Continue with the task."`): not a request. */
  resumeMessage?: string | undefined;
  /**
   * The index of every offloaded result and every file read or edited, written beforehand
   * (from {@link collectIndexedFiles}): the ledger lists its most recent entries and names it.
   * Without it, the ledger lists the most recent offloaded results and files of the messages
   * and of the earlier ledger.
   */
  offloadIndex?: OffloadIndex | undefined;
  /**
   * The start of each shell command that was offloaded (its input holds only the reference),
   * by reference, as compaction read it back: the ledger lists the command by it. A command
   * not here is listed as `[command offloaded to <reference>]`.
   */
  commandHeads?: ReadonlyMap<string, StoredHead> | undefined;
}

/** How much the ledger keeps: it must stay a short section whatever the history. */
export const LEDGER_LIMITS = {
  /**
   * The task keeps its head and its tail: what to do, and how to finish. An agent's task often
   * ends with how to hand the work in (the exact command that submits it), which a compaction
   * must not take away from the agent.
   */
  taskChars: 2_000,
  requestChars: 400,
  files: 15,
  commands: 8,
  commandChars: 150,
  errorChars: 300,
  offloadedResults: 10,
  earlierArchives: 3,
} as const;

/** Marks text cut short. */
const CUT_MARK = ' […]';

const LABELS = {
  archive: 'Archive of the compacted messages',
  earlierArchives: 'Earlier archives',
  task: 'Task',
  latestRequest: 'Latest request',
  filesRead: 'Files read',
  filesEdited: 'Files edited',
  commands: 'Commands run',
  lastError: 'Last error',
  offloadedResults: 'Offloaded tool results [tool, id, input, reference]',
  offloadIndex: 'Index of all offloaded results and files',
  /** The offloaded results' label when each is written as its reference line (`'own-tools'`). */
  offloadedResultLines: 'Offloaded tool results [reference line, then tool, id, input]',
} as const;
/** The index's label before the index listed files: still read. */
const RESULTS_ONLY_INDEX_LABEL = 'Index of all offloaded results, searchable with the read tool';
/** What the offloaded results' label started with before entries had an input: still read. */
const OFFLOADED_RESULTS_LABEL_START = 'Offloaded tool results [';

/** `- Label: value`, or `- Label (N most recent; M earlier not listed): value` (`... earlier in the index` when the index lists them). */
const LEDGER_LINE =
  /^- ([A-Za-z ,[\]]+?)(?: \(\d+ most recent; (\d+) earlier (?:not listed|in the index)\))?:(?: (.*))?$/;
const ENTRY_LINE = /^ {2}- (.*)$/;

/**
 * Builds the ledger of `messages` (the Rest a compaction replaces). When they start from an
 * earlier compaction, that summary's ledger is carried over: its task, its files, commands and
 * offloaded results before the new ones, its archive among the earlier archives, and its
 * latest request and last error unless the messages have newer ones. Each list keeps its most
 * recent entries (15 files of each kind, 8 commands, 10 offloaded results, 3 earlier
 * archives) and counts the others, which stay in the archives; texts are cut to a few hundred
 * characters.
 */
export function buildLedger(messages: readonly Message[], options: BuildLedgerOptions): CompactLedger {
  const facts = gatherFacts(messages);
  return buildLedgerFromFacts(facts, options, findLastError(facts));
}

/**
 * {@link buildLedger} from facts already read off the messages ({@link gatherFacts}) and the last
 * error found in them: compaction reads the facts once, and finds the last error reading
 * offloaded results back from its store.
 */
export function buildLedgerFromFacts(
  facts: ConversationFacts,
  options: BuildLedgerOptions,
  lastError: LastErrorFinding | undefined,
): CompactLedger {
  const previous = facts.earlierSummary === undefined ? undefined : parseLedger(facts.earlierSummary);
  const resumeMessage = options.resumeMessage?.trim();
  const requests = facts.requests.filter((request) => request.text !== resumeMessage);
  const { reads, edits } = collectFileTouches(facts, options);
  const commands = facts.calls.flatMap((call) => {
    const command = extractCommand(call.name, call.input);
    return command === undefined ? [] : [describeCommand(command, options.commandHeads)];
  });
  const { offloadIndex } = options;
  const firstRequest = requests[0];
  const latestRequest = requests.at(-1);
  const task =
    previous?.task ??
    (firstRequest === undefined ? undefined : cutTextInMiddle(firstRequest.text, LEDGER_LIMITS.taskChars));
  return {
    archiveReference: options.archiveReference,
    earlierArchiveReferences: mergeList(
      previous?.earlierArchiveReferences,
      previous?.archiveReference == null ? [] : [previous.archiveReference],
      LEDGER_LIMITS.earlierArchives,
      (reference) => reference,
    ),
    task,
    // the task itself, when it is still the latest request: written once, as the task
    latestRequest:
      latestRequest === undefined
        ? previous?.latestRequest
        : latestRequest === firstRequest && previous?.task === undefined
          ? task
          : cutText(latestRequest.text, LEDGER_LIMITS.requestChars),
    filesRead:
      offloadIndex === undefined
        ? mergeList(previous?.filesRead, reads, LEDGER_LIMITS.files, (path) => path)
        : keepMostRecent(offloadIndex.filesRead, LEDGER_LIMITS.files),
    filesEdited:
      offloadIndex === undefined
        ? mergeList(previous?.filesEdited, edits, LEDGER_LIMITS.files, (path) => path)
        : keepMostRecent(offloadIndex.filesEdited, LEDGER_LIMITS.files),
    commands: mergeList(previous?.commands, commands, LEDGER_LIMITS.commands, (command) => command),
    lastError: lastError === undefined ? previous?.lastError : describeLastError(lastError, options.commandHeads),
    offloadedResults:
      offloadIndex === undefined
        ? mergeList(
            previous?.offloadedResults,
            listOffloadedResults(facts, options.commandHeads),
            LEDGER_LIMITS.offloadedResults,
            (entry) => entry.reference,
          )
        : keepMostRecent(offloadIndex.entries, LEDGER_LIMITS.offloadedResults),
    offloadIndex:
      offloadIndex === undefined
        ? undefined
        : {
            reference: offloadIndex.reference,
            count: offloadIndex.entries.length,
            // only what it holds: a ledger line short of figures the model has no use for
            ...(offloadIndex.filesRead.length > 0 ? { filesRead: offloadIndex.filesRead.length } : {}),
            ...(offloadIndex.filesEdited.length > 0 ? { filesEdited: offloadIndex.filesEdited.length } : {}),
          },
  };
}

/** The `limit` last entries of a complete list, the others counted. */
function keepMostRecent<T>(all: readonly T[], limit: number): LedgerList<T> {
  return { items: all.slice(-limit), omittedCount: Math.max(0, all.length - limit) };
}

/**
 * Every file read and every file edited, least recent first, each once at its latest touch: those
 * of an earlier index (`earlier`), those the earlier summary's ledger lists, then those of
 * `facts`. What the offload index lists, so that the ledger can keep only the most recent.
 */
export function collectIndexedFiles(
  facts: ConversationFacts,
  options: Pick<BuildLedgerOptions, 'readToolNames' | 'pathField'>,
  earlier: { filesRead: readonly string[]; filesEdited: readonly string[] },
): { filesRead: string[]; filesEdited: string[] } {
  const previous = facts.earlierSummary === undefined ? undefined : parseLedger(facts.earlierSummary);
  const { reads, edits } = collectFileTouches(facts, options);
  const all = (indexed: readonly string[], listed: readonly string[] | undefined, added: readonly string[]) =>
    mergeList(undefined, [...indexed, ...(listed ?? []), ...added], Number.POSITIVE_INFINITY, (path) => path).items;
  return {
    filesRead: all(earlier.filesRead, previous?.filesRead.items, reads),
    filesEdited: all(earlier.filesEdited, previous?.filesEdited.items, edits),
  };
}

/** The ledger's entry for the last error: its line, its call's input gist, and its reference when the line was read from the store. */
export function describeLastError(found: LastErrorFinding, commandHeads?: CommandHeads): LedgerError {
  const toolName = found.result.toolName ?? 'unknown';
  const input = found.call === undefined ? '' : describeInputGist(toolName, found.call.input, commandHeads);
  return {
    toolName,
    toolUseId: found.result.toolUseId,
    ...(input === '' ? {} : { input }),
    message: cutText(found.line || '(no message)', LEDGER_LIMITS.errorChars),
    ...(found.reference === undefined ? {} : { reference: found.reference }),
  };
}

/** The paths read and edited by successful calls (and restored-file messages), in message order. */
function collectFileTouches(
  facts: ConversationFacts,
  options: Pick<BuildLedgerOptions, 'readToolNames' | 'pathField'>,
): { reads: string[]; edits: string[] } {
  const touches: Array<{ path: string; read: boolean; messageIndex: number }> = [];
  for (const event of facts.fileEvents) {
    if (event.failed) continue;
    if (event.operation === 'read') touches.push({ path: event.path, read: true, messageIndex: event.messageIndex });
    else if (event.operation === 'written' || event.operation === 'edited' || event.operation === 'deleted') {
      touches.push({ path: event.path, read: false, messageIndex: event.messageIndex });
    }
  }
  // the configured read tool, whatever its name and path field
  const { readToolNames = [], pathField } = options;
  if (pathField !== undefined) {
    for (const call of facts.calls) {
      if (call.result?.isError === true || !readToolNames.includes(call.name)) continue;
      const path =
        typeof call.input === 'object' && call.input !== null
          ? (call.input as Record<string, unknown>)[pathField]
          : undefined;
      if (isPathLike(path)) touches.push({ path, read: true, messageIndex: call.messageIndex });
    }
  }
  touches.sort((a, b) => a.messageIndex - b.messageIndex); // stable: ties keep their order
  return {
    reads: touches.filter((touch) => touch.read).map((touch) => touch.path),
    edits: touches.filter((touch) => !touch.read).map((touch) => touch.path),
  };
}

/**
 * `previous`'s entries then `added`, each key once at its latest place, the `limit` most
 * recent kept and the rest counted.
 */
function mergeList<T>(
  previous: LedgerList<T> | undefined,
  added: readonly T[],
  limit: number,
  keyOf: (item: T) => string,
): LedgerList<T> {
  const all = [...(previous?.items ?? []), ...added];
  const seen = new Set<string>();
  const kept: T[] = [];
  for (let index = all.length - 1; index >= 0; index -= 1) {
    const item = all[index] as T;
    const key = keyOf(item);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(item);
  }
  kept.reverse();
  const dropped = Math.max(0, kept.length - limit);
  return { items: kept.slice(dropped), omittedCount: (previous?.omittedCount ?? 0) + dropped };
}

/**
 * A command as the ledger lists it: its text, cut; for one that was offloaded, the start of the
 * text it was (never its reference in its place, which a cut could leave naming no file), or,
 * when that could not be read, a note naming the whole reference.
 */
function describeCommand(command: string, heads: ReadonlyMap<string, StoredHead> | undefined): string {
  if (!isOffloadReference(command)) return cutText(command, LEDGER_LIMITS.commandChars);
  const reference = extractReference(command);
  const head = heads?.get(reference);
  if (head === undefined) return `[command offloaded to ${reference}]`;
  const text = head.text.trim();
  const cut = cutText(text, LEDGER_LIMITS.commandChars);
  return head.whole || cut !== text ? cut : text + CUT_MARK;
}

function cutText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(0, findHeadEnd(text, maxChars)) + CUT_MARK;
}

// ---- Writing ----------------------------------------------------------------------------------

/**
 * The ledger as the section appended to a summary: the heading, a note saying how the agent
 * opens a reference (`options.referenceReader`), then one line per fact that has a value, each
 * value written as JSON (one line, read back exactly):
 * ```
 * ## Context Ledger
 * Facts kept by compaction. The read tool opens any reference below (pass it as ref); ...
 * - Archive of the compacted messages: "/work/.compact/default/compact-2026-11-21T23-45-12Z-1.json"
 * - Task: "Fix the failing test in src/a.ts."
 * - Latest request: "Now add a test."
 * - Files read: ["src/a.ts", "README.md"]
 * - Files edited: ["src/a.ts"]
 * - Commands run: ["npm test"]
 * - Last error: {"tool":"bash","id":"toolu_9","input":"npm test","error":"AssertionError: expected 1 to be 2"}
 * - Offloaded tool results [tool, id, input, reference]:
 *   - ["Read","toolu_1","src/a.ts","./tool-result-toolu_1.md"]
 * - Index of all offloaded results and files: {"ref":"/work/.compact/default/offload-index-0k2f9x1a7bq.md","count":3,"filesRead":17,"filesEdited":2}
 * ```
 * With `referenceReader: 'own-tools'` (an agent that opens paths with its own tools) the note says
 * so, and each offloaded result is written as the reference line the agent met in the history,
 * then `[tool, id, input]`: `- Offloaded tool results [reference line, then tool, id, input]:`
 * then `  - [Content offloaded to: ./tool-result-toolu_1.md] ["Read","toolu_1","src/a.ts"]`.
 * A list cut short says so, and where the others are: `- Files read (15 most recent; 7 earlier
 * in the index): [...]` (`earlier not listed` without an index); a
 * latest request that is the task is written `the task above`; a last error read from an
 * offloaded result also names where the whole result is:
 * `{"tool":"bash","id":"toolu_9","input":"npm test","error":"AssertionError: ...","ref":"./tool-result-toolu_9.md"}`.
 */
export function renderLedger(ledger: CompactLedger, options: RenderLedgerOptions = {}): string {
  const lines = [LEDGER_HEADING, LEDGER_NOTES[options.referenceReader ?? DEFAULT_REFERENCE_READER]];
  const archive =
    ledger.archiveReference === null ? 'none (the archive could not be written)' : toJson(ledger.archiveReference);
  lines.push(`- ${LABELS.archive}: ${archive}`);
  const index = ledger.offloadIndex;
  const pushList = (label: string, list: LedgerList<string>, indexed = false): void => {
    if (list.items.length > 0)
      lines.push(`- ${describeList(label, list, indexed)}: [${list.items.map((item) => toJson(item)).join(', ')}]`);
  };
  pushList(LABELS.earlierArchives, ledger.earlierArchiveReferences);
  if (ledger.task !== undefined) lines.push(`- ${LABELS.task}: ${toJson(ledger.task)}`);
  if (ledger.latestRequest !== undefined) {
    const latest = ledger.latestRequest === ledger.task ? SAME_AS_TASK : toJson(ledger.latestRequest);
    lines.push(`- ${LABELS.latestRequest}: ${latest}`);
  }
  pushList(LABELS.filesRead, ledger.filesRead, index?.filesRead !== undefined);
  pushList(LABELS.filesEdited, ledger.filesEdited, index?.filesEdited !== undefined);
  pushList(LABELS.commands, ledger.commands);
  const error = ledger.lastError;
  if (error !== undefined) {
    const fields = {
      tool: error.toolName,
      id: error.toolUseId,
      ...(error.input === undefined ? {} : { input: error.input }),
      error: error.message,
      ...(error.reference === undefined ? {} : { ref: error.reference }),
    };
    lines.push(`- ${LABELS.lastError}: ${toJson(fields)}`);
  }
  if (ledger.offloadedResults.items.length > 0) {
    // an agent that opens paths with its own tools meets each reference as the line it knows from the history
    const asLines = options.referenceReader === 'own-tools';
    const label = asLines ? LABELS.offloadedResultLines : LABELS.offloadedResults;
    lines.push(`- ${describeList(label, ledger.offloadedResults, index !== undefined)}:`);
    for (const entry of ledger.offloadedResults.items)
      lines.push(`  - ${asLines ? formatLedgerEntry(entry) : formatOffloadedEntry(entry)}`);
  }
  if (index !== undefined) {
    const fields = {
      ref: index.reference,
      count: index.count,
      ...(index.filesRead === undefined ? {} : { filesRead: index.filesRead }),
      ...(index.filesEdited === undefined ? {} : { filesEdited: index.filesEdited }),
    };
    lines.push(`- ${LABELS.offloadIndex}: ${toJson(fields)}`);
  }
  return lines.join('\n');
}

/** `value` as JSON on one line: U+2028 and U+2029, which JSON leaves as they are, escaped too. */
function toJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** `label`, with how many entries the list keeps and how many it leaves out, and where those are (`indexed`: in the index). */
function describeList(label: string, list: LedgerList<unknown>, indexed = false): string {
  return list.omittedCount === 0
    ? label
    : `${label} (${list.items.length} most recent; ${list.omittedCount} earlier ${indexed ? 'in the index' : 'not listed'})`;
}

/** Options of {@link renderLedger} and {@link appendLedger}. */
export interface RenderLedgerOptions {
  /**
   * How the agent opens a reference: the note under the heading says so.
   * @default 'read-tool'
   */
  referenceReader?: ReferenceReader | undefined;
}

/**
 * An offloaded result as a line of the ledger: its reference line as the model meets it in the
 * history (`[Content offloaded to: ...]`), then `[tool, id, input]` as JSON. A reference that
 * could not be told apart from the rest of the line (a line break, `] [`) is written as the
 * index writes it, one JSON array.
 */
function formatLedgerEntry(entry: OffloadedResultEntry): string {
  const { reference } = entry;
  if (/[\n\r\u2028\u2029]/.test(reference) || reference.includes(ENTRY_REFERENCE_END))
    return formatOffloadedEntry(entry);
  return `${buildBatchReference(reference)} ${toJson([entry.toolName, entry.toolUseId, entry.input])}`;
}

/** What ends the reference line of a ledger entry: its `]`, a space, then the JSON array. */
const ENTRY_REFERENCE_END = '] [';

/** The entry a line written by {@link formatLedgerEntry} (or, before it, by `formatOffloadedEntry`) holds, or `undefined`. */
function parseLedgerEntry(line: string): OffloadedResultEntry | undefined {
  if (!line.startsWith(BATCH_REFERENCE_PREFIX)) return parseOffloadedEntry(line);
  const rest = line.slice(BATCH_REFERENCE_PREFIX.length);
  const end = rest.indexOf(ENTRY_REFERENCE_END);
  if (end === -1) return undefined;
  const fields = parseJson(rest.slice(end + 2));
  if (!Array.isArray(fields) || fields.length !== 3 || !fields.every((field) => typeof field === 'string'))
    return undefined;
  const [toolName, toolUseId, input] = fields as [string, string, string];
  return { toolName, toolUseId, input, reference: rest.slice(0, end) };
}

/** `summary`, a blank line, then the ledger section. */
export function appendLedger(summary: string, ledger: CompactLedger, options: RenderLedgerOptions = {}): string {
  return `${summary}\n\n${renderLedger(ledger, options)}`;
}

// ---- Reading back ------------------------------------------------------------------------------

/** Where the last ledger section of `summary` starts, or -1. */
function findLedgerStart(summary: string): number {
  const heading = `${LEDGER_HEADING}\n`;
  let index = summary.lastIndexOf(heading);
  while (index > 0 && summary[index - 1] !== '\n') index = summary.lastIndexOf(heading, index - 1);
  return index;
}

/** `summary` without its ledger section (the summarizer's text alone). */
export function stripLedger(summary: string): string {
  const start = findLedgerStart(summary);
  return start === -1 ? summary : summary.slice(0, start).trimEnd();
}

function emptyList<T>(): LedgerList<T> {
  return { items: [], omittedCount: 0 };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function readStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function readString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The named fields of a JSON object line that are strings (`undefined` for the others). */
function readOptionalStrings<K extends string>(value: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const fields = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  return Object.fromEntries(
    keys.flatMap((key) => (typeof fields[key] === 'string' ? [[key, fields[key]]] : [])),
  ) as Partial<Record<K, string>>;
}

/** The fields of a JSON object line whose named fields are all strings, else `undefined`. */
function readRecord<K extends string>(value: unknown, keys: readonly K[]): Record<K, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  return keys.every((key) => typeof fields[key] === 'string') ? (fields as Record<K, string>) : undefined;
}

/**
 * The ledger written at the end of `summary` by {@link renderLedger}, or `undefined` when it
 * has none. A line that does not read back (edited by hand, cut) leaves its fact empty.
 */
export function parseLedger(summary: string): CompactLedger | undefined {
  const start = findLedgerStart(summary);
  if (start === -1) return undefined;
  const ledger: CompactLedger = {
    archiveReference: null,
    earlierArchiveReferences: emptyList(),
    task: undefined,
    latestRequest: undefined,
    filesRead: emptyList(),
    filesEdited: emptyList(),
    commands: emptyList(),
    lastError: undefined,
    offloadedResults: emptyList(),
    offloadIndex: undefined,
  };
  let inOffloadedResults = false;
  for (const line of summary.slice(start).split('\n').slice(1)) {
    if (line.startsWith('## ')) break;
    const entry = ENTRY_LINE.exec(line);
    if (entry !== null) {
      const offloaded = inOffloadedResults ? parseLedgerEntry(entry[1] ?? '') : undefined;
      if (offloaded !== undefined) ledger.offloadedResults.items.push(offloaded);
      continue;
    }
    const match = LEDGER_LINE.exec(line);
    inOffloadedResults = match?.[1]?.startsWith(OFFLOADED_RESULTS_LABEL_START) === true;
    if (inOffloadedResults) {
      ledger.offloadedResults = { items: [], omittedCount: match?.[2] === undefined ? 0 : Number(match[2]) };
      continue;
    }
    if (match === null) continue;
    const [, label, omitted, text] = match;
    const value = parseJson(text);
    const list = <T>(items: T[]): LedgerList<T> => ({
      items,
      omittedCount: omitted === undefined ? 0 : Number(omitted),
    });
    switch (label) {
      case LABELS.archive:
        ledger.archiveReference = readString(value) ?? null;
        break;
      case LABELS.earlierArchives:
        ledger.earlierArchiveReferences = list(readStrings(value));
        break;
      case LABELS.task:
        ledger.task = readString(value);
        break;
      case LABELS.latestRequest:
        ledger.latestRequest = text === SAME_AS_TASK ? ledger.task : readString(value);
        break;
      case LABELS.filesRead:
        ledger.filesRead = list(readStrings(value));
        break;
      case LABELS.filesEdited:
        ledger.filesEdited = list(readStrings(value));
        break;
      case LABELS.commands:
        ledger.commands = list(readStrings(value));
        break;
      case LABELS.lastError: {
        const fields = readRecord(value, ['tool', 'id', 'error'] as const);
        const { ref: reference, input } = readOptionalStrings(value, ['ref', 'input'] as const);
        ledger.lastError =
          fields === undefined
            ? undefined
            : {
                toolName: fields.tool,
                toolUseId: fields.id,
                ...(input === undefined ? {} : { input }),
                message: fields.error,
                ...(reference === undefined ? {} : { reference }),
              };
        break;
      }
      case LABELS.offloadIndex:
      case RESULTS_ONLY_INDEX_LABEL: {
        const fields = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
        const reference = readString(fields.ref);
        const { count, filesRead, filesEdited } = fields;
        ledger.offloadIndex =
          reference === undefined || !Number.isInteger(count)
            ? undefined
            : {
                reference,
                count: count as number,
                ...(Number.isInteger(filesRead) ? { filesRead: filesRead as number } : {}),
                ...(Number.isInteger(filesEdited) ? { filesEdited: filesEdited as number } : {}),
              };
        break;
      }
    }
  }
  return ledger;
}
