/**
 * The Node.js file system behind the {@link FileReader} port, for file restoration after
 * compaction.
 */
import { readFile, realpath as resolveRealPath, stat } from 'node:fs/promises';
import type { FileReader } from '../core/ports.js';

async function read(absPath: string): Promise<string> {
  return readFile(absPath, 'utf8');
}

/** Whether a regular file is at that path (symlinks followed); a directory is not a file to restore. */
async function exists(absPath: string): Promise<boolean> {
  try {
    return (await stat(absPath)).isFile();
  } catch {
    return false;
  }
}

async function realpath(absPath: string): Promise<string> {
  return resolveRealPath(absPath);
}

/** The file's size in bytes (`fs.stat`, symlinks followed), read without opening the file. */
async function size(absPath: string): Promise<number> {
  return (await stat(absPath)).size;
}

/**
 * The package's {@link FileReader} on the Node.js file system, with `realpath`, so that a
 * symlink inside `workDir` pointing outside it is never restored, and `size`, so that a file
 * too large for the token budget is skipped without being read. OS errors reject as they
 * are (restoration logs them and skips the file). Methods do not use `this`.
 *
 * @example
 * ```ts
 * const messages = await restoreRecentFiles(history, { fileReader: new NodeFileReader() });
 * ```
 */
export class NodeFileReader implements FileReader {
  /** Reads a file as UTF-8. */
  readonly read: (absPath: string) => Promise<string> = read;
  /** Whether a regular file is at that path (symlinks followed). */
  readonly exists: (absPath: string) => Promise<boolean> = exists;
  /** The canonical path with symlinks followed. */
  readonly realpath: (absPath: string) => Promise<string> = realpath;
  /** The file's size in bytes. */
  readonly size: (absPath: string) => Promise<number> = size;
}

/** Creates a {@link NodeFileReader}. */
export function createNodeFileReader(): NodeFileReader {
  return new NodeFileReader();
}
