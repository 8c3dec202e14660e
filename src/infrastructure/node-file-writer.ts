/**
 * The Node.js file system behind the {@link FileWriter} port. Every write is atomic (a temp file
 * in the same directory, then a rename or link), so a crash never leaves a half file that a
 * message points to. Offloaded content may hold secrets from tool output: files are created
 * with mode 0600, directories with 0700. Content given in parts (the compaction archive) is
 * streamed to the temp file, so it is never held whole in memory. The file functions live in
 * `atomic-files.ts`, shared with the file store.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { WriteFailedError } from '../core/errors.js';
import type { FileWriter } from '../core/ports.js';
import {
  createExclusive,
  createExclusiveFromParts,
  DIRECTORY_MODE,
  errorCode,
  holdsContent,
  markCreatedDirectory,
  wrapWriteError,
  writeFileAtomically,
} from './atomic-files.js';

/**
 * Creates a directory and its parents (mode 0700); no error when it exists. A directory it
 * creates is marked as the package's (see `markCreatedDirectory`), so prune may clean it later.
 */
async function ensureDir(dirPath: string): Promise<void> {
  try {
    // `mkdir` answers a path only when it created something, and then `dirPath` is among it
    if ((await mkdir(dirPath, { recursive: true, mode: DIRECTORY_MODE })) !== undefined)
      await markCreatedDirectory(dirPath);
  } catch (error) {
    throw error instanceof WriteFailedError ? error : wrapWriteError('create directory', dirPath, error);
  }
}

async function listDir(dirPath: string): Promise<string[]> {
  try {
    return await readdir(dirPath);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw wrapWriteError('list', dirPath, error);
  }
}

/** Resolves path segments to an absolute path (`path.resolve`, against the current directory). */
function resolvePath(...segments: string[]): string {
  return resolve(...segments);
}

/**
 * The package's {@link FileWriter} on the Node.js file system, with every optional method, so
 * batch offload never overwrites other content and reuses identical files, and the compaction
 * archive is streamed. OS errors reject as `WriteFailedError` with the OS error as
 * `cause`. Methods do not use `this`: they may be passed around on their own.
 *
 * @example
 * ```ts
 * const result = await offloadToolResultsWithWriter(messages, './offload', new NodeFileWriter());
 * ```
 */
export class NodeFileWriter implements FileWriter {
  /**
   * Creates a directory and its parents (mode 0700); no error when it exists. A directory it
   * creates gets the package's marker file (`.agent-context-offload`), unless the directory
   * above holds one: `agent-context prune` cleans only marked directories.
   */
  readonly ensureDir: (dirPath: string) => Promise<void> = ensureDir;
  /** Writes (creates or replaces) a file atomically, mode 0600. */
  readonly writeFile: (filePath: string, content: string) => Promise<void> = writeFileAtomically;
  /**
   * Creates a file (mode 0600) only if no file has that path: `'created'`, or `'identical'` when
   * the file there holds exactly this content, or `'exists'` when it holds other content.
   */
  readonly createExclusive: (filePath: string, content: string) => Promise<'created' | 'identical' | 'exists'> =
    createExclusive;
  /**
   * {@link NodeFileWriter.createExclusive} with the content as the parts joined: they are
   * encoded and written to the temp file in batches of about 64 KB, so the whole text is never
   * in memory, and a file already at the target is compared with the written one chunk by chunk
   * (sizes first). An error thrown by `parts` rejects as `WriteFailedError` with it as `cause`.
   */
  readonly createExclusiveFromParts: (
    filePath: string,
    parts: Iterable<string>,
  ) => Promise<'created' | 'identical' | 'exists'> = createExclusiveFromParts;
  /** Lists the names in a directory; `[]` when it does not exist. */
  readonly listDir: (dirPath: string) => Promise<string[]> = listDir;
  /** Whether a regular file (never a symlink) at that path holds exactly this content; sizes first. */
  readonly holdsContent: (filePath: string, content: string) => Promise<boolean> = holdsContent;
  /** `path.resolve`: absolute paths against the current directory. */
  readonly resolvePath: (...segments: string[]) => string = resolvePath;
}
