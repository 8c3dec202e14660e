/**
 * The strings that replace offloaded content, how they are recognised, and the optional
 * preview that may follow them.
 */
import { findHeadEnd, isLowSurrogate } from '../text/text.js';

/** Start of a batch offload reference. */
export const BATCH_REFERENCE_PREFIX = '[Content offloaded to: ';
/** Start of a direct offload reference. */
export const DIRECT_REFERENCE_PREFIX = '[Tool result offloaded to file: ';

/** How many characters of the offloaded content follow the reference (a preview). */
export interface ResolvedPreview {
  /** Characters from the start of the content. */
  headChars: number;
  /** Characters from the end of the content. */
  tailChars: number;
}

const PREVIEW_START = '\nPreview (';
const WHOLE_PREVIEW_HEADER = /^\nPreview \(all (\d+) chars\):\n/;
const CUT_PREVIEW_HEADER = /^\nPreview \(first (\d+) and last (\d+) of (\d+) chars\):\n/;
/** Longest preview header {@link buildPreview} writes, with room for three 16-digit figures. */
const MAX_PREVIEW_HEADER_CHARS = 100;

/**
 * Whether `rest` is exactly a preview {@link buildPreview} wrote: its header, then text whose
 * lengths agree with the figures the header gives. Anything else (a reference line followed by
 * other text) is not ours.
 */
function isPackagePreview(rest: string): boolean {
  if (!rest.startsWith(PREVIEW_START)) return false;
  const header = rest.slice(0, MAX_PREVIEW_HEADER_CHARS);
  const whole = WHOLE_PREVIEW_HEADER.exec(header);
  if (whole !== null) return rest.length - whole[0].length === Number(whole[1]);
  const cut = CUT_PREVIEW_HEADER.exec(header);
  if (cut === null) return false;
  const [headChars, tailChars, totalChars] = [Number(cut[1]), Number(cut[2]), Number(cut[3])];
  const omitted = totalChars - headChars - tailChars;
  if (omitted <= 0) return false;
  let position = cut[0].length;
  if (headChars > 0) {
    position += headChars;
    if (rest[position] !== '\n') return false;
    position += 1;
  }
  const marker = `[... ${omitted} chars omitted ...]`;
  if (!rest.startsWith(marker, position)) return false;
  position += marker.length;
  if (tailChars > 0) {
    if (rest[position] !== '\n') return false;
    position += 1 + tailChars;
  }
  return position === rest.length;
}

/** Start of the line that follows the reference of a result that printed an error: the error line, so the model still sees what failed. */
const ERROR_LINE_START = '\nError line: ';
/** Characters of an error line kept after a reference (more are cut, with {@link ERROR_LINE_CUT_MARK}). */
export const MAX_REFERENCE_ERROR_LINE_CHARS = 240;
const ERROR_LINE_CUT_MARK = ' [...]';

/** The length of the error line {@link appendErrorLine} wrote at the start of `rest`, or 0 when `rest` does not start with one. */
function measureErrorLine(rest: string): number {
  if (!rest.startsWith(ERROR_LINE_START)) return 0;
  const end = rest.indexOf('\n', ERROR_LINE_START.length);
  const length = end === -1 ? rest.length : end;
  return length - ERROR_LINE_START.length <= MAX_REFERENCE_ERROR_LINE_CHARS + ERROR_LINE_CUT_MARK.length ? length : 0;
}

/** Longest paging line {@link buildPagingLine} writes, with room for two 16-digit figures. */
const MAX_PAGING_LINE_CHARS = 160;
/** The line the context manager writes before the preview of a result it cut: how to read the whole in pages. */
const PAGING_LINE =
  /^\nRead in pages \(\d+ lines?, about \d+ lines? a page\): pass an offset and a limit, or search it\.(?=\n)/;

/**
 * A reference is exactly one line, `[Content offloaded to: X]` or `[Tool result offloaded to
 * file: X]`, optionally followed by this package's error line, then by its own preview (a cut
 * one may follow the line saying how to read the whole in pages). Text that merely starts with
 * a reference is ordinary content.
 */
function isReferenceText(text: string): boolean {
  if (!text.startsWith(BATCH_REFERENCE_PREFIX) && !text.startsWith(DIRECT_REFERENCE_PREFIX)) return false;
  const lineEnd = text.indexOf('\n');
  if (lineEnd === -1) return text.endsWith(']');
  if (text.charCodeAt(lineEnd - 1) !== 0x5d /* ] */) return false;
  const rest = text.slice(lineEnd);
  const errorLine = measureErrorLine(rest);
  if (errorLine > 0 && errorLine === rest.length) return true;
  const afterError = rest.slice(errorLine);
  const paging = PAGING_LINE.exec(afterError.slice(0, MAX_PAGING_LINE_CHARS))?.[0].length ?? 0;
  return isPackagePreview(afterError.slice(paging));
}

/** Lines of `text`: its line breaks, plus one for a last line without one. */
function countLines(text: string): number {
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.endsWith('\n') ? lines : lines + 1;
}

/**
 * The line that says how to read a cut result in pages: its lines in all, and about how many
 * make a page of `pageChars` characters (at least one); empty when a page would hold every line
 * (a result of one long line is not read by lines). A pure function of the content and the page
 * size, so a result cut again gets the same line.
 */
export function buildPagingLine(content: string, pageChars: number): string {
  const lines = countLines(content);
  const perPage = Math.max(1, Math.floor((lines * pageChars) / Math.max(1, content.length)));
  if (perPage >= lines) return '';
  const plural = (count: number): string => `${count} line${count === 1 ? '' : 's'}`;
  return `\nRead in pages (${plural(lines)}, about ${plural(perPage)} a page): pass an offset and a limit, or search it.`;
}

/**
 * `reference` followed by the line of the offloaded content that says what went wrong
 * (`Error line: AssertionError: ...`, cut to {@link MAX_REFERENCE_ERROR_LINE_CHARS}), or
 * `reference` itself when there is none: a failing run that ages out of the context still says
 * how it failed, without a read-back.
 */
export function appendErrorLine(reference: string, line: string | undefined): string {
  if (line === undefined || line === '') return reference;
  const flat = line.replace(/[\r\n]+/g, ' ');
  const kept =
    flat.length <= MAX_REFERENCE_ERROR_LINE_CHARS
      ? flat
      : flat.slice(0, findHeadEnd(flat, MAX_REFERENCE_ERROR_LINE_CHARS)) + ERROR_LINE_CUT_MARK;
  return `${reference}${ERROR_LINE_START}${kept}`;
}

/** The error line {@link appendErrorLine} put after the reference in `text` (a reference's text), else `undefined`. */
export function readReferenceErrorLine(text: string): string | undefined {
  const lineEnd = text.indexOf('\n');
  if (lineEnd === -1) return undefined;
  const length = measureErrorLine(text.slice(lineEnd));
  return length === 0 ? undefined : text.slice(lineEnd + ERROR_LINE_START.length, lineEnd + length);
}

/**
 * Whether a `tool_result`'s content is an offload reference of either mode: its whole text is
 * one reference line (`[Content offloaded to: ...]` or `[Tool result offloaded to file: ...]`),
 * optionally followed by the preview this package writes. Content that is a single text block
 * holding such text counts too: some frameworks wrap every tool result in a text block, and a
 * reference must never be offloaded again, whatever its length. Content that only starts with a
 * reference (a tool that printed one, then more) is ordinary content.
 */
export function isOffloadReference(content: unknown): boolean {
  if (typeof content === 'string') return isReferenceText(content);
  if (!Array.isArray(content) || content.length !== 1) return false;
  const block: unknown = content[0];
  if (typeof block !== 'object' || block === null) return false;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' && isReferenceText(text);
}

/** `[Content offloaded to: {path}]`, the reference a batch offload leaves. */
export function buildBatchReference(path: string): string {
  return `${BATCH_REFERENCE_PREFIX}${path}]`;
}

/** `[Tool result offloaded to file: {path}]`, the reference a direct offload leaves. */
export function buildDirectReference(path: string): string {
  return `${DIRECT_REFERENCE_PREFIX}${path}]`;
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

/**
 * The reference, followed by the preview when one is asked for. With `pageChars`, a preview that
 * leaves part of the content out is preceded by the line saying how to read it in pages of
 * about that many characters ({@link buildPagingLine}).
 */
export function appendPreview(
  reference: string,
  content: string,
  preview: ResolvedPreview | null,
  pageChars?: number,
): string {
  if (preview === null) return reference;
  const shown = buildPreview(content, preview);
  const cut = pageChars !== undefined && !shown.startsWith('\nPreview (all ');
  return cut ? reference + buildPagingLine(content, pageChars) + shown : reference + shown;
}
