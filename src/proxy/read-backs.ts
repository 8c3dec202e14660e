/**
 * Read-backs stay read. A tool result that the agent's own tool produced by opening offloaded
 * content (Claude Code's Read of a reference path, a `cat` or `sed -n` of it in a shell) must
 * reach the model as content: offloaded again, it would come back as another reference, and the
 * agent could never see what it asked for. A tool call is a read-back when a string anywhere in
 * its input contains the store's directory.
 */
import { isOffloadReference } from '../core/offload-reference.js';
import type { ContentBlock, Message, ToolResultBlock } from '../core/types.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Whether a string anywhere in `value` (a tool call's input) contains `directory`. */
function namesDirectory(value: unknown, directory: string, depth = 0): boolean {
  if (typeof value === 'string') return value.includes(directory);
  if (depth > 20 || !isRecord(value)) return false;
  return Object.values(value).some((field) => namesDirectory(field, directory, depth + 1));
}

function blocksOf(message: Message): readonly ContentBlock[] {
  return Array.isArray(message.content) ? message.content : [];
}

function isToolResult(block: ContentBlock): block is ToolResultBlock {
  return isRecord(block) && block.type === 'tool_result' && typeof (block as { tool_use_id?: unknown }).tool_use_id === 'string';
}

/**
 * `output` with every read-back the manager offloaded put back as it was in `input`: a tool
 * result whose call's input names `directory` and whose content became a reference gets its
 * original block back. Returns `output` itself when nothing was put back.
 */
export function keepReadBacks(input: readonly Message[], output: readonly Message[], directory: string): readonly Message[] {
  const readBackCalls = new Set<string>();
  const originals = new Map<string, ToolResultBlock>();
  for (const message of input) {
    for (const block of blocksOf(message)) {
      if (isRecord(block) && block.type === 'tool_use' && namesDirectory((block as { input?: unknown }).input, directory)) {
        readBackCalls.add(String((block as { id?: unknown }).id));
      } else if (isToolResult(block) && readBackCalls.has(block.tool_use_id)) {
        originals.set(block.tool_use_id, block);
      }
    }
  }
  if (originals.size === 0) return output;
  let restored: Message[] | undefined;
  output.forEach((message, index) => {
    const blocks = blocksOf(message);
    if (!blocks.some((block) => isToolResult(block) && originals.has(block.tool_use_id) && isOffloadReference(block.content))) return;
    const content = blocks.map((block) => {
      if (!isToolResult(block) || !isOffloadReference(block.content)) return block;
      const original = originals.get(block.tool_use_id);
      return original === undefined || isOffloadReference(original.content) ? block : original;
    });
    restored ??= output.slice();
    restored[index] = { ...message, content };
  });
  return restored ?? output;
}
