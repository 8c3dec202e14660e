/**
 * Message shapes: the Anthropic Messages API, widened to what real agent histories hold
 * in practice. Unknown block types and unknown fields pass through every function of the
 * package untouched.
 *
 * @packageDocumentation
 */

/** Who wrote a message. `system` messages lead a history (the Head of compaction). */
export type Role = 'system' | 'user' | 'assistant';

/**
 * A prompt-caching breakpoint, as the Anthropic API takes it (`{ type: 'ephemeral', ttl?: '5m' | '1h' }`).
 * Typed loosely so that the SDK's own type fits whatever its version.
 */
export interface CacheControl {
  type: string;
  ttl?: string;
}

/**
 * Plain text. The known optional fields are typed so that the Anthropic SDK's `TextBlock` and
 * `TextBlockParam` fit; any other field still passes through untouched.
 */
export interface TextBlock {
  type: 'text';
  text: string;
  /** Prompt-caching breakpoint. */
  cache_control?: CacheControl | null;
  /** Citations of a reply's text (the SDK's `TextCitation[]`). */
  citations?: unknown[] | null;
}

/** A tool call made by the assistant. `input` is the tool's JSON arguments. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  /** Prompt-caching breakpoint. */
  cache_control?: CacheControl | null;
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
  /** Whether the tool failed. */
  is_error?: boolean;
  /** Prompt-caching breakpoint. */
  cache_control?: CacheControl | null;
}

/** Extended thinking text; counted by the ratio gate and the token counter. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  /** The API's signature of the thinking text, sent back unchanged. */
  signature?: string;
}

/**
 * Any other block written as an object literal (image, document, redacted_thinking, server tool
 * blocks, ...): kept exactly as it is, counted as 0 characters and 0 tokens. The index
 * signature accepts any field in a literal, e.g. `{ type: 'image', source: { ... } }`.
 */
export interface OtherBlock {
  type: string;
  [field: string]: unknown;
}

/**
 * Any block typed elsewhere, e.g. by the Anthropic SDK (`ContentBlock`, `ContentBlockParam`):
 * an interface without an index signature does not fit {@link OtherBlock}, so this member lets
 * SDK values be passed without a cast. Read its fields after narrowing with a guard
 * ({@link isTextBlock}, {@link isToolUseBlock}, {@link isToolResultBlock}, {@link isThinkingBlock}).
 */
export interface ForeignBlock {
  type: string;
}

/**
 * One block of a message's content. Because {@link OtherBlock} and {@link ForeignBlock} take any
 * `type`, comparing `block.type` does not narrow the union: use the guards.
 */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | OtherBlock | ForeignBlock;

/**
 * One message of a conversation history. The Anthropic SDK's `MessageParam` fits, and so does
 * `{ role: 'assistant', content: response.content }` for a reply of its `messages.create`.
 * Extra fields of a message object pass through untouched.
 */
export interface Message {
  role: Role;
  content: string | ContentBlock[];
}

/** Narrows a block to a `text` block, by its `type`. */
export function isTextBlock(block: unknown): block is TextBlock {
  return hasType(block, 'text');
}

/** Narrows a block to a `thinking` block, by its `type`. */
export function isThinkingBlock(block: unknown): block is ThinkingBlock {
  return hasType(block, 'thinking');
}

/** Narrows a block to a `tool_result`, by its `type`. */
export function isToolResultBlock(block: unknown): block is ToolResultBlock {
  return hasType(block, 'tool_result');
}

/** Narrows a block to a `tool_use`, by its `type`. */
export function isToolUseBlock(block: unknown): block is ToolUseBlock {
  return hasType(block, 'tool_use');
}

function hasType(block: unknown, type: string): boolean {
  return typeof block === 'object' && block !== null && (block as { type?: unknown }).type === type;
}
