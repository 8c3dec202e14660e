/**
 * Read-backs: a tool result that brings offloaded content back into the conversation (the
 * agent's own file tool opening a reference's path, a `cat` of it) is what the model asked to
 * see, so the manager never offloads it again; otherwise the model would get one more
 * reference, and never the content. A call counts as a read-back when a string in its input
 * names a place in this session's folder of the store (the reference text's path or URI). A
 * result whose content equals content already stored in the session under another call is one
 * too (checked where the result is hashed).
 */
import { isToolUseBlock, type Message } from '../types.js';

/** Deepest input nesting searched for a path. */
const MAX_INPUT_DEPTH = 8;

/** Whether a string of `value` (searched `depth` levels deep) contains one of `markers`. */
function mentions(value: unknown, markers: readonly string[], depth: number): boolean {
  if (typeof value === 'string') return markers.some((marker) => value.includes(marker));
  if (depth <= 0 || typeof value !== 'object' || value === null) return false;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.some((item: unknown) => mentions(item, markers, depth - 1));
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
 * `redis://offload/s1/`).
 */
export function createReadBackCalls(folderReference: string): ReadBackCalls {
  const markers = [folderReference];
  const ids = new Set<string>();
  const isReadBackInput = (input: unknown): boolean => mentions(input, markers, MAX_INPUT_DEPTH);
  return {
    record(message) {
      if (typeof message.content === 'string') return;
      for (const block of message.content) {
        if (isToolUseBlock(block) && isReadBackInput(block.input)) ids.add(block.id);
      }
    },
    has: (toolUseId) => ids.has(toolUseId),
    isReadBackInput,
  };
}
