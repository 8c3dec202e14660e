/**
 * Archive of the compacted messages: before summarizing, Rest is saved
 * as indented JSON to `<outputDir>/<sessionId>/compact-<UTC time>-<sequence>.json`, so
 * nothing compaction drops is lost. The sequence tells apart the archives a session writes
 * within one second: it is derived from the names of that second already there (no global
 * counter, and nothing else in the store is looked at), and the file is created exclusively,
 * so two compactions running at once never overwrite each other. With a store that takes the
 * text in parts, the archive is streamed one message at a time and its whole text is never
 * held in memory.
 */
import { ContextError } from '../errors.js';
import type { ContentStore, Logger } from '../ports.js';
import { findTakenNames } from '../store/taken-names.js';
import type { Message } from '../types.js';
import { stringifyArrayInParts } from './archive-json.js';

import { ARCHIVE_FILE_NAME_PATTERN } from '../offload/offload-names.js';

/** Attempts at the next sequence number when concurrent writers keep taking it. */
const MAX_EXCLUSIVE_ATTEMPTS = 1000;

/** The highest sequence asked about in one second when the store answers `exists`. */
const MAX_ARCHIVE_SEQUENCE = 100_000;

/** `2026-11-21T23:45:12.345Z` → `2026-11-21T23-45-12Z`: UTC ISO-8601 to the second, `:` as `-`. */
export function formatArchiveTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19).replaceAll(':', '-')}Z`;
}

export function formatArchiveFileName(date: Date, sequence: number): string {
  return `compact-${formatArchiveTimestamp(date)}-${sequence}.json`;
}

/** One more than the highest sequence among existing archive names; 1 when there is none. */
export function nextArchiveSequence(fileNames: readonly string[]): number {
  let highest = 0;
  for (const name of fileNames) {
    const match = ARCHIVE_FILE_NAME_PATTERN.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

/** What archiving Rest came to: the file's path, or the error that kept it from being written. */
export type ArchiveOutcome = { path: string; error?: undefined } | { path: null; error: unknown };

/** Options of {@link archiveRest}. */
export interface ArchiveRestOptions {
  /** Where the archive goes: its key is `<sessionId>/compact-<UTC time>-<sequence>.json`. */
  store: ContentStore;
  /** Folder of this session's archives (a safe path segment). */
  sessionId: string;
  /** Receives the warning when the archive cannot be written. */
  logger: Logger;
  /** The clock, for the file name. */
  now: () => Date;
}

/**
 * The keys of the session's archives written in the second of `date`: with the store's
 * `exists` each name is asked about (a Redis store never walks its keyspace), else the names
 * of that second are listed.
 */
function findTakenArchiveKeys(store: ContentStore, sessionId: string, date: Date): Promise<Set<string>> {
  const keyFor = (sequence: number): string => `${sessionId}/${formatArchiveFileName(date, sequence)}`;
  const listPrefix = keyFor(0).slice(0, -'0.json'.length);
  return findTakenNames(store, { keyFor, listPrefix, maxNumber: MAX_ARCHIVE_SEQUENCE });
}

/**
 * Writes `rest` as indented JSON (exactly `JSON.stringify(rest, null, 2)`, streamed one message
 * at a time) to the session's next archive in `store` and resolves its reference. The sequence
 * continues from the archives of the same second found there (1 in a new second); a name
 * taken meanwhile moves on to the next number (write-once), and an archive already holding
 * exactly this text is reused. What it costs does not depend on what else the store holds.
 * Never rejects: a failure is logged at `warn` and resolves `{ path: null, error }`, and the
 * caller decides whether compaction may go on without its archive.
 */
export async function archiveRest(rest: readonly Message[], options: ArchiveRestOptions): Promise<ArchiveOutcome> {
  const { store, logger, sessionId } = options;
  const date = options.now();
  try {
    const taken = await findTakenArchiveKeys(store, sessionId, date);
    let sequence = nextArchiveSequence([...taken].map((key) => key.slice(sessionId.length + 1)));
    for (let attempt = 0; attempt < MAX_EXCLUSIVE_ATTEMPTS; attempt += 1, sequence += 1) {
      const key = `${sessionId}/${formatArchiveFileName(date, sequence)}`;
      // A fresh generator per attempt: a store may iterate the parts only once.
      const outcome = await store.putIfAbsent(key, stringifyArrayInParts(rest));
      // 'identical': the same Rest was archived under this name already; that file serves.
      if (outcome !== 'exists') return { path: store.referenceFor(key) };
    }
    throw new Error(`no free sequence number after ${MAX_EXCLUSIVE_ATTEMPTS} attempts`);
  } catch (error) {
    // a store's own errors name what failed; anything else gets the session's place
    const reason =
      error instanceof ContextError
        ? error.message
        : `in ${store.referenceFor(sessionId)}: ${error instanceof Error ? error.message : String(error)}`;
    logger.warn(`compact: could not archive the compacted messages: ${reason}`);
    return { path: null, error };
  }
}
