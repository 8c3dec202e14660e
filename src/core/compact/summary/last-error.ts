/**
 * The last error a tool printed, for the ledger and the summary: the newest tool result that
 * is marked `is_error`, or that holds an error line ({@link findErrorLine}) though it is not
 * marked (a failing test run's output often comes back as an ordinary result). Results of
 * tools that fetch content (reads, searches) count only when marked.
 *
 * The context manager offloads large results first, so a long failing log is often only a
 * reference by the time compaction runs. The manager writes the error line after the
 * reference; for a reference without one, compaction reads a few KB back from the store (its
 * head and its tail, never the whole value) to find it. Pure: it only calls the store.
 */
import { throwIfAborted } from '../../abort.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../ports.js';
import { readReferenceErrorLine } from '../../offload/offload-reference.js';
import { locateStoredReference, type StoredTextSources } from '../stored-text.js';
import {
  findOffloadedReference,
  renderResultText,
  type ConversationFacts,
  type ToolCall,
  type ToolResultFact,
} from './conversation-facts.js';
import { findErrorLine, firstLine, printsItsOwnErrors } from './error-lines.js';

/** Bytes read from the start of an offloaded result: where a tool's first error usually is. */
const OFFLOADED_ERROR_HEAD_BYTES = 16_384;
/**
 * Bytes read from its end: a test runner or a compiler prints its summary (`FAIL ...`,
 * `AssertionError: ...`, a traceback's last line) at the end of a long log.
 */
const OFFLOADED_ERROR_TAIL_BYTES = 16_384;
/**
 * Offloaded results read back at most, newest first, while looking for the last error: each
 * costs a few small reads, and the results older than these are judged by what the history holds.
 */
export const MAX_OFFLOADED_RESULTS_READ = 8;

/** The last error a tool printed. */
export interface LastErrorFinding {
  result: ToolResultFact;
  /** Its call, when the call is in the messages. */
  call: ToolCall | undefined;
  /**
   * The line that best says what went wrong; for a marked result with no such line, its first
   * line (for an offloaded one whose text was not read back, its reference line).
   */
  line: string;
  /** Where the whole result is, when it was offloaded and `line` came from its stored text (or the error line written after its reference). */
  reference: string | undefined;
}

/**
 * Walks the results from the newest, asking (by yielding its reference) for the stored text of
 * each offloaded one it must judge, and returns the last error, or `undefined`.
 */
function* walkToLastError(
  facts: ConversationFacts,
): Generator<string, LastErrorFinding | undefined, string | undefined> {
  const callsById = new Map(facts.calls.map((call) => [call.id, call]));
  for (let index = facts.results.length - 1; index >= 0; index -= 1) {
    const result = facts.results[index] as ToolResultFact;
    if (!result.isError && !printsItsOwnErrors(result.toolName)) continue;
    const inline = renderResultText(result.content);
    const reference = findOffloadedReference(result.content);
    // the context manager writes a failing result's error line after its reference: no read needed
    const noted = reference === undefined ? undefined : readReferenceErrorLine(inline);
    if (noted !== undefined) return { result, call: callsById.get(result.toolUseId), line: noted, reference };
    const stored = reference === undefined ? undefined : yield reference;
    const storedLine =
      stored === undefined
        ? undefined
        : (findErrorLine(stored) ?? (result.isError ? firstLine(stored) : '')) || undefined;
    // else what the history holds: the output, or a reference (maybe with a preview of it)
    const line = storedLine ?? findErrorLine(inline) ?? (result.isError ? firstLine(inline) : undefined);
    if (line === undefined) continue;
    return {
      result,
      call: callsById.get(result.toolUseId),
      line,
      reference: storedLine === undefined ? undefined : reference,
    };
  }
  return undefined;
}

/** The last error a tool printed in `facts`, judged by what the messages hold (nothing is read back). */
export function findLastError(facts: ConversationFacts): LastErrorFinding | undefined {
  const walk = walkToLastError(facts);
  let step = walk.next();
  while (step.done !== true) step = walk.next(undefined);
  return step.value;
}

/** Options of {@link findLastErrorReadingStore}. */
export interface FindLastErrorReadingStoreOptions extends StoredTextSources {
  /** Receives why a text was not read: `debug` when expected, `warn` when the store failed. */
  logger: Logger;
  /** Ends the wait between reads. */
  signal?: AbortSignal | undefined;
}

/**
 * {@link findLastError}, reading back the head and tail of the offloaded results it must judge
 * (at most {@link MAX_OFFLOADED_RESULTS_READ}, newest first) from `store`, or from the folder
 * `offloadFolderStore` names for a reference `store` does not hold, so that the error line of
 * an offloaded failing log is found, next to its reference. A reference that is neither's
 * offloaded value (another store, another prefix, not this package's), a value gone, or a store
 * that fails, leaves that result judged by what the history holds (the failure logged). Rejects
 * only with the signal's reason.
 */
export async function findLastErrorReadingStore(
  facts: ConversationFacts,
  options: FindLastErrorReadingStoreOptions,
): Promise<LastErrorFinding | undefined> {
  const walk = walkToLastError(facts);
  let reads = 0;
  let step = walk.next();
  while (step.done !== true) {
    let text: string | undefined;
    if (reads < MAX_OFFLOADED_RESULTS_READ) {
      reads += 1;
      text = await readHeadAndTail(step.value, options);
      throwIfAborted(options.signal);
    }
    step = walk.next(text);
  }
  return step.value;
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
 * The text stored under `reference`: the whole value when it is at most
 * {@link OFFLOADED_ERROR_HEAD_BYTES} + {@link OFFLOADED_ERROR_TAIL_BYTES} bytes, else its first
 * and last lines within those bytes (two range reads; a line cut by a range is left out).
 * `undefined`, logged, when it cannot be read. Never rejects.
 */
async function readHeadAndTail(
  reference: string,
  options: FindLastErrorReadingStoreOptions,
): Promise<string | undefined> {
  const { logger } = options;
  const judged = 'it is judged by the reference the history holds';
  const quoted = JSON.stringify(reference);
  const places = await locateStoredReference(reference, options);
  if (places.length === 0) {
    logger.debug?.(
      options.store === undefined && options.offloadFolderStore === undefined
        ? `compact: a result was offloaded to ${quoted} and compaction has no store to read it from; ${judged}`
        : `compact: the reference ${quoted} is not content offloaded to this store or to a folder compaction reads; ${judged}`,
    );
    return undefined;
  }
  try {
    let text: string | undefined;
    // a relative reference (`./tool-result-x.md`) names a key in every place: the one holding it answers
    for (const { store, key } of places) {
      const size = (await store.stat(key))?.size;
      if (size === undefined) continue;
      if (size <= OFFLOADED_ERROR_HEAD_BYTES + OFFLOADED_ERROR_TAIL_BYTES) {
        text = await store.get(key, { offset: 0, length: size });
      } else {
        const head = await store.get(key, { offset: 0, length: OFFLOADED_ERROR_HEAD_BYTES });
        const tail = await store.get(key, {
          offset: size - OFFLOADED_ERROR_TAIL_BYTES,
          length: OFFLOADED_ERROR_TAIL_BYTES,
        });
        text =
          head === undefined || tail === undefined ? undefined : `${dropCutLastLine(head)}\n${dropCutFirstLine(tail)}`;
      }
      break;
    }
    if (text === undefined)
      logger.debug?.(`compact: nothing is stored under ${quoted} (it may have been pruned); ${judged}`);
    return text;
  } catch (error) {
    logger.warn(`compact: could not read ${quoted} back (${describeError(error)}); ${judged}`);
    return undefined;
  }
}
