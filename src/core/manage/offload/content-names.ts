/**
 * Names of what the manager offloads: `<stem>-<hash>.md` (direct offload),
 * `tool-result-<stem>-<hash>.md` (batch offload) and `tool-input-<stem>-<hash>.md` (a large
 * string field of a tool call's input), inside the session's folder, where `<stem>` stands for
 * the tool call id and `<hash>` is the first 16 hex digits of the sha256 of the stored text. A name is written once and names one content forever: a name freed by expiry,
 * prune or a restarted store is never taken by other content, and two conversations that both
 * reuse `call_0` never meet. Since a name follows from the content, a manager that sees a raw
 * result again knows from a listing alone whether it was offloaded, and where.
 */
import { toFileStem } from '../../offload/offload-names.js';

/** Hex digits of the content hash a name carries (64 bits). */
export const CONTENT_HASH_CHARS = 16;

/** Which step offloaded a content: direct offload (a new large result), batch offload (an older one), or a tool call's input field. */
export type OffloadMode = 'direct' | 'batch' | 'input';

const BATCH_PREFIX = 'tool-result-';
const INPUT_PREFIX = 'tool-input-';
const HASHED_NAME = new RegExp(`^(.+)-([0-9a-f]{${CONTENT_HASH_CHARS}})(?:~\\d+)?\\.md$`);

/** The name (relative to the session folder) of a content offloaded under `toolUseId` in `mode`, whose stored text has sha256 `hash`. */
export function buildContentName(mode: OffloadMode, toolUseId: string, hash: string): string {
  const stem = `${toFileStem(toolUseId)}-${hash.slice(0, CONTENT_HASH_CHARS)}`;
  if (mode === 'direct') return `${stem}.md`;
  return `${mode === 'batch' ? BATCH_PREFIX : INPUT_PREFIX}${stem}.md`;
}

/**
 * The name to try after `name` held other content (64 bits of a hash made to collide):
 * `<stem>-<hash>~<attempt>.md`. The manager that writes it remembers it; another process that
 * sees the raw result again takes the first name, so such a content is written again there.
 */
export function buildCollisionName(name: string, attempt: number): string {
  return `${name.slice(0, -'.md'.length).replace(/~\d+$/, '')}~${attempt}.md`;
}

/** What a name in the session folder says: the stems it may stand for and its content hash; `undefined` for a name without one. */
export interface ParsedContentName {
  /** Stems of the tool call ids it may belong to (a direct name and a batch or input name can read alike). */
  stems: string[];
  hash: string;
}

/** Reads a manager's content name (see {@link buildContentName}); `undefined` for any other name. */
export function parseContentName(name: string): ParsedContentName | undefined {
  const match = HASHED_NAME.exec(name);
  if (match === null) return undefined;
  const stem = match[1] as string;
  const prefix = [BATCH_PREFIX, INPUT_PREFIX].find((candidate) => stem.startsWith(candidate));
  const stems = prefix === undefined ? [stem] : [stem, stem.slice(prefix.length)];
  return { stems, hash: match[2] as string };
}
