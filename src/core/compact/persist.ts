/**
 * Archive of the compacted messages (v1 F-006, DESIGN §6): before summarizing, Rest is saved
 * as indented JSON to `<outputDir>/<sessionId>/compact-<UTC time>-<sequence>.json`, so
 * nothing compaction drops is lost. The sequence is derived from the files already there
 * (no global counter), and the file is created exclusively, so two compactions running at
 * once never overwrite each other. With a writer that takes the text in parts, the archive is
 * streamed one message at a time and its whole text is never held in memory.
 */
import type { FileWriter, Logger } from '../ports.js';
import type { Message } from '../types.js';
import { stringifyArrayInParts } from './archive-json.js';
import { resolvePathFrom } from './path-resolution.js';

/** Names of archive files: `compact-2026-11-21T23-45-12Z-1.json`. */
export const ARCHIVE_FILE_NAME_PATTERN = /^compact-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-(\d+)\.json$/;

/** Attempts at the next sequence number when concurrent writers keep taking it. */
const MAX_EXCLUSIVE_ATTEMPTS = 1000;

/** Options of {@link persistRest}. */
export interface PersistRestOptions {
  /** Absolute directory a relative `outputDir` is resolved against. */
  workDir: string;
  /** Archive root, absolute or relative to `workDir`. */
  outputDir: string;
  /** Folder of this session's archives, under `outputDir` (a safe path segment). */
  sessionId: string;
  /** Creates the directory and writes the file (exclusively when it can, streamed when it takes parts). */
  fileWriter: FileWriter;
  /** Receives the warning when the archive cannot be written. */
  logger: Logger;
  /** The clock, for the file name. @default () => new Date() */
  now?: (() => Date) | undefined;
}

/** `2026-11-21T23:45:12.345Z` → `2026-11-21T23-45-12Z`: UTC ISO-8601 to the second, `:` as `-`. */
export function formatArchiveTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19).replaceAll(':', '-')}Z`;
}

/** The archive file name for a time and a sequence number. */
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

function joinPath(writer: FileWriter, ...segments: [string, ...string[]]): string {
  return writer.resolvePath !== undefined ? writer.resolvePath(...segments) : resolvePathFrom(...segments);
}

type CreateArchive = (filePath: string) => Promise<'created' | 'identical' | 'exists'>;

/**
 * The writer's exclusive create of the archive: from parts when it takes them (the whole text
 * is then never held), else from the text joined once for every attempt; `undefined` when the
 * writer has no exclusive create.
 */
function selectExclusiveCreate(writer: FileWriter, rest: readonly Message[]): CreateArchive | undefined {
  const createFromParts = writer.createExclusiveFromParts;
  // A fresh generator per attempt: a writer may iterate its parts only once.
  if (createFromParts !== undefined) return (filePath) => createFromParts.call(writer, filePath, stringifyArrayInParts(rest));
  const createFromText = writer.createExclusive;
  if (createFromText === undefined) return undefined;
  const content = JSON.stringify(rest, null, 2);
  return (filePath) => createFromText.call(writer, filePath, content);
}

/** What archiving Rest came to: the file's path, or the error that kept it from being written. */
export type ArchiveOutcome = { path: string; error?: undefined } | { path: null; error: unknown };

/**
 * Writes `rest` as indented JSON (exactly `JSON.stringify(rest, null, 2)`) to the session's next
 * archive file and resolves its path. With the writer's `listDir` the sequence continues from
 * the files on disk; with its `createExclusiveFromParts` (preferred: the text is streamed one
 * message at a time) or `createExclusive`, a name taken meanwhile moves on to the next number
 * and a file already holding exactly this text is reused (a writer with only spec 01's two
 * methods writes plainly, as sequence 1 when it cannot list). Never rejects: a failure is
 * logged at `warn` and resolves `{ path: null, error }`, and the caller decides whether
 * compaction may go on without its archive.
 */
export async function archiveRest(rest: readonly Message[], options: PersistRestOptions): Promise<ArchiveOutcome> {
  const { fileWriter, logger } = options;
  const date = (options.now ?? (() => new Date()))();
  const directory = joinPath(fileWriter, options.workDir, options.outputDir, options.sessionId);
  try {
    await fileWriter.ensureDir(directory);
    let sequence = nextArchiveSequence(fileWriter.listDir !== undefined ? await fileWriter.listDir(directory) : []);
    const createExclusive = selectExclusiveCreate(fileWriter, rest);
    if (createExclusive === undefined) {
      const filePath = joinPath(fileWriter, directory, formatArchiveFileName(date, sequence));
      await fileWriter.writeFile(filePath, JSON.stringify(rest, null, 2));
      return { path: filePath };
    }
    for (let attempt = 0; attempt < MAX_EXCLUSIVE_ATTEMPTS; attempt += 1, sequence += 1) {
      const filePath = joinPath(fileWriter, directory, formatArchiveFileName(date, sequence));
      const outcome = await createExclusive(filePath);
      // 'identical': the same Rest was archived under this name already; that file serves.
      if (outcome !== 'exists') return { path: filePath };
    }
    throw new Error(`no free sequence number after ${MAX_EXCLUSIVE_ATTEMPTS} attempts`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(`compact: could not archive the compacted messages in ${directory} (${reason})`);
    return { path: null, error };
  }
}

/** {@link archiveRest}, resolving only the path (`null` when the archive could not be written). */
export async function persistRest(rest: readonly Message[], options: PersistRestOptions): Promise<string | null> {
  return (await archiveRest(rest, options)).path;
}
