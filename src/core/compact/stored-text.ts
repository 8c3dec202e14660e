/**
 * Where compaction reads offloaded text back from: its own store, else the folder a seeds'
 * `offloadToolResults` wrote to. Only what this package offloaded is read (the read tool's own
 * rule), and only a few KB of it. Pure: it only calls the stores.
 */
import { throwIfAborted } from '../abort.js';
import { describeError } from '../errors.js';
import { isOffloadReference } from '../offload/offload-reference.js';
import type { ContentStore, Logger } from '../ports.js';
import { extractReference, resolveKey } from '../read/reference-keys.js';
import type { ConversationFacts } from './summary/conversation-facts.js';
import { extractCommand } from './summary/input-gist.js';

/**
 * The store that holds an offloaded result compaction's own store does not: the folder
 * `offloadToolResults` wrote it to (the building blocks used one after the other), or `undefined`
 * when the reference names no such folder compaction may read.
 */
export type OffloadFolderStore = (reference: string) => Promise<ContentStore | undefined>;

/** The places compaction reads offloaded text from. */
export interface StoredTextSources {
  /** The store compaction writes its archive to; `undefined` when it only has a file writer, which cannot read. */
  store: ContentStore | undefined;
  /** Where a reference that `store` does not hold is read from instead, when there is such a place. */
  offloadFolderStore?: OffloadFolderStore | undefined;
}

/** A store and the key in it that may hold a reference's text. */
export interface StoredPlace {
  store: ContentStore;
  key: string;
}

/**
 * The places that may hold `reference`, in order: compaction's own store, then the offload folder
 * the reference names; none when neither takes it. A relative reference (`./tool-result-x.md`)
 * names a key in both: the one that holds it answers.
 */
export async function locateStoredReference(reference: string, sources: StoredTextSources): Promise<StoredPlace[]> {
  const places: StoredPlace[] = [];
  const folder = await sources.offloadFolderStore?.(reference);
  for (const store of [sources.store, folder]) {
    if (store === undefined) continue;
    const resolved = await resolveKey(store, reference, undefined);
    if ('key' in resolved) places.push({ store, key: resolved.key });
  }
  return places;
}

/** The start of a stored text: `text`, and whether it is the whole of it. */
export interface StoredHead {
  text: string;
  whole: boolean;
}

/**
 * The first `maxBytes` bytes of the text `reference` names (one range read; a character cut at
 * the end is dropped), or `undefined` when no place holds it. Rejects when a store fails.
 */
async function readStoredHead(
  reference: string,
  sources: StoredTextSources,
  maxBytes: number,
): Promise<StoredHead | undefined> {
  for (const { store, key } of await locateStoredReference(reference, sources)) {
    const size = (await store.stat(key))?.size;
    if (size === undefined) continue;
    const text = await store.get(key, { offset: 0, length: Math.min(size, maxBytes) });
    if (text === undefined) continue;
    return { text: size <= maxBytes ? text : text.replace(/\uFFFD+$/, ''), whole: size <= maxBytes };
  }
  return undefined;
}

/**
 * Bytes of an offloaded command read back: enough for the characters the ledger shows of a
 * command, in any script.
 */
const COMMAND_HEAD_BYTES = 1024;

/** Offloaded commands read back at most, newest first: as many as the ledger lists. */
const MAX_COMMAND_HEADS_READ = 8;

/** Options of {@link readOffloadedCommandHeads}. */
export interface ReadCommandHeadsOptions extends StoredTextSources {
  /** Receives why a command could not be read (`warn` when a store failed). */
  logger: Logger;
  signal?: AbortSignal | undefined;
}

/**
 * The start of each offloaded shell command in `facts` (a command the context manager moved to
 * the store, its input keeping only the reference), by reference: the newest
 * {@link MAX_COMMAND_HEADS_READ}, {@link COMMAND_HEAD_BYTES} each. One that cannot be read is
 * left out. Rejects only with the signal's reason.
 */
export async function readOffloadedCommandHeads(
  facts: ConversationFacts,
  options: ReadCommandHeadsOptions,
): Promise<Map<string, StoredHead>> {
  const heads = new Map<string, StoredHead>();
  const tried = new Set<string>();
  for (let index = facts.calls.length - 1; index >= 0 && tried.size < MAX_COMMAND_HEADS_READ; index -= 1) {
    const call = facts.calls[index]!;
    const command = extractCommand(call.name, call.input);
    if (command === undefined || !isOffloadReference(command)) continue;
    const reference = extractReference(command);
    if (tried.has(reference)) continue;
    tried.add(reference);
    try {
      const head = await readStoredHead(reference, options, COMMAND_HEAD_BYTES);
      if (head !== undefined) heads.set(reference, head);
    } catch (error) {
      options.logger.warn(
        `compact: could not read the offloaded command ${JSON.stringify(reference)} back (${describeError(error)}); the ledger names its reference`,
      );
    }
    throwIfAborted(options.signal);
  }
  return heads;
}
