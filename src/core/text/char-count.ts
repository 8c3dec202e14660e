/**
 * Character counts of the offload threshold and the ratio gate, in UTF-16 code units as
 * `String.prototype.length` counts them.
 */
import {
  isTextBlock,
  isThinkingBlock,
  isToolResultBlock,
  isToolUseBlock,
  type ContentBlock,
  type Message,
} from '../types.js';

/**
 * Size of a `tool_result`'s content: a string's `.length`; an array's
 * `JSON.stringify(content).length`, less the inline data of its media blocks (an image's or a
 * document's base64 `source.data`). Media count 0, as they do outside a result: their data is
 * not text the model reads (a screenshot of 200,000 base64 characters is a thousand-odd tokens),
 * and sizing a result by it would cut or offload a screenshot as if it were a huge text. Missing
 * content counts 0.
 */
export function countToolResultChars(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (content === undefined) return 0;
  return (JSON.stringify(content) ?? '').length - countMediaDataChars(content);
}

/** Characters of the base64 `source.data` of the media blocks of a result's content array. */
function countMediaDataChars(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const { type, source } = block as { type?: unknown; source?: unknown };
    if (type !== 'image' && type !== 'document') continue;
    const data = typeof source === 'object' && source !== null ? (source as { data?: unknown }).data : undefined;
    // the data as JSON.stringify wrote it: escapes (none in base64) counted as written
    if (typeof data === 'string') chars += (JSON.stringify(data) ?? '').length - 2;
  }
  return chars;
}

/**
 * What one block contributes to the ratio gate's `totalChars`:
 * `text` → `text.length`; `tool_use` → `JSON.stringify(input).length`; `tool_result` → as
 * {@link countToolResultChars}; `thinking` → `thinking.length`; any other block → 0.
 */
export function countBlockChars(block: ContentBlock): number {
  if (isTextBlock(block)) return typeof block.text === 'string' ? block.text.length : 0;
  if (isToolUseBlock(block)) return block.input === undefined ? 0 : (JSON.stringify(block.input) ?? '').length;
  if (isToolResultBlock(block)) return countToolResultChars(block.content);
  if (isThinkingBlock(block)) return typeof block.thinking === 'string' ? block.thinking.length : 0;
  return 0;
}

/** What one message contributes to `totalChars`: string content → `.length`, else the sum of its blocks. */
export function countMessageChars(message: Message): number {
  if (typeof message.content === 'string') return message.content.length;
  let total = 0;
  for (const block of message.content) total += countBlockChars(block);
  return total;
}
