/**
 * Ports: the small interfaces through which the pure core reaches the world. The package
 * ships Node implementations in `src/infrastructure/` and storage drivers in `src/stores/`;
 * tests and users may pass their own.
 */
import type { Message } from './types.js';

/**
 * Writes offload and archive files. `writeFile` is required; the optional methods
 * unlock the safety guarantees (exclusive create, reuse of identical content)
 * and, with `createExclusiveFromParts`, an archive written without its whole text in memory.
 */
export interface FileWriter {
  /**
   * Creates a directory and its parents; no error when it exists. Optional: a writer to an
   * object store has no directories.
   */
  ensureDir?(dirPath: string): Promise<void>;
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

/** What a write-once put found: it wrote the value, the same value was there, or another one is. */
export type PutOutcome = 'created' | 'identical' | 'exists';

/** What a store knows of one entry. */
export interface StoredEntry {
  /** Size of the value in bytes (UTF-8). */
  size: number;
  /** When it was written, as the backend records it (file mtime, object LastModified, ...). */
  createdAt: Date;
}

/** A range of a stored value, in bytes of its UTF-8 encoding. */
export interface ByteRange {
  /** First byte. @default 0 */
  offset?: number;
  /** Bytes to read at most. @default to the end */
  length?: number;
}

/**
 * Where offloaded content and compaction archives live: a key-value store with write-once
 * puts. Keys are relative, slash-separated paths (`session-1/tool-result-a.md`), checked by
 * the caller with `assertStoreKey` before any call; values are text. The package ships file,
 * memory, Redis and S3 drivers; `testStore` (from `agent-context-offload/testing`) runs the
 * contract every driver must meet on yours.
 */
export interface ContentStore {
  /** What backs it, for messages and for the read tool: `'file'`, `'memory'`, `'redis'`, `'s3'`, ... */
  readonly kind: string;
  /**
   * Writes `content` under `key` unless a value is there: `'created'`, or `'identical'` when
   * exactly this content is there, or `'exists'` when other content is (nothing written). Two
   * concurrent calls never both create; a reader never sees half a value. `content` given as
   * parts (the compaction archive) is their concatenation, iterated once.
   */
  putIfAbsent(key: string, content: string | Iterable<string>): Promise<PutOutcome>;
  /** Writes (creates or replaces) `content` under `key`, atomically: direct offload's overwrite. */
  put(key: string, content: string): Promise<void>;
  /**
   * The value of `key`, or `undefined` when there is none. With `range`, only those bytes
   * (a range read where the backend has one), decoded as UTF-8 with a character cut by
   * either edge of the range left out.
   */
  get(key: string, range?: ByteRange): Promise<string | undefined>;
  /** Size and time of `key`, or `undefined` when there is none. */
  stat(key: string): Promise<StoredEntry | undefined>;
  /** Every key that starts with `prefix` (`''` for all), in no particular order. */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Keys under `prefix` of partial writes: what a write leaves before it completes (the file
   * store's temp files), kept forever by a writer killed midway. Not entries: `list` leaves
   * them out and the read tool refuses them; `stat` and `delete` take them, so prune can remove
   * the stale ones. Optional: a store whose writes leave nothing behind has none.
   */
  listPartialWrites?(prefix: string): AsyncIterable<string>;
  /** Removes `key`; no error when it is not there. */
  delete(key: string): Promise<void>;
  /**
   * The text a reference names `key` by: an absolute path for the file store,
   * `<scheme>://<prefix>/<key>` for the others (`redis://offload/s1/a.md`).
   */
  referenceFor(key: string): string;
  /** The key a reference written by {@link ContentStore.referenceFor} names, or `undefined` for any other text. */
  keyFor(reference: string): string | undefined;
  /**
   * Whether `key` holds exactly `content`, cheaply (sizes first). Batch offload uses it to find
   * an identical value among names already taken without writing a copy per name tried;
   * without it, each name is tried with `putIfAbsent`.
   */
  holds?(key: string, content: string): Promise<boolean>;
  /**
   * Whether anything is stored under `key` (a value of any kind, this store's or not). Optional:
   * with it, batch offload finds the next free name for a reused id by asking about its
   * numbered names (`tool-result-<id>-1.md`, `-2`, ...) in rounds, so the cost follows the uses
   * of that id, not the size of the store, and compaction numbers its archive alike; without
   * it, the store is listed with that prefix (on Redis a listing walks the whole keyspace).
   */
  exists?(key: string): Promise<boolean>;
}

/** Reads files to restore after compaction. */
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
  /** Called with the reply's token usage, when the provider reports it. Optional for a client to honour. */
  onUsage?: (usage: LlmUsage) => void;
}

/**
 * Token usage of one or more LLM requests, split by how the provider billed the input. With
 * Anthropic, the prompt size is `inputTokens + cacheReadInputTokens + cacheCreationInputTokens`;
 * with OpenAI, `cacheReadInputTokens` is the part of the prompt served from its cache and
 * `inputTokens` the rest.
 */
export interface LlmUsage {
  /** Input tokens billed at the full rate: neither read from nor written to the prompt cache. */
  inputTokens: number;
  /** Input tokens read from the prompt cache (billed at the cache-read rate). */
  cacheReadInputTokens: number;
  /** Input tokens written to the prompt cache (billed at the cache-write rate). */
  cacheCreationInputTokens: number;
  /** Output tokens. */
  outputTokens: number;
  /** How many requests these figures sum. */
  requestCount: number;
}

/**
 * The request parameters of the conversation being compacted, as the agent loop sends them.
 * A summary that reuses the provider's prompt cache repeats them exactly: the cache is per
 * model, and `tools` and `system` come before the messages in the cached prefix.
 */
export interface ConversationRequest {
  /** The model the conversation runs on. */
  model: string;
  /** The `system` prompt the loop sends, exactly as it sends it (a string, or the API's text blocks). */
  system?: string | readonly unknown[] | undefined;
  /** The `tools` the loop sends, exactly as it sends them. */
  tools?: readonly unknown[] | undefined;
  /** The `tool_choice` the loop sends, if any (a change of it invalidates the cached messages). */
  tool_choice?: unknown;
  /** The `thinking` setting the loop sends, if any (a change of it invalidates the cached messages). */
  thinking?: unknown;
}

/** What {@link LlmClient.summarizeConversation} sends: the conversation's own request, then one user message. */
export interface ConversationSummaryRequest extends ConversationRequest {
  /** The conversation's messages (no `system` role), as the loop sent them. */
  messages: readonly Message[];
  /** The user message that asks for the summary, added after the conversation. */
  instruction: string;
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
  /**
   * Optional: sends the conversation's own request (`model`, `system`, `tools`, the messages,
   * with a prompt-cache breakpoint after the last one) followed by `instruction` as one user
   * message, so that the provider's prompt cache serves the conversation, and returns the
   * reply's text. Needed by `summaryMode: 'reuse-prefix'`; the Anthropic client has it.
   */
  summarizeConversation?(request: ConversationSummaryRequest, options?: LlmSummarizeOptions): Promise<string>;
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
  /**
   * The tokenizer whose counts `count` returns exactly, when it is a named one: `'o200k_base'`
   * for the package's default counter. It says what the counter can do: with `'o200k_base'`,
   * texts joined where o200k_base always ends a pre-token count as the sum of their parts (the
   * summary prompt is then counted message by message) and no text counts more tokens than its
   * UTF-8 bytes; and counts recorded under one name are reused only by a counter of the same
   * name. Leave it out for a counter that only approximates (a ratio, a wrapper that changes
   * counts); a wrapper that returns the same counts keeps its counter's name.
   * @default undefined (nothing assumed)
   */
  readonly encoding?: string | undefined;
}

/** Where warnings go. `console` fits. */
export interface Logger {
  warn(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}

/**
 * Waits `delayMs` milliseconds, then resolves; rejects with `signal.reason` when the signal
 * aborts first (or has already aborted). The core waits only through this port.
 */
export type Sleep = (delayMs: number, signal?: AbortSignal) => Promise<void>;

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => undefined };
