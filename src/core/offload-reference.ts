/**
 * The strings that replace offloaded content, how they are recognised, and the optional
 * preview that may follow them (DESIGN §3, §4, §8).
 */

/** Start of a batch offload reference (spec 01 F-003). */
export const BATCH_REFERENCE_PREFIX = '[Content offloaded to: ';
/** Start of a direct offload reference (spec 04 F-001). */
export const DIRECT_REFERENCE_PREFIX = '[Tool result offloaded to file: ';

/** How many characters of the offloaded content follow the reference (a preview). */
export interface ResolvedPreview {
  /** Characters from the start of the content. */
  headChars: number;
  /** Characters from the end of the content. */
  tailChars: number;
}

function isReferenceText(text: string): boolean {
  if (!text.startsWith(BATCH_REFERENCE_PREFIX) && !text.startsWith(DIRECT_REFERENCE_PREFIX)) return false;
  const lineEnd = text.indexOf('\n');
  const firstLine = lineEnd === -1 ? text : text.slice(0, lineEnd);
  return firstLine.endsWith(']');
}

/**
 * Whether a `tool_result`'s content already is an offload reference of either mode: text that
 * starts with `[Content offloaded to: ` or `[Tool result offloaded to file: ` and whose first
 * line ends with `]` (a preview may follow). Content that is a single text block holding such
 * text counts too: some frameworks wrap every tool result in a text block, and a reference
 * must never be offloaded again, whatever its length.
 */
export function isOffloadReference(content: unknown): boolean {
  if (typeof content === 'string') return isReferenceText(content);
  if (!Array.isArray(content) || content.length !== 1) return false;
  const block: unknown = content[0];
  if (typeof block !== 'object' || block === null) return false;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' && isReferenceText(text);
}

/** `[Content offloaded to: {path}]`, the batch reference of spec 01 F-003. */
export function buildBatchReference(path: string): string {
  return `${BATCH_REFERENCE_PREFIX}${path}]`;
}

/** `[Tool result offloaded to file: {path}]`, the direct reference of spec 04 F-001. */
export function buildDirectReference(path: string): string {
  return `${DIRECT_REFERENCE_PREFIX}${path}]`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** End index of a head of at most `chars` code units that does not split a surrogate pair. */
function findHeadEnd(text: string, chars: number): number {
  const end = Math.min(chars, text.length);
  return end > 0 && end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** Start index of a tail of at most `chars` code units that does not split a surrogate pair. */
function findTailStart(text: string, chars: number, headEnd: number): number {
  const start = Math.max(text.length - chars, headEnd);
  return start > headEnd && start < text.length && isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start;
}

/**
 * The preview that follows a reference: the first `headChars` and last `tailChars` of
 * `content`, cut so that no surrogate pair is split (no U+FFFD is ever written), with a line
 * saying how much was left out. When head and tail cover everything, the whole content
 * follows.
 */
export function buildPreview(content: string, preview: ResolvedPreview): string {
  const headEnd = findHeadEnd(content, preview.headChars);
  const tailStart = preview.tailChars === 0 ? content.length : findTailStart(content, preview.tailChars, headEnd);
  const omitted = tailStart - headEnd;
  if (omitted === 0) return `\nPreview (all ${content.length} chars):\n${content}`;
  const head = content.slice(0, headEnd);
  const tail = content.slice(tailStart);
  const parts = [`\nPreview (first ${headEnd} and last ${content.length - tailStart} of ${content.length} chars):`];
  if (head !== '') parts.push(head);
  parts.push(`[... ${omitted} chars omitted ...]`);
  if (tail !== '') parts.push(tail);
  return parts.join('\n');
}

/** The reference, followed by the preview when one is asked for. */
export function appendPreview(reference: string, content: string, preview: ResolvedPreview | null): string {
  return preview === null ? reference : reference + buildPreview(content, preview);
}
