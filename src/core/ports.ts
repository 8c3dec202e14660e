/**
 * Ports: the small interfaces through which the pure core reaches the world. The package
 * ships Node implementations in `src/infrastructure/`; tests and users may pass their own.
 */
import type { Message } from './types.js';

/**
 * Writes offload and archive files. Spec 01's two methods are required; the optional ones
 * unlock the safety guarantees of DESIGN §3 (exclusive create, reuse of identical content)
 * and, with `createExclusiveFromParts`, an archive written without its whole text in memory.
 */
export interface FileWriter {
  /** Creates a directory and its parents; no error when it exists. */
  ensureDir(dirPath: string): Promise<void>;
  /** Writes (creates or replaces) a file. */
  writeFile(filePath: string, content: string): Promise<void>;
  /**
   * Creates a file only if no file has that path. Resolves `'created'` when it wrote the file,
   * `'identical'` when a file with exactly this content is already there (nothing written),
   * `'exists'` when a file with other content is there (nothing written).
   */
  createExclusive?(filePath: string, content: string): Promise<'created' | 'identical' | 'exists'>;
  /**
   * {@link FileWriter.createExclusive} for content given in parts, so that a large file (the
   * compaction archive) is never held whole in memory: the content is the parts joined in
   * order, written as UTF-8. Same outcomes as `createExclusive`. `parts` may be iterated only
   * once (it can be a generator that serializes as it goes); an error it throws rejects the call.
   * Without this method, the parts are joined and given to `createExclusive` (or `writeFile`).
   */
  createExclusiveFromParts?(filePath: string, parts: Iterable<string>): Promise<'created' | 'identical' | 'exists'>;
  /** Lists the file names (not paths) in a directory; `[]` when it does not exist. */
  listDir?(dirPath: string): Promise<string[]>;
  /**
   * Whether a regular file at `filePath` holds exactly `content` (false for a symlink, a
   * directory or no file). With `listDir`, it lets batch offload find an identical file among
   * the names already taken without writing a temporary copy per name tried.
   */
  holdsContent?(filePath: string, content: string): Promise<boolean>;
  /** Resolves a path to an absolute path. Without it, paths are joined as given. */
  resolvePath?(...segments: string[]): string;
}

/** Reads files to restore after compaction (spec 05 F-005). */
export interface FileReader {
  /** Reads a UTF-8 file. */
  read(absPath: string): Promise<string>;
  /** Whether a file exists at that path. */
  exists(absPath: string): Promise<boolean>;
  /** The canonical path with symlinks followed; used to keep restoration inside `workDir`. */
  realpath?(absPath: string): Promise<string>;
  /**
   * The file's size in bytes. With it, restoration skips a file too large for its token
   * budget without reading it (a 200 MB log is never loaded just to be counted and skipped).
   */
  size?(absPath: string): Promise<number>;
}

/** Options of {@link LlmClient.summarize}. */
export interface LlmSummarizeOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
  /** Upper bound of the reply, in tokens. */
  maxTokens?: number;
}

/** Sends one prompt to an LLM and returns its text reply. */
export interface LlmClient {
  /**
   * The model `compactMessages` uses with this client when it is given none (neither
   * `summaryModel` nor `SUMMARY_MODEL`):
   * - a model id: that model (the Anthropic client: `claude-haiku-4-5-20251001`, or the
   *   `model` it was created with);
   * - `null`: the client has no default model (the OpenAI client, unless created with a
   *   `model`: OpenAI-compatible servers serve different models), so `compactMessages` rejects
   *   with `InvalidOptionError` before anything is written until a model is given;
   * - absent: `DEFAULT_SUMMARY_MODEL` (`claude-haiku-4-5-20251001`), as for any client that does not say.
   */
  readonly defaultModel?: string | null;
  /** Returns the model's reply to `prompt`. Rejects on failure; may return blank text (treated as a failure). */
  summarize(prompt: string, model: string, options?: LlmSummarizeOptions): Promise<string>;
}

/** Options of {@link Summarizer.summarize}. */
export interface SummarizerOptions {
  /** Word budget of the summary (a CJK character counts as a word). */
  maxWords: number;
  /** Aborts the work. */
  signal?: AbortSignal;
}

/** The whole summarizing strategy: turns the messages to compact (Rest) into a summary. */
export interface Summarizer {
  /** Returns the summary of `messages`. Rejects or returns blank text on failure. */
  summarize(messages: readonly Message[], options: SummarizerOptions): Promise<string>;
}

/** Counts tokens of a text, synchronously. */
export interface TokenCounter {
  /** Number of tokens in `text`. */
  count(text: string): number;
}

/** Where warnings go. `console` fits. */
export interface Logger {
  warn(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => undefined };
