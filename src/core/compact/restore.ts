/**
 * File restoration: after compaction, the files the agent read
 * most recently are read again from disk and put back into the context, within three budgets
 * (file count, tokens per file, tokens in all), and never from outside `workDir`.
 */
import { describeError } from '../errors.js';
import { throwIfAborted } from '../abort.js';
import type { FileReader, Logger, TokenCounter } from '../ports.js';
import { isToolUseBlock, type Message } from '../types.js';
import { formatRestoredFileMessage, parseRestoredFileMessage, RESTORED_FILE_ACKNOWLEDGEMENT } from './assemble.js';
import { isPathInside, resolvePathFrom } from '../store/path-resolution.js';

/**
 * The most UTF-8 bytes one token of o200k_base (the default counter's encoding) holds: 128, a
 * run of 128 spaces. Found by taking the longest UTF-8 encoding among the 199,998 entries of
 * `gpt-tokenizer`'s o200k_base rank table (`gpt-tokenizer/cjs/bpeRanks/o200k_base.js`; the
 * next longest hold 113 and 112 bytes).
 *
 * So a file of `B` bytes holds at least `ceil(B / 128)` tokens as the default counter counts
 * it: reading it as UTF-8 keeps every valid sequence (a BOM included) and turns each invalid
 * one (1 to 3 bytes) into U+FFFD (3 bytes), so its text has at least `B` UTF-8 bytes; and the
 * counter sums the tokens of pieces of that text, cut between code points: the
 * pieces together hold the text's bytes and each token covers at most 128 bytes of its piece,
 * so the bound holds for the counter as it is, length cuts included.
 */
export const MAX_BYTES_PER_TOKEN = 128;

/** A file the history read, as a restoration candidate. */
export interface ReadFileCandidate {
  /** The path as the agent last wrote it (`input.path`, or as a restored-file message named it). */
  path: string;
  /** `path` resolved against `workDir`, lexically; the de-duplication key. */
  absolutePath: string;
  /** Position of the latest read in the history (higher is more recent). */
  lastReadIndex: number;
}

/** A file put back into the context. */
export interface RestoredFile {
  /** The path as the agent last wrote it; the restored message names it. */
  path: string;
  /** The absolute path that was read. */
  absolutePath: string;
  content: string;
  /** Tokens of `content` (the budgets are checked against it). */
  tokenCount: number;
  /** The user message `[Restored after compact] {path}:\n{content}`. */
  message: Message;
}

/** Where to look for file reads in a history. */
export interface FindRecentlyReadFilesOptions {
  /** Absolute directory relative paths are resolved against. */
  workDir: string;
  /** Names of the tools whose `tool_use` reads a file, e.g. `['read_file']`. */
  readToolNames: readonly string[];
  /** Field of the tool's `input` holding the path, e.g. `'path'`. */
  pathField: string;
}

/** Options of {@link collectRestoredFiles}: every budget and port, resolved. */
export interface CollectRestoredFilesOptions extends FindRecentlyReadFilesOptions {
  /** Most recently read files considered; 0 restores nothing. */
  maxRestoreFiles: number;
  /** A file of more tokens than this is skipped. */
  maxRestoreTokensPerFile: number;
  /** Restoration stops before the file that would take the total above this. */
  maxRestoreTokensTotal: number;
  /** Reads the files (and, with `realpath`, follows symlinks for the containment check). */
  fileReader: FileReader;
  /**
   * Counts a file's tokens. Before reading a file, its size (with `fileReader.size`) is taken
   * to hold at least one token per {@link MAX_BYTES_PER_TOKEN} bytes, as with the default
   * counter; a custom counter that counts fewer may see a file skipped that it would have
   * counted within the budget.
   */
  tokenCounter: TokenCounter;
  /** Receives a warning per file skipped for safety or I/O, and notes on budget skips. */
  logger: Logger;
  /** Stops the work: the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * The files the history read, most recent first, one per resolved absolute path. A read is a
 * `tool_use` in an assistant message whose name is in `readToolNames` and whose
 * `input[pathField]` is a non-empty string; a
 * `[Restored after compact] {path}:` user message counts as a read at its position, so a
 * file stays restored across compactions until newer reads push it out; within one run of
 * such messages (listed most recent first by assembly) the order is read backwards, so the
 * files keep their relative recency. A partial read (`view_range`, offset) is a read of the
 * file.
 */
export function findRecentlyReadFiles(
  messages: readonly Message[],
  options: FindRecentlyReadFilesOptions,
): ReadFileCandidate[] {
  const readToolNames = new Set(options.readToolNames);
  const byAbsolutePath = new Map<string, ReadFileCandidate>();
  let readIndex = 0;
  const recordRead = (path: string): void => {
    const absolutePath = resolvePathFrom(options.workDir, path);
    // Delete first so that Map order stays "by latest read"; the name is the latest one.
    byAbsolutePath.delete(absolutePath);
    byAbsolutePath.set(absolutePath, { path, absolutePath, lastReadIndex: readIndex });
    readIndex += 1;
  };
  // Assembly lists restored files most recent first; a run of them is replayed in reverse so
  // that their relative recency survives the compaction (the run sits at its position).
  let restoredRun: string[] = [];
  const flushRestoredRun = (): void => {
    for (let index = restoredRun.length - 1; index >= 0; index -= 1) recordRead(restoredRun[index] as string);
    restoredRun = [];
  };
  for (const message of messages) {
    const restoredPath = parseRestoredFileMessage(message);
    if (restoredPath !== undefined) {
      restoredRun.push(restoredPath);
      continue;
    }
    if (message.role === 'assistant' && message.content === RESTORED_FILE_ACKNOWLEDGEMENT) continue;
    flushRestoredRun();
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isToolUseBlock(block) || typeof block.name !== 'string' || !readToolNames.has(block.name)) continue;
      const input = block.input;
      const path =
        typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[options.pathField] : undefined;
      if (typeof path === 'string' && path.trim() !== '') recordRead(path);
    }
  }
  flushRestoredRun();
  return [...byAbsolutePath.values()].reverse();
}

/** What probing one candidate found: why it is skipped, or its text. Never an abort: the caller checks the signal. */
type ProbeOutcome =
  | { kind: 'missing' }
  | { kind: 'outside-real'; readPath: string; realWorkDir: string }
  | { kind: 'too-large'; bytes: number; minimumTokens: number }
  | { kind: 'failed'; error: unknown }
  | { kind: 'read'; readPath: string; content: string };

/** Candidates probed ahead of the one being decided: their file-system calls overlap, within a bound on open files. */
const PROBE_WINDOW = 8;

/**
 * Reads back the most recently read files:
 * 1. take the `maxRestoreFiles` most recent candidates ({@link findRecentlyReadFiles}); a
 *    candidate skipped below is not replaced by an older one;
 * 2. for each, most recent first: skip with a warning when its path resolves outside
 *    `workDir`, when it does not exist, when its real path (symlinks followed, with
 *    `fileReader.realpath`) is outside the real `workDir`, or when reading fails;
 * 3. skip it, without reading it, when `fileReader.size` shows that it cannot fit
 *    `maxRestoreTokensPerFile`: a file of `B` bytes holds at least `ceil(B / 128)` tokens
 *    ({@link MAX_BYTES_PER_TOKEN}); a reader without `size` has every file read and counted;
 * 4. skip when its tokens are > `maxRestoreTokensPerFile`; stop before the file that would
 *    take the total above `maxRestoreTokensTotal`.
 *
 * A file is read whole, even when the agent read part of it. Never rejects for a file; only
 * an abort rejects (with the signal's reason). The file-system calls of the next few
 * candidates run while one is decided (decisions and notes stay in order); a file after the
 * one that stops restoration may therefore have been read already, and is dropped.
 */
export async function collectRestoredFiles(
  messages: readonly Message[],
  options: CollectRestoredFilesOptions,
): Promise<RestoredFile[]> {
  const { fileReader, logger, workDir } = options;
  if (options.maxRestoreFiles <= 0) return [];
  const candidates = findRecentlyReadFiles(messages, options).slice(0, options.maxRestoreFiles);
  if (candidates.length === 0) return [];

  let realWorkDir: string | undefined;
  if (fileReader.realpath !== undefined) {
    try {
      realWorkDir = await fileReader.realpath(workDir);
    } catch {
      realWorkDir = workDir;
    }
  }

  // Lexical check first: nothing outside workDir is ever touched, not even probed.
  const inside = candidates.map((candidate) => isPathInside(workDir, candidate.absolutePath));
  const probes: Array<Promise<ProbeOutcome> | undefined> = new Array(candidates.length);
  const probeAhead = (from: number): void => {
    for (let index = from; index < Math.min(candidates.length, from + PROBE_WINDOW); index += 1) {
      if (probes[index] === undefined && inside[index] === true) {
        probes[index] = probeCandidate((candidates[index] as ReadFileCandidate).absolutePath, realWorkDir, options);
      }
    }
  };

  const restored: RestoredFile[] = [];
  let totalTokens = 0;
  for (let index = 0; index < candidates.length; index += 1) {
    throwIfAborted(options.signal);
    const { path, absolutePath } = candidates[index] as ReadFileCandidate;
    if (inside[index] !== true) {
      logger.warn(`restore: skipped "${path}": it resolves to ${absolutePath}, outside workDir ${workDir}`);
      continue;
    }
    probeAhead(index);
    const probe = await (probes[index] as Promise<ProbeOutcome>);
    probes[index] = undefined; // its text is not held once decided
    if (probe.kind === 'failed') {
      throwIfAborted(options.signal);
      logger.warn(`restore: skipped "${path}": could not read it (${describeError(probe.error)})`);
      continue;
    }
    if (probe.kind === 'missing') {
      logger.warn(`restore: skipped "${path}": no file at ${absolutePath}`);
      continue;
    }
    if (probe.kind === 'outside-real') {
      logger.warn(
        `restore: skipped "${path}": its real path ${probe.readPath} is outside workDir ${probe.realWorkDir}`,
      );
      continue;
    }
    if (probe.kind === 'too-large') {
      logger.info?.(
        `restore: skipped "${path}": ${probe.bytes} bytes, at least ${probe.minimumTokens} tokens > maxRestoreTokensPerFile (${options.maxRestoreTokensPerFile})`,
      );
      continue;
    }
    const { content, readPath } = probe;
    const tokenCount = content === '' ? 0 : options.tokenCounter.count(content);
    if (tokenCount > options.maxRestoreTokensPerFile) {
      logger.info?.(
        `restore: skipped "${path}": ${tokenCount} tokens > maxRestoreTokensPerFile (${options.maxRestoreTokensPerFile})`,
      );
      continue;
    }
    if (totalTokens + tokenCount > options.maxRestoreTokensTotal) {
      logger.info?.(
        `restore: stopped before "${path}": ${totalTokens + tokenCount} tokens would exceed maxRestoreTokensTotal (${options.maxRestoreTokensTotal})`,
      );
      break;
    }
    totalTokens += tokenCount;
    restored.push({
      path,
      absolutePath: readPath,
      content,
      tokenCount,
      message: formatRestoredFileMessage(path, content),
    });
  }
  return restored;
}

/**
 * The file-system side of one candidate inside `workDir`, in the order the checks must run:
 * exists, real path inside the real `workDir`, size within the per-file budget, then read.
 * Resolves every failure as an outcome (never rejects), and stops before the next call once
 * the signal has aborted.
 */
async function probeCandidate(
  absolutePath: string,
  realWorkDir: string | undefined,
  options: CollectRestoredFilesOptions,
): Promise<ProbeOutcome> {
  const { fileReader, signal } = options;
  try {
    if (!(await fileReader.exists(absolutePath))) return { kind: 'missing' };
    let readPath = absolutePath;
    if (fileReader.realpath !== undefined && realWorkDir !== undefined) {
      throwIfAborted(signal);
      readPath = await fileReader.realpath(absolutePath);
      if (!isPathInside(realWorkDir, readPath)) return { kind: 'outside-real', readPath, realWorkDir };
    }
    if (fileReader.size !== undefined) {
      throwIfAborted(signal);
      // before reading: a 200 MB log must not be loaded just to be counted and skipped
      const bytes = await fileReader.size(readPath);
      const minimumTokens = Math.ceil(bytes / MAX_BYTES_PER_TOKEN);
      if (minimumTokens > options.maxRestoreTokensPerFile) return { kind: 'too-large', bytes, minimumTokens };
    }
    throwIfAborted(signal);
    return { kind: 'read', readPath, content: await fileReader.read(readPath) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}
