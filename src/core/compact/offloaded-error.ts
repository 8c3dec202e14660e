/**
 * The text of the last failed tool result when it was offloaded before compaction. The
 * context manager offloads large results first, so a long failing test log is often only a
 * reference by the time compaction runs; without its text, the ledger's last error would name
 * the failure by its reference alone. Compaction reads a few KB of it back from the store it
 * has (never the whole value) so that the ledger can quote the error line. Pure: it only calls
 * the store.
 */
import { describeError } from '../errors.js';
import { resolveKey } from '../reference-keys.js';
import type { ContentStore, Logger } from '../ports.js';
import { findLastFailure, findOffloadedReference, type ConversationFacts } from './conversation-facts.js';
import type { OffloadedErrorText } from './ledger.js';

/** Bytes read from the start of the offloaded result: where a tool's first error usually is. */
export const OFFLOADED_ERROR_HEAD_BYTES = 4096;
/**
 * Bytes read from its end: a test runner or a compiler prints its summary (`FAIL ...`,
 * `AssertionError: ...`, a traceback's last line) at the end of a long log.
 */
export const OFFLOADED_ERROR_TAIL_BYTES = 4096;

/** Options of {@link readOffloadedErrorText}. */
export interface ReadOffloadedErrorTextOptions {
  /** The store compaction writes its archive to; `undefined` when it only has a file writer, which cannot read. */
  store: ContentStore | undefined;
  /** Receives why the text was not read: `debug` when expected, `warn` when the store failed. */
  logger: Logger;
}

/** `text` without its last line when that line goes on past the range read (a line cut short). */
function dropCutLastLine(text: string): string {
  const lineEnd = text.lastIndexOf('\n');
  return lineEnd === -1 ? text : text.slice(0, lineEnd);
}

/** `text` without its first line when that line began before the range read. */
function dropCutFirstLine(text: string): string {
  const lineEnd = text.indexOf('\n');
  return lineEnd === -1 ? text : text.slice(lineEnd + 1);
}

/**
 * The text of the last failed result among `facts` (read off Rest) when that result is a
 * reference this package wrote into `store`: the whole value when it is at most
 * {@link OFFLOADED_ERROR_HEAD_BYTES} + {@link OFFLOADED_ERROR_TAIL_BYTES} bytes, else its first
 * and last lines within those bytes (two range reads; a line cut by a range is left out).
 * Resolves `undefined`, and the ledger keeps the reference alone, when there is no such result,
 * the reference is not one of `store`'s offloaded values (another store, another prefix, not
 * ours: logged at `debug`), the value is gone (`debug`) or the store fails (`warn`). Never
 * rejects: the ledger must never fail a compaction.
 */
export async function readOffloadedErrorText(
  facts: ConversationFacts,
  options: ReadOffloadedErrorTextOptions,
): Promise<OffloadedErrorText | undefined> {
  const failed = findLastFailure(facts);
  const reference = failed === undefined ? undefined : findOffloadedReference(failed.content);
  if (reference === undefined) return undefined;
  const { store, logger } = options;
  const keepReference = `the ledger names the last error by its reference only`;
  if (store === undefined) {
    logger.debug?.(`compact: the last error was offloaded to ${JSON.stringify(reference)} and compaction has no store to read it from; ${keepReference}`);
    return undefined;
  }
  // the read tool's own rule: only what this package offloaded into this store is read
  const resolved = resolveKey(store, reference, undefined);
  if ('refusal' in resolved) {
    logger.debug?.(`compact: the last error's reference ${JSON.stringify(reference)} is not content offloaded to this store; ${keepReference}`);
    return undefined;
  }
  const { key } = resolved;
  try {
    const entry = await store.stat(key);
    const size = entry?.size;
    let text: string | undefined;
    if (size !== undefined && size <= OFFLOADED_ERROR_HEAD_BYTES + OFFLOADED_ERROR_TAIL_BYTES) {
      text = await store.get(key, { offset: 0, length: size });
    } else if (size !== undefined) {
      const head = await store.get(key, { offset: 0, length: OFFLOADED_ERROR_HEAD_BYTES });
      const tail = await store.get(key, { offset: size - OFFLOADED_ERROR_TAIL_BYTES, length: OFFLOADED_ERROR_TAIL_BYTES });
      text = head === undefined || tail === undefined ? undefined : `${dropCutLastLine(head)}\n${dropCutFirstLine(tail)}`;
    }
    if (text === undefined) {
      logger.debug?.(`compact: nothing is stored under the last error's reference ${JSON.stringify(reference)} (it may have been pruned); ${keepReference}`);
      return undefined;
    }
    return { reference, text };
  } catch (error) {
    logger.warn(`compact: could not read the last error from ${JSON.stringify(reference)} (${describeError(error)}); ${keepReference}`);
    return undefined;
  }
}
