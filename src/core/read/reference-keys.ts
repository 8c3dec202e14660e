/**
 * From a reference the model (or a summary) gives back to the store key it names: the whole
 * reference line, a JSON-quoted reference or the bare reference all name the same key, and a
 * key this package did not write, or another session's, is refused with a message for the model.
 * The read tool and compaction's ledger (reading an offloaded error back) share these rules.
 */
import { describeValue } from '../errors.js';
import { parseContentName } from '../manage/offload/content-names.js';
import { ARCHIVE_FILE_NAME_PATTERN, isOffloadedKey, OFFLOAD_INDEX_NAME_PATTERN } from '../offload/offload-names.js';
import { BATCH_REFERENCE_PREFIX, DIRECT_REFERENCE_PREFIX } from '../offload/offload-reference.js';
import type { ContentStore } from '../ports.js';
import { findStoreKeyProblem, holdsStoreMarker, isDirectoryStore, STORE_MARKER_KEY } from '../store/store-keys.js';

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

/**
 * Whether `key`, one this package writes, has a name no user's file has: a batch offload's
 * `tool-result-*.md`, an archive's `compact-*.json`, an offload index, or the context manager's
 * `<id>-<16 hex digits of the content's hash>.md`. A direct offload's `<session>/<id>.md`
 * could be anyone's `notes/passwords.md`.
 */
function isUnmistakableKey(key: string): boolean {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return (
    name.startsWith('tool-result-') ||
    ARCHIVE_FILE_NAME_PATTERN.test(name) ||
    OFFLOAD_INDEX_NAME_PATTERN.test(name) ||
    parseContentName(name) !== undefined
  );
}

/**
 * Whether `key` may be read as the package's: in a directory store (which may hold anyone's
 * files), a name that could be a user's is read only where the package made the directory,
 * marked at the top or in the key's session folder. An unreadable marker counts as none.
 */
async function isOwnedKey(store: ContentStore, key: string): Promise<boolean> {
  if (!isDirectoryStore(store) || isUnmistakableKey(key)) return true;
  const folder = key.slice(0, key.lastIndexOf('/'));
  const holds = (place: string): Promise<boolean> => holdsStoreMarker(store, place).catch(() => false);
  return (await holds('')) || (await holds(folder));
}

/**
 * The key `ref` names in `store`, or the refusal to give the model. Only the package's marker
 * file may be looked at (see {@link isOwnedKey}); the content is not read.
 */
export async function resolveKey(
  store: ContentStore,
  ref: string,
  sessionId: string | undefined,
): Promise<{ key: string } | { refusal: string }> {
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
    return {
      refusal: `Refused: ${quoteReference(ref)} belongs to another session; this tool reads only the content offloaded in session "${sessionId}".`,
    };
  }
  if (!(await isOwnedKey(store, key))) {
    return {
      refusal:
        `Refused: ${quoteReference(ref)} is in a directory agent-context-offload did not create (it holds no ${STORE_MARKER_KEY} file), ` +
        "so it may be anyone's file and is not read.",
    };
  }
  return { key };
}
