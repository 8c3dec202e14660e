/**
 * Message shapes: the Anthropic Messages API, widened to what real agent histories hold
 * (DESIGN §2). Unknown block types and unknown fields pass through every function of the
 * package untouched.
 *
 * @packageDocumentation
 */

/** Who wrote a message. `system` messages lead a history (the Head of compaction). */
export type Role = 'system' | 'user' | 'assistant';

/** Plain text. */
export interface TextBlock {
  type: 'text';
  text: string;
  [field: string]: unknown;
}

/** A tool call made by the assistant. `input` is the tool's JSON arguments. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * The result of a tool call, sent back in a user message. `content` is either text or a list
 * of blocks (text, images, ...). Every other field (`is_error`, `cache_control`, ...) is kept
 * when the block is offloaded; only `content` changes.
 */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | ContentBlock[];
  is_error?: boolean;
  [field: string]: unknown;
}

/** Extended thinking text; counted by the ratio gate and the token counter. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  [field: string]: unknown;
}

/**
 * Any other block (image, document, redacted_thinking, server tool blocks, ...): kept exactly
 * as it is, counted as 0 characters and 0 tokens.
 */
export interface OtherBlock {
  type: string;
  [field: string]: unknown;
}

/** One block of a message's content. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | OtherBlock;

/** One message of a conversation history. */
export interface Message {
  role: Role;
  content: string | ContentBlock[];
  [field: string]: unknown;
}

/** Narrows a block to a `tool_result`. */
export function isToolResultBlock(block: unknown): block is ToolResultBlock {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool_result';
}

/** Narrows a block to a `tool_use`. */
export function isToolUseBlock(block: unknown): block is ToolUseBlock {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'tool_use';
}
