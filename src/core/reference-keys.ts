/**
 * From a reference the model (or a summary) gives back to the store key it names: the whole
 * reference line, a JSON-quoted reference or the bare reference all name the same key, and a
 * key this package did not write, or another session's, is refused with a message for the model.
 * The read tool and compaction's ledger (reading an offloaded error back) share these rules.
 */
import { describeValue } from './errors.js';
import { isOffloadedKey } from './offload-names.js';
import { BATCH_REFERENCE_PREFIX, DIRECT_REFERENCE_PREFIX } from './offload-reference.js';
import type { ContentStore } from './ports.js';
import { findStoreKeyProblem } from './store-keys.js';

/**
 * The reference inside `ref`: the text between `[Content offloaded to: ` (or `[Tool result
 * offloaded to file: `) and `]` when the model passed the whole line (a preview after it
 * ignored), the string inside the quotes when it passed a JSON string (a compaction summary
 * writes its references that way), else `ref` trimmed.
 */
export function extractReference(ref: string): string {
  const trimmed = ref.trim();
  for (const prefix of [BATCH_REFERENCE_PREFIX, DIRECT_REFERENCE_PREFIX]) {
    if (!trimmed.startsWith(prefix)) continue;
    const lineEnd = trimmed.indexOf('\n');
    const line = (lineEnd === -1 ? trimmed : trimmed.slice(0, lineEnd)).trimEnd();
    if (line.endsWith(']')) return line.slice(prefix.length, -1);
  }
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) {
    const unquoted = parseJsonString(trimmed);
    if (unquoted !== undefined) return unquoted.trim();
  }
  return trimmed;
}

function parseJsonString(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A reference for a message: quoted, cut to 80 characters. */
export function quoteReference(ref: string): string {
  return describeValue(ref);
}

/** The key `ref` names in `store`, or the refusal to give the model. Nothing is read. */
export function resolveKey(store: ContentStore, ref: string, sessionId: string | undefined): { key: string } | { refusal: string } {
  let key: string | undefined;
  try {
    key = store.keyFor(ref);
  } catch {
    key = undefined;
  }
  if (key === undefined || findStoreKeyProblem(key) !== undefined || !isOffloadedKey(key)) {
    return {
      refusal:
        `Refused: ${quoteReference(ref)} is not a reference to content offloaded here, so it is not read. ` +
        'Pass a reference exactly as it appears in "[Content offloaded to: ...]" or "[Tool result offloaded to file: ...]".',
    };
  }
  if (sessionId !== undefined && !key.startsWith(`${sessionId}/`)) {
    return { refusal: `Refused: ${quoteReference(ref)} belongs to another session; this tool reads only the content offloaded in session "${sessionId}".` };
  }
  return { key };
}
