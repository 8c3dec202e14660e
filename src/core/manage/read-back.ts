/**
 * Read-backs: a tool result that brings offloaded content back into the conversation (the
 * agent's own file tool opening a reference's path, a `cat` of it) is what the model asked to
 * see, so the manager never offloads it again; otherwise the model would get one more
 * reference, and never the content. A call counts as a read-back when a string in its input
 * names a place in this session's folder of the store (the reference text's path or URI), or
 * names content stored there by its file name (a relative path). A file-reading tool whose
 * result equals content already stored in the session is one too (checked where results are
 * hashed).
 */
import { isOffloadReference } from '../offload/offload-reference.js';
import { isToolUseBlock, type Message } from '../types.js';

/** Deepest input nesting searched for a path. */
const MAX_INPUT_DEPTH = 8;
/** A name the manager gives content (`<stem>-<16 hex>.md`), as it may appear in a path. */
const CONTENT_NAME = /[A-Za-z0-9_~.-]*-[0-9a-f]{16}(?:~\d+)?\.md/g;

/** The strings of `value`, searched `depth` levels deep; a field the manager offloaded (exactly a reference) is not the agent's. */
function collectStrings(value: unknown, depth: number, into: string[]): string[] {
  if (typeof value === 'string') {
    if (!isOffloadReference(value)) into.push(value);
  } else if (depth > 0 && typeof value === 'object' && value !== null) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) collectStrings(item, depth - 1, into);
  }
  return into;
}

/** The tool calls of a history that read offloaded content back, by call id. */
export interface ReadBackCalls {
  /** Notes the read-backs among the `tool_use` blocks of `message`. */
  record(message: Message): void;
  /** Whether the call `toolUseId` read offloaded content back. */
  has(toolUseId: string): boolean;
  /** Whether a tool input names a place in the session's folder. */
  isReadBackInput(input: unknown): boolean;
}

/**
 * Read-back detection for a session whose folder the store names `folderReference` (what
 * `referenceFor` gives a key of the folder, without the key's own name: `/abs/dir/s1/`,
 * `redis://offload/s1/`); `isStored` says whether a name is content stored in the folder (asked
 * when a result is about to be offloaded, once the folder's names are known).
 */
export function createReadBackCalls(folderReference: string, isStored: (name: string) => boolean): ReadBackCalls {
  const inFolder = new Set<string>();
  // call id → content names its input mentions
  const named = new Map<string, string[]>();
  const readInput = (input: unknown): { inFolder: boolean; names: string[] } => {
    const strings = collectStrings(input, MAX_INPUT_DEPTH, []);
    const names: string[] = [];
    for (const text of strings) {
      if (!text.includes('.md')) continue;
      for (const match of text.matchAll(CONTENT_NAME)) names.push(match[0].slice(match[0].lastIndexOf('/') + 1));
    }
    return { inFolder: strings.some((text) => text.includes(folderReference)), names };
  };
  const namesStored = (names: readonly string[]): boolean => names.some((name) => isStored(name));
  return {
    record(message) {
      if (typeof message.content === 'string') return;
      for (const block of message.content) {
        if (!isToolUseBlock(block)) continue;
        const read = readInput(block.input);
        if (read.inFolder) inFolder.add(block.id);
        else if (read.names.length > 0) named.set(block.id, read.names);
      }
    },
    has: (toolUseId) => inFolder.has(toolUseId) || namesStored(named.get(toolUseId) ?? []),
    isReadBackInput(input) {
      const read = readInput(input);
      return read.inFolder || namesStored(read.names);
    },
  };
}
