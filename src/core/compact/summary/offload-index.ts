/**
 * The offload index: every tool result offloaded in a conversation, one line each with its
 * tool, call id, input gist and reference, and every file read or edited, written at each
 * compaction as one text object in the store (`<session>/offload-index-<hash>.md`, named by a
 * hash of its text, written once). The ledger lists only the most recent offloaded results and
 * files and names the index, which the read tool pages and searches (`pattern: "npm test"`), so
 * an older result or file is one search away rather than somewhere in the archives. Pure: it
 * only calls the store.
 */
import { DEFAULT_REFERENCE_READER } from '../../options/defaults.js';
import { describeError } from '../../errors.js';
import { buildOffloadIndexName } from '../../offload/offload-names.js';
import type { ContentStore, Logger } from '../../ports.js';
import { resolveKey } from '../../read/reference-keys.js';
import { findOffloadedReference, type ConversationFacts } from './conversation-facts.js';
import { describeInputGist, type CommandHeads } from './input-gist.js';
import { INDEX_READ_NOTES, type ReferenceReader } from './reference-reader.js';

/** A tool result that was offloaded: the read tool opens `reference`. */
export interface OffloadedResultEntry {
  /** The tool that produced it (`'unknown'` when its call is not in the messages). */
  toolName: string;
  toolUseId: string;
  /** What the call was, in at most 80 characters: its command, path or query; `''` when unknown. */
  input: string;
  /** As the read tool takes it: `./tool-result-x.md`, an absolute path, `redis://...`. */
  reference: string;
}

/** The first line of an index. */
const INDEX_TITLE = '# Offloaded tool results';
const INDEX_NOTE =
  'Every tool result offloaded in this conversation up to the compaction that wrote this list, oldest first, one per line: [tool, call id, input, reference].';
const FILES_READ_HEADING = '## Files read';
const FILES_EDITED_HEADING = '## Files edited';
const FILES_NOTE = 'Least recent first, one JSON string per line, each file once (at its latest touch).';

/** Everything an index lists: the offloaded results and the files read and edited, oldest first. */
export interface ConversationIndex {
  results: OffloadedResultEntry[];
  filesRead: string[];
  filesEdited: string[];
}

/** The offloaded results among the tool results of `facts`, in order, each with the gist of its call's input (an offloaded command's by `commandHeads`). */
export function listOffloadedResults(facts: ConversationFacts, commandHeads?: CommandHeads): OffloadedResultEntry[] {
  const callsById = new Map(facts.calls.map((call) => [call.id, call]));
  return facts.results.flatMap((result): OffloadedResultEntry[] => {
    const reference = findOffloadedReference(result.content);
    if (reference === undefined) return [];
    const call = callsById.get(result.toolUseId);
    const toolName = result.toolName ?? 'unknown';
    return [
      {
        toolName,
        toolUseId: result.toolUseId,
        input: call === undefined ? '' : describeInputGist(toolName, call.input, commandHeads),
        reference,
      },
    ];
  });
}

/** `lists` joined in order, each reference once, at its first place (an offloaded result does not move). */
export function mergeOffloadedResults(
  ...lists: ReadonlyArray<readonly OffloadedResultEntry[]>
): OffloadedResultEntry[] {
  const merged = new Map<string, OffloadedResultEntry>();
  for (const list of lists)
    for (const entry of list) if (!merged.has(entry.reference)) merged.set(entry.reference, entry);
  return [...merged.values()];
}

/** One entry as a line of the index (and of the ledger): a JSON array, read back exactly. */
export function formatOffloadedEntry(entry: OffloadedResultEntry): string {
  return JSON.stringify([entry.toolName, entry.toolUseId, entry.input, entry.reference])
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The entry a line written by {@link formatOffloadedEntry} holds, or `undefined`. A line of
 * three strings (`[tool, id, reference]`, as ledgers wrote before the input gist) reads with
 * an empty input.
 */
export function parseOffloadedEntry(line: string): OffloadedResultEntry | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || !fields.every((field) => typeof field === 'string')) return undefined;
  if (fields.length === 4) {
    const [toolName, toolUseId, input, reference] = fields as [string, string, string, string];
    return { toolName, toolUseId, input, reference };
  }
  if (fields.length !== 3) return undefined;
  const [toolName, toolUseId, reference] = fields as [string, string, string];
  return { toolName, toolUseId, input: '', reference };
}

/** A path as a line of the index: a JSON string, read back exactly. */
function formatPath(path: string): string {
  return JSON.stringify(path)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The text of an index: its title and note, one line per offloaded result, then a section per
 * non-empty list of files (`## Files read`, `## Files edited`), one JSON string per line.
 */
function renderOffloadIndex(
  index: ConversationIndex,
  referenceReader: ReferenceReader = DEFAULT_REFERENCE_READER,
): string {
  const note = `${INDEX_NOTE} ${INDEX_READ_NOTES[referenceReader]}`;
  const lines = [INDEX_TITLE, '', note, '', ...index.results.map(formatOffloadedEntry), ''];
  for (const [heading, paths] of [
    [FILES_READ_HEADING, index.filesRead],
    [FILES_EDITED_HEADING, index.filesEdited],
  ] as const) {
    if (paths.length > 0) lines.push(heading, '', FILES_NOTE, '', ...paths.map(formatPath), '');
  }
  return lines.join('\n');
}

/** The offloaded results of an index's text (lines that do not read back are skipped). */
export function parseOffloadIndex(text: string): OffloadedResultEntry[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('[')) return [];
    const entry = parseOffloadedEntry(line);
    return entry === undefined ? [] : [entry];
  });
}

/** Everything an index's text lists; an index written before it listed files has none. */
export function parseConversationIndex(text: string): ConversationIndex {
  const index: ConversationIndex = { results: parseOffloadIndex(text), filesRead: [], filesEdited: [] };
  let paths: string[] | undefined;
  for (const line of text.split('\n')) {
    if (line === FILES_READ_HEADING) paths = index.filesRead;
    else if (line === FILES_EDITED_HEADING) paths = index.filesEdited;
    else if (paths !== undefined && line.startsWith('"')) {
      const path = parseJsonString(line);
      if (path !== undefined) paths.push(path);
    }
  }
  return index;
}

function parseJsonString(line: string): string | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The key of the index of `text` in a session: `<session>/offload-index-<hash of the text>.md`. */
function formatOffloadIndexKey(sessionId: string, text: string): string {
  return `${sessionId}/${buildOffloadIndexName(text)}`;
}

/** Where an index was written, and what it lists. */
export interface OffloadIndex {
  /** As the read tool takes it. */
  reference: string;
  /** Every offloaded result it lists, oldest first. */
  entries: OffloadedResultEntry[];
  /** Every file read, least recent first. */
  filesRead: string[];
  /** Every file written, edited or deleted, least recent first. */
  filesEdited: string[];
}

/** Options of {@link writeOffloadIndex}. */
export interface WriteOffloadIndexOptions {
  /** Where the index is written (the archive's store). */
  store: ContentStore;
  /** The session's folder in it. */
  sessionId: string;
  /** Receives the warning when the index cannot be written. */
  logger: Logger;
  /** Offloaded results the ledger lists: no index is written for this many or fewer (and no more files than it lists). */
  ledgerLimit: number;
  /** Files of each kind the ledger lists. */
  fileLimit: number;
  /** How the agent opens a reference: the index says so. */
  referenceReader?: ReferenceReader | undefined;
}

/**
 * Writes the index of `index` under its content-hashed name (an index already holding exactly
 * this text is reused) and resolves where it is; `undefined` when the ledger lists everything
 * (at most `ledgerLimit` results and `fileLimit` files of each kind: an index would only repeat
 * it) or the index could not be written (logged at `warn`: the ledger then lists the most
 * recent entries alone). Never rejects.
 */
export async function writeOffloadIndex(
  index: ConversationIndex,
  options: WriteOffloadIndexOptions,
): Promise<OffloadIndex | undefined> {
  const { store, sessionId, logger, ledgerLimit, fileLimit } = options;
  if (
    index.results.length <= ledgerLimit &&
    index.filesRead.length <= fileLimit &&
    index.filesEdited.length <= fileLimit
  )
    return undefined;
  const text = renderOffloadIndex(index, options.referenceReader);
  const key = formatOffloadIndexKey(sessionId, text);
  try {
    const outcome = await store.putIfAbsent(key, text);
    if (outcome === 'exists') throw new Error(`${key} holds another text`);
    return {
      reference: store.referenceFor(key),
      entries: [...index.results],
      filesRead: [...index.filesRead],
      filesEdited: [...index.filesEdited],
    };
  } catch (error) {
    logger.warn(
      `compact: could not write the index of the offloaded results (${describeError(error)}); the summary lists the most recent ones only`,
    );
    return undefined;
  }
}

/**
 * What the index `reference` names in `store` lists (an earlier compaction's), or nothing when
 * there is no store to read from, the reference is not this package's, or the read fails
 * (logged). Never rejects.
 */
export async function readOffloadIndex(
  reference: string,
  store: ContentStore | undefined,
  logger: Logger,
): Promise<ConversationIndex> {
  const empty: ConversationIndex = { results: [], filesRead: [], filesEdited: [] };
  if (store === undefined) return empty;
  const resolved = await resolveKey(store, reference, undefined);
  if ('refusal' in resolved) {
    logger.debug?.(
      `compact: the earlier offload index ${JSON.stringify(reference)} is not content offloaded to this store; its entries are not carried over`,
    );
    return empty;
  }
  try {
    return parseConversationIndex((await store.get(resolved.key)) ?? '');
  } catch (error) {
    logger.warn(
      `compact: could not read the earlier offload index ${JSON.stringify(reference)} (${describeError(error)}); the entries its summary lists are carried over`,
    );
    return empty;
  }
}
