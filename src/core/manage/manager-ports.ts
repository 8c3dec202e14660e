/**
 * The ports the context manager works through: the store, the tokenizer, the hash, the logger,
 * and compaction itself (resolved once by the public layer).
 */
import type { CompactResult } from '../compact/compact.js';
import type { ContentStore, Logger, TokenCounter } from '../ports.js';
import type { Message } from '../types.js';
import type { CompactBudgets } from './types.js';
import type { Hashing } from './records/fingerprint.js';

/** One compaction request: the budgets it runs with, and what this call gives it. */
export interface CompactCall extends CompactBudgets {
  signal: AbortSignal | undefined;
  /** The message appended after the summary: the configured one, or `undefined` when the exchange in flight follows the summary. */
  resumeMessage: string | undefined;
  /** The session the archive goes under. */
  sessionId: string;
  /** The store, its calls raced against `signal`. */
  store: ContentStore;
  /** `'extractive'`: the offline extractive summarizer in place of the configured one, which failed on this history. */
  summarizer?: 'extractive' | undefined;
}

/** What the manager works through. */
export interface ContextManagerPorts {
  /** Where offloaded content and the session's records go (`<sessionId>/...` keys). */
  store: ContentStore;
  /** The local tokenizer. */
  tokenCounter: TokenCounter;
  /**
   * Names the tokenizer in the session's records, so counts made by another tokenizer are never
   * reused; `undefined` (a tokenizer of the caller's) records no counts.
   */
  tokenizerId: string | undefined;
  /** Whether the tokenizer never counts more tokens than a text has UTF-8 bytes (a byte-level BPE such as o200k): then a cheap bound can stand in for a count far below the trigger. */
  countsAtMostUtf8Bytes: boolean;
  /** sha256, for content names, fingerprints and derived sessions. */
  hashing: Hashing;
  /** Warnings: ignored usage, failed compactions, unusable records, hooks that threw. */
  logger: Logger;
  /**
   * Lets the event loop run (a macrotask, such as `setImmediate`): the manager yields with it
   * between parts of the long texts it tokenizes, so that counting a megabyte holds the loop for
   * milliseconds at a time, not a second. Without it, counting is synchronous.
   */
  yieldToLoop?: (() => Promise<void>) | undefined;
  /**
   * Compacts a history unconditionally (the manager has decided), with these budgets; with
   * `call.summarizer: 'extractive'`, summarized by the extractive summarizer (its result's
   * `summarizer` says `'extractive'`).
   */
  compact(messages: readonly Message[], call: CompactCall): Promise<CompactResult>;
}
