/**
 * File names of offloaded content. A `tool_use_id` comes from a model or a tool, so it is not
 * trusted: an id that is not a safe file name maps to one instead of failing the call, and the
 * names of one call are planned against every id in it, so two contents never share a name.
 */
import { isSafePathSegment } from '../store/safe-path.js';

/** Longest `tool_use_id` used as a file name as it is; a longer one is mapped (see {@link toFileStem}). */
export const MAX_VERBATIM_ID_LENGTH = 100;
/** Characters of a mapped id kept before its hash, so the name still hints at the id. */
const MAPPED_ID_KEPT_CHARS = 60;
/**
 * Separates a mapped id's kept characters from its hash, and a direct offload's duplicate from
 * its number. A safe id never holds it, so neither kind of name can equal a real id's name.
 */
const NAME_SEPARATOR = '~';

/**
 * cyrb53: a fast, well-mixed 53-bit string hash (public domain, by bryc), written as 11
 * base-36 digits. Not cryptographic: it only has to tell ids apart, deterministically.
 */
export function cyrb53Base36(text: string): string {
  let first = 0xdeadbeef;
  let second = 0x41c6ce57;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 2654435761);
    second = Math.imul(second ^ code, 1597334677);
  }
  first = Math.imul(first ^ (first >>> 16), 2246822507) ^ Math.imul(second ^ (second >>> 13), 3266489909);
  second = Math.imul(second ^ (second >>> 16), 2246822507) ^ Math.imul(first ^ (first >>> 13), 3266489909);
  const value = 4294967296 * (2097151 & second) + (first >>> 0);
  return value.toString(36).padStart(11, '0');
}

/**
 * The part of a file name that stands for `toolUseId`: the id itself when it is 1-100
 * characters of `[A-Za-z0-9._-]` (and not `.` or `..`); otherwise its safe characters (at most
 * 60, leading dots dropped), `~` and a hash of the whole id. A mapped stem never leaves the
 * directory, never equals a real id, and is the same on every run.
 *
 * @example
 * ```ts
 * toFileStem('toolu_01A'); // 'toolu_01A'
 * toFileStem('../../etc/passwd'); // 'etcpasswd~<11 base-36 digits>'
 * ```
 */
export function toFileStem(toolUseId: string): string {
  if (toolUseId.length <= MAX_VERBATIM_ID_LENGTH && isSafePathSegment(toolUseId)) return toolUseId;
  const kept = toolUseId
    .replace(/[^A-Za-z0-9._-]+/g, '')
    .replace(/^\.+/, '')
    .slice(0, MAPPED_ID_KEPT_CHARS);
  return `${kept}${NAME_SEPARATOR}${cyrb53Base36(toolUseId)}`;
}

/** File name of a batch offload: `tool-result-{stem}.md`, or `tool-result-{stem}-{suffix}.md`. */
export function buildBatchFileName(stem: string, suffix: number): string {
  return suffix === 0 ? `tool-result-${stem}.md` : `tool-result-${stem}-${suffix}.md`;
}

/** File name of a direct offload: `{stem}.md`, or `{stem}~{duplicate}.md` for a repeated id. */
export function buildDirectFileName(stem: string, duplicate: number): string {
  return duplicate === 0 ? `${stem}.md` : `${stem}${NAME_SEPARATOR}${duplicate}.md`;
}

/**
 * Names for the blocks of one call, in order: `stems[i]` is the stem of block `i`, `reserved`
 * the stems of every other id in the call (blocks that are not written keep their names free).
 * The first block of each stem gets `build(stem, 0)`; a later one gets the lowest number
 * whose name no id of the call has and no earlier block took. Deterministic, and linear: each
 * stem's numbers are searched from where its last search stopped.
 */
export function planFileNames(
  stems: readonly string[],
  reserved: Iterable<string>,
  build: (stem: string, suffix: number) => string,
): string[] {
  const taken = new Set<string>();
  for (const stem of reserved) taken.add(build(stem, 0));
  for (const stem of stems) taken.add(build(stem, 0));
  const firstUse = new Set<string>();
  const nextSuffix = new Map<string, number>();
  return stems.map((stem) => {
    if (!firstUse.has(stem)) {
      firstUse.add(stem);
      return build(stem, 0);
    }
    let suffix = nextSuffix.get(stem) ?? 1;
    while (taken.has(build(stem, suffix))) suffix += 1;
    const name = build(stem, suffix);
    taken.add(name);
    nextSuffix.set(stem, suffix + 1);
    return name;
  });
}

/** The name of an offload index (compaction's list of every offloaded result): `offload-index-<hash of its text>.md`. */
export function buildOffloadIndexName(text: string): string {
  return `offload-index-${cyrb53Base36(text)}.md`;
}

/** Names of offload indexes (see {@link buildOffloadIndexName}). */
export const OFFLOAD_INDEX_NAME_PATTERN = /^offload-index-[0-9a-z]{11}\.md$/;

/** Names of compaction archives: `compact-2026-11-21T23-45-12Z-1.json`. */
export const ARCHIVE_FILE_NAME_PATTERN = /^compact-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-(\d+)\.json$/;

/** A batch offload's name: `tool-result-{stem}.md` or `tool-result-{stem}-{n}.md` (a mapped stem holds `~`). */
const BATCH_FILE_NAME = /^tool-result-[A-Za-z0-9._~-]+\.md$/;
/** A direct offload's name inside a session folder: `{stem}.md` or `{stem}~{n}.md`. */
const SESSION_FILE_NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*\.md$/;

/**
 * Whether `key` has the shape of a key this package writes:
 * - `tool-result-{id}.md` (batch offload) and `compact-{time}-{n}.json` (a compaction archive)
 *   at the top of the store;
 * - `{session}/{id}.md` (direct offload, or batch offload under a session) and
 *   `{session}/compact-{time}-{n}.json` one level down, `{session}` a safe path segment.
 * Anything else (another extension, a hidden file, a temporary file, a deeper path) is not ours.
 */
export function isOffloadedKey(key: string): boolean {
  const segments = key.split('/');
  if (segments.length === 1) return BATCH_FILE_NAME.test(key) || ARCHIVE_FILE_NAME_PATTERN.test(key);
  if (segments.length !== 2) return false;
  const [session, name] = segments as [string, string];
  return isSafePathSegment(session) && (SESSION_FILE_NAME.test(name) || ARCHIVE_FILE_NAME_PATTERN.test(name));
}
