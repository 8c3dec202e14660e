/**
 * Content fingerprints: the manager keys its records by what a history holds, never by which
 * JavaScript object a message is, so a history rebuilt from JSON in another process finds them.
 * The hash itself comes through a port (the core has no crypto); it must be cryptographic
 * (sha256), since with a session named by content a crafted collision would hand one user's
 * compacted context to another.
 */
import type { Message } from '../../types.js';

/** A running hash over text: `update` adds to it, `copy` forks its state, `digest` reads it (hex) without ending it. */
export interface RunningHash {
  update(text: string): void;
  /** An independent hash in the same state: its updates do not reach this one. */
  copy(): RunningHash;
  /** The hex digest of everything added so far; the hash can go on after it. */
  digest(): string;
}

/** Creates running hashes (sha256 over UTF-8). */
export interface Hashing {
  create(): RunningHash;
}

/** Written first into every history fingerprint: a change of the scheme changes every fingerprint. */
const HISTORY_FINGERPRINT_SEED = 'agent-context-offload history v2\n';

/**
 * The text one message adds to a history fingerprint: its JSON less the prompt-cache markers of
 * its blocks (see {@link serializeWithoutCacheMarkers}; JSON holds no raw newline), then a
 * newline. A client that moves its marker (Claude Code marks the newest message of each
 * request) still meets the records written for the history it sent before.
 */
export function serializeForFingerprint(message: Message): string {
  return `${serializeWithoutCacheMarkers(message)}\n`;
}

/** A fresh history fingerprint (no message yet). */
export function startHistoryHash(hashing: Hashing): RunningHash {
  const hash = hashing.create();
  hash.update(HISTORY_FINGERPRINT_SEED);
  return hash;
}

/** The hex sha256 of one text, through the hashing port: cryptographic, for content names, fingerprints and derived sessions (`cyrb53Base36` in offload-names.ts is the short, non-cryptographic one for telling ids apart). */
export function sha256Hex(hashing: Hashing, text: string): string {
  const hash = hashing.create();
  hash.update(text);
  return hash.digest();
}

/** A content block without its prompt-cache marker (and a tool result's blocks without theirs); the block itself when it has none. */
function dropBlockMarker(block: unknown): unknown {
  if (typeof block !== 'object' || block === null) return block;
  const fields = block as Record<string, unknown>;
  const content =
    fields.type === 'tool_result' && Array.isArray(fields.content) ? dropBlockMarkers(fields.content) : fields.content;
  if (!('cache_control' in fields) && content === fields.content) return block;
  // an undefined field is left out by JSON.stringify; the other fields keep their order
  return { ...fields, cache_control: undefined, content };
}

function dropBlockMarkers(blocks: readonly unknown[]): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index];
    const dropped = dropBlockMarker(block);
    if (dropped !== block) (copy ??= blocks.slice())[index] = dropped;
  }
  return copy ?? blocks;
}

/**
 * `message` as JSON with the prompt-cache markers (`cache_control`) of its blocks left out: what
 * the model reads of it, whatever the client marks for its cache. Claude Code moves its marker to
 * the last message of each request, so a message comes back with the same text in a new object
 * and a marker less. A field named `cache_control` inside a tool call's input is the tool's data
 * and stays.
 */
export function serializeWithoutCacheMarkers(message: Message): string {
  let text = recentlySerialized.get(message);
  if (text !== undefined) return text;
  const content: unknown = message.content;
  const unmarked = Array.isArray(content) ? dropBlockMarkers(content) : content;
  text = JSON.stringify(unmarked === content ? message : { ...message, content: unmarked });
  recentlySerialized.set(message, text);
  serializedChars += text.length;
  while (
    recentlySerialized.size > 1 &&
    (recentlySerialized.size > RECENTLY_SERIALIZED || serializedChars > RECENTLY_SERIALIZED_CHARS)
  ) {
    const [oldest, oldestText] = recentlySerialized.entries().next().value as [Message, string];
    recentlySerialized.delete(oldest);
    serializedChars -= oldestText.length;
  }
  return text;
}

/**
 * Messages serialized last, and their text: a call serializes its new messages for their count
 * key and again for the record chain (more than once when it writes a record). Few, so the
 * texts of a long history are not kept alive; messages are never changed in place.
 */
const RECENTLY_SERIALIZED = 16;
/** And at most this many characters in all (the newest whatever its length): a process serves many sessions. */
const RECENTLY_SERIALIZED_CHARS = 4 * 1024 * 1024;
const recentlySerialized = new Map<Message, string>();
let serializedChars = 0;

/** The sha256 of {@link serializeWithoutCacheMarkers}: a message's content, to find what was learned of it. */
export function hashMessageContent(hashing: Hashing, message: Message): string {
  return sha256Hex(hashing, serializeWithoutCacheMarkers(message));
}
