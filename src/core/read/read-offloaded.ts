/**
 * The rules of the read tool, `read_offloaded`: a reference becomes
 * a key of the store, or a refusal when this package did not write it (or another session
 * did); the value becomes numbered lines (`cat -n` style), a page at a time or the lines that
 * match a pattern, never more than `maxChars` characters, ending with how to go on.
 *
 * Every answer is text for the model: bad input, a refusal, a missing value or a failing
 * backend is a message, never an exception that would end the agent's loop. Values are read
 * by byte ranges, one chunk at a time, so the first page of a 10 MB value reads one chunk; a
 * later page scans forward counting lines, from the nearest position an earlier read of the
 * same value remembered ({@link LineIndex}).
 *
 * A reference becomes a key in reference-keys.ts; lines are scanned in line-scanner.ts; a
 * pattern is compiled in search-pattern.ts, by a linear-time engine passed in.
 *
 * The `read` folder: the read tool, `read_offloaded`.
 * - `read-offloaded.ts`: the tool's rules and answers (this file).
 * - `reference-keys.ts`: a reference given back by the model or a summary → the key it names.
 * - `line-scanner.ts`: numbered lines of a stored value, read by byte ranges.
 * - `search-pattern.ts`: the tool's `pattern`, compiled by a linear-time engine.
 */
import { describeError, describeValue } from '../errors.js';
import { formatQuantity, groupDigits } from '../text/figures.js';
import type { ContentStore } from '../ports.js';
import { READ_OFFLOADED_TOOL_NAME } from '../options/defaults.js';
import { extractReference, quoteReference, resolveKey } from './reference-keys.js';
import {
  callStore,
  scanLines,
  StoreFailure,
  ValueGone,
  type LineIndex,
  type ScannedLine,
  type ValueSource,
} from './line-scanner.js';
import {
  compileSearchPattern,
  describePattern,
  MAX_SEARCHED_LINE_CHARS,
  type CompilePattern,
  type LinePattern,
  type SearchPattern,
} from './search-pattern.js';
import { findHeadEnd, isHighSurrogate } from '../text/text.js';

export { extractReference } from './reference-keys.js';
export { createLineIndex } from './line-scanner.js';
export { MAX_SEARCHED_LINE_CHARS, type CompilePattern } from './search-pattern.js';

/** The read tool's name. Its own results are never offloaded: offload paths exclude it. */
export { READ_OFFLOADED_TOOL_NAME };
/** Longest answer of the read tool, in characters (UTF-16 code units). */
export const DEFAULT_READ_MAX_CHARS = 20_000;
/** Smallest `maxChars` accepted: room for a line, a footer and a message. */
export const MIN_READ_MAX_CHARS = 500;
/** Lines per page when the model gives no `limit` (`maxChars` usually ends a page first). */
export const DEFAULT_READ_LIMIT = 2000;
/** Lines shown before and after each line that matches a `pattern`. */
export const DEFAULT_READ_CONTEXT_LINES = 2;
/** Bytes asked of the store by the first range read of a call. */
export const DEFAULT_READ_CHUNK_BYTES = 256 * 1024;

/** What the model passes to the read tool. */
export interface ReadOffloadedInput {
  /** The reference: the whole `[Content offloaded to: ...]` line, or the path or URI inside it. */
  ref: string;
  /** First line to read, 1-based; with `pattern`, the first line searched. @default 1 */
  offset?: number | undefined;
  /** Most lines to return; with `pattern`, most matching lines. @default 2000 */
  limit?: number | undefined;
  /**
   * A regular expression in RE2 syntax (JavaScript's without backreferences or lookaround:
   * `error|warn`, or `/timeout/i` with flags): only matching lines, with context.
   */
  pattern?: string | undefined;
}

/** Settings of {@link readOffloaded}, already checked. */
export interface ResolvedReadOffloadedOptions {
  /** Longest answer, in characters; at least {@link MIN_READ_MAX_CHARS}. */
  maxChars: number;
  /** When set, only keys under `<sessionId>/` are read. */
  sessionId: string | undefined;
  /** Lines of context around each match. */
  contextLines: number;
  /** Bytes per range read. */
  chunkBytes: number;
  /** Line positions remembered between calls, or none. */
  lineIndex: LineIndex | undefined;
  /** The tool's name, as the footers tell the model to call it. */
  toolName: string;
  /** Compiles `pattern`: a linear-time engine, since the pattern comes from a model. */
  compilePattern: CompilePattern;
}

// ---- Input ----------------------------------------------------------------------------------

interface ReadRequest {
  /** The reference as the model gave it, without the `[... offloaded to: ]` wrapping. */
  ref: string;
  offset: number;
  limit: number;
  pattern: SearchPattern | undefined;
}

/** Beyond this, `limit` means "no limit": keeps every line number a safe integer. */
const MAX_LIMIT = 1_000_000_000;

function readWholeNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value)) return Number(value);
  return undefined;
}

/** The input as a request, or the message saying what is wrong with it. */
function parseInput(input: unknown, defaultLimit: number, compile: CompilePattern): ReadRequest | string {
  let fields = input;
  // some loops hand over the arguments as the model wrote them: a JSON text
  if (typeof fields === 'string') {
    try {
      fields = JSON.parse(fields) as unknown;
    } catch {
      fields = { ref: input };
    }
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return `Invalid input: expected an object { ref, offset?, limit?, pattern? }, got ${describeValue(input)}.`;
  }
  const { ref, offset, limit, pattern } = fields as Record<string, unknown>;
  if (typeof ref !== 'string' || ref.trim() === '') {
    return `Invalid input: "ref" must be the reference to read (the "[Content offloaded to: ...]" line, or the path or URI in it), got ${describeValue(ref)}.`;
  }
  const first = offset === undefined || offset === null ? 1 : readWholeNumber(offset);
  if (first === undefined || first < 0) {
    return `Invalid input: "offset" must be a whole number >= 1 (the first line to read), got ${describeValue(offset)}.`;
  }
  const count = limit === undefined || limit === null ? defaultLimit : readWholeNumber(limit);
  if (count === undefined || count < 1) {
    return `Invalid input: "limit" must be a whole number >= 1 (how many lines), got ${describeValue(limit)}.`;
  }
  let compiled: ReadRequest['pattern'];
  if (pattern !== undefined && pattern !== null && pattern !== '') {
    if (typeof pattern !== 'string') {
      return `Invalid input: "pattern" must be a string (a regular expression in RE2 syntax), got ${describeValue(pattern)}.`;
    }
    const search = compileSearchPattern(pattern, compile);
    if (typeof search === 'string') return search;
    compiled = search;
  }
  // offset 0 is read as "from the start": models often count from 0
  return {
    ref: extractReference(ref),
    offset: Math.max(first, 1),
    limit: Math.min(count, MAX_LIMIT),
    pattern: compiled,
  };
}

// ---- Answers --------------------------------------------------------------------------------

/** `cat -n`: the number right-aligned in 6 columns. */
function formatLineNumber(line: number): string {
  return String(line).padStart(6);
}

/** What follows a line cut to fit a page. */
const CUT_LINE_MARKER = ' [… line cut]';

/** How the footer tells the model to call again: the arguments as JSON when they are short enough. */
interface NextCall {
  /** The arguments with this offset, as the model should pass them. */
  format(offset: number): string;
}

function createNextCall(
  toolName: string,
  ref: string,
  pattern: string | undefined,
  maxChars: number,
  largestOffset: number,
): NextCall {
  const json = (offset: number): string =>
    `${toolName} with ${JSON.stringify(pattern === undefined ? { ref, offset } : { ref, pattern, offset })}`;
  // a reference or a pattern too long to repeat is named instead: the footer must stay small
  if (json(largestOffset).length <= Math.floor(maxChars / 5)) return { format: json };
  const same = pattern === undefined ? 'the same ref' : 'the same ref and pattern';
  return { format: (offset) => `${toolName} with ${same} and "offset": ${offset}` };
}

/**
 * The number of all nines with as many digits as `bound` (at least 99): no line number, count
 * or offset of a call whose figures stay within `bound` is written longer, so a footer built
 * with it (and it minus 1 or 2) is the longest the call can end with.
 */
function widestNumber(bound: number): number {
  return 10 ** Math.max(2, String(bound).length) - 1;
}

function describePage(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

interface PageFooter {
  first: number;
  last: number;
  kind: 'end' | 'more' | 'cut-more' | 'cut-last';
  /** Lines in all, for `end`. */
  total: number;
}

function formatPageFooter(footer: PageFooter, size: number, next: NextCall): string {
  switch (footer.kind) {
    case 'end':
      return `[${describePage(footer.first, footer.last)} of ${footer.total}; end of content]`;
    case 'more':
      return `[${describePage(footer.first, footer.last)} of a ${groupDigits(size)}-byte text; more follow: call ${next.format(footer.last + 1)} for the next page]`;
    case 'cut-more':
      return `[line ${footer.first} is too long for one page and was cut; call ${next.format(footer.first + 1)} for any lines after it, or use "pattern" to find text inside it]`;
    case 'cut-last':
      return `[line ${footer.first} is too long for one page and was cut; it is the last line: use "pattern" to find text inside it]`;
  }
}

/** `prefix` and as much of `text` as fits in `width` characters with the cut marker. */
function formatCutLine(prefix: string, text: string, width: number): string {
  const room = width - prefix.length - CUT_LINE_MARKER.length;
  return `${prefix}${text.slice(0, findHeadEnd(text, room))}${CUT_LINE_MARKER}`;
}

async function readPage(
  source: ValueSource,
  request: ReadRequest,
  options: ResolvedReadOffloadedOptions,
): Promise<string> {
  const { offset, limit } = request;
  const largest = widestNumber(offset + Math.min(limit, source.size + 1));
  const next = createNextCall(options.toolName, request.ref, undefined, options.maxChars, largest);
  const kinds: Array<PageFooter['kind']> = ['end', 'more', 'cut-more', 'cut-last'];
  // room for the longest footer this page can end with: a range of lines, figures of the most digits
  const reserve =
    1 +
    Math.max(
      ...kinds.map(
        (kind) =>
          formatPageFooter({ first: largest - 2, last: largest - 1, kind, total: largest }, source.size, next).length,
      ),
    );
  const budget = options.maxChars - reserve;

  const shown: string[] = [];
  let used = 0;
  let last = 0;
  let lineCut = false;
  let refused = false;
  const outcome = await scanLines(source, offset, options.maxChars, (line) => {
    const prefix = `${formatLineNumber(line.number)}\t`;
    const added = prefix.length + line.text.length + (shown.length > 0 ? 1 : 0);
    if (!line.cut && used + added <= budget) {
      shown.push(prefix + line.text);
      used += added;
      last = line.number;
      return shown.length < limit;
    }
    if (shown.length === 0) {
      shown.push(formatCutLine(prefix, line.text, budget));
      last = line.number;
      lineCut = true;
      return false;
    }
    refused = true;
    return false;
  });

  if (shown.length === 0) {
    if (outcome.lineCount === 0)
      return fitMessage(`${quoteReference(request.ref)} is empty (0 lines).`, options.maxChars);
    return fitMessage(
      `Offset ${offset} is past the end: ${quoteReference(request.ref)} has ${formatQuantity(outcome.lineCount, 'line')}. Call ${next.format(1)} to read from the start.`,
      options.maxChars,
    );
  }
  let kind: PageFooter['kind'];
  if (lineCut) kind = outcome.ended && !refused ? 'cut-last' : 'cut-more';
  else kind = refused || !outcome.ended ? 'more' : 'end';
  const footer = formatPageFooter({ first: offset, last, kind, total: last }, source.size, next);
  return `${shown.join('\n')}\n${footer}`;
}

// ---- Pattern search ---------------------------------------------------------------------------

/** Longest line a search shows (a longer match is shown around its match). */
const MAX_SEARCH_LINE_CHARS = 500;
/** Shortest line a search cuts to, whatever `maxChars`. */
const MIN_SEARCH_LINE_CHARS = 100;

/** `text` cut to `width` characters, `…` marking the cut. */
function clipLine(text: string, width: number): string {
  if (text.length <= width) return text;
  return `${text.slice(0, findHeadEnd(text, width - 1))}…`;
}

/** Start index of `text` moved off a low surrogate, so a window never starts mid-pair. */
function windowStart(text: string, index: number): number {
  return index > 0 && index < text.length && isHighSurrogate(text.charCodeAt(index - 1)) ? index + 1 : index;
}

/**
 * A matching line in at most `width` characters: whole when it fits, else a window around its
 * first match (`…before MATCH after… [char 12,345/9,876,543]`, `/over 1,000,000` for a line
 * searched in its first {@link MAX_SEARCHED_LINE_CHARS} only), so a match deep in a huge line
 * (minified JSON) is still seen.
 */
function formatMatchText(line: ScannedLine, pattern: LinePattern, width: number): string {
  const text = line.text;
  if (text.length <= width) return text;
  if (width < 3) return text.slice(0, findHeadEnd(text, width));
  const match = pattern.find(text);
  const index = match?.index ?? 0;
  const suffix = ` [char ${groupDigits(index + 1)}/${line.cut ? 'over ' : ''}${groupDigits(text.length)}]`;
  const withSuffix = width - suffix.length - 2 >= 20;
  const room = width - 2 - (withSuffix ? suffix.length : 0);
  const matchChars = Math.min(match?.length ?? 0, Math.floor(room / 2));
  let start = Math.max(0, index - Math.floor((room - matchChars) / 3));
  start = windowStart(text, Math.max(0, Math.min(start, text.length - room)));
  const end = start + findHeadEnd(text.slice(start, start + room + 1), room);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length || line.cut ? '…' : ''}${withSuffix ? suffix : ''}`;
}

/** `; 2 lines longer than 1,000,000 characters searched in their first 1,000,000 only`, or nothing. */
function describeLongLines(count: number): string {
  if (count === 0) return '';
  const cap = groupDigits(MAX_SEARCHED_LINE_CHARS);
  return `; ${formatQuantity(count, 'line')} longer than ${cap} characters searched in ${count === 1 ? 'its' : 'their'} first ${cap} only`;
}

async function searchLines(
  source: ValueSource,
  request: ReadRequest,
  options: ResolvedReadOffloadedOptions,
): Promise<string> {
  const pattern = request.pattern!;
  const { offset, limit } = request;
  const contextLines = options.contextLines;
  const largest = widestNumber(offset + source.size + 1);
  const next = createNextCall(options.toolName, request.ref, pattern.text, options.maxChars, largest);
  const moreFooter = (matches: number, first: number, last: number, resume: number, longLines: number): string =>
    `[${matches} matching line${matches === 1 ? '' : 's'} shown (${describePage(first, last)})${describeLongLines(longLines)}; more may match: call ${next.format(resume)} to search on]`;
  const endFooter = (matches: number, total: number, longLines: number): string =>
    `[${matches} matching line${matches === 1 ? '' : 's'}; searched ${describePage(offset, total)} of ${total}${describeLongLines(longLines)}; end of content]`;
  // a line can pass the cap only in a value of more bytes than the cap's characters
  const mostLongLines = source.size > MAX_SEARCHED_LINE_CHARS ? largest : 0;
  const reserve =
    1 +
    Math.max(
      moreFooter(largest, largest - 2, largest - 1, largest, mostLongLines).length,
      endFooter(largest, largest, mostLongLines).length,
    );
  const header = `Lines matching ${describePattern(pattern.text)}${offset > 1 ? ` from line ${offset}` : ''} (":" marks a match, "-" context):`;
  const budget = options.maxChars - reserve;
  const lineWidth = Math.min(
    MAX_SEARCH_LINE_CHARS,
    Math.max(MIN_SEARCH_LINE_CHARS, Math.floor((budget - header.length) / (2 * contextLines + 1)) - 10),
  );

  const output = [header];
  let used = header.length;
  const before: ScannedLine[] = [];
  let afterLeft = 0;
  let lastShown = 0;
  let matches = 0;
  let firstMatch = 0;
  let lastMatch = 0;
  let resume: number | undefined;
  let resumeIsCertain = false;
  let longLines = 0;

  const formatContext = (line: ScannedLine): string =>
    `${formatLineNumber(line.number)}-\t${clipLine(line.text, lineWidth)}`;
  const fits = (lines: readonly string[]): boolean =>
    used + lines.reduce((total, text) => total + 1 + text.length, 0) <= budget;
  const add = (lines: readonly string[]): void => {
    for (const text of lines) {
      output.push(text);
      used += 1 + text.length;
    }
  };
  const stopAfter = (line: ScannedLine): boolean => {
    if (matches < limit || afterLeft > 0) return true;
    resume = line.number + 1;
    return false;
  };

  const outcome = await scanLines(source, offset, MAX_SEARCHED_LINE_CHARS, (line) => {
    if (line.cut) longLines += 1;
    if (pattern.compiled.test(line.text)) {
      if (matches >= limit) {
        resume = line.number;
        resumeIsCertain = true;
        return false;
      }
      const prefix = `${formatLineNumber(line.number)}:\t`;
      const unit: string[] = [];
      const firstContext = before[0]?.number ?? line.number;
      if (lastShown > 0 && firstContext > lastShown + 1) unit.push('--');
      unit.push(...before.map(formatContext), prefix + formatMatchText(line, pattern.compiled, lineWidth));
      if (!fits(unit)) {
        if (matches > 0) {
          resume = line.number;
          resumeIsCertain = true;
          return false;
        }
        // the first match of a page is always shown, cut to what is left
        unit.length = 0;
        unit.push(prefix + formatMatchText(line, pattern.compiled, Math.max(1, budget - used - 1 - prefix.length)));
      }
      add(unit);
      before.length = 0;
      matches += 1;
      if (firstMatch === 0) firstMatch = line.number;
      lastMatch = line.number;
      lastShown = line.number;
      afterLeft = contextLines;
      return stopAfter(line);
    }
    if (afterLeft > 0) {
      const text = formatContext(line);
      if (!fits([text])) {
        resume = line.number;
        resumeIsCertain = true;
        return false;
      }
      add([text]);
      lastShown = line.number;
      afterLeft -= 1;
      return stopAfter(line);
    }
    if (contextLines > 0) {
      before.push(line);
      if (before.length > contextLines) before.shift();
    }
    return true;
  });

  if (resume !== undefined && (resumeIsCertain || !outcome.ended)) {
    return `${output.join('\n')}\n${moreFooter(matches, firstMatch, lastMatch, resume, longLines)}`;
  }
  const total = resume !== undefined ? resume - 1 : outcome.lineCount;
  if (matches === 0) {
    if (total === 0) return fitMessage(`${quoteReference(request.ref)} is empty (0 lines).`, options.maxChars);
    if (offset > total) {
      return fitMessage(
        `Offset ${offset} is past the end: ${quoteReference(request.ref)} has ${formatQuantity(total, 'line')}. Call ${next.format(1)} to search from the start.`,
        options.maxChars,
      );
    }
    return fitMessage(
      `No line matches ${describePattern(pattern.text)} in ${describePage(offset, total)} of ${quoteReference(request.ref)} (${formatQuantity(total, 'line')} in all${describeLongLines(longLines)}).`,
      options.maxChars,
    );
  }
  return `${output.join('\n')}\n${endFooter(matches, total, longLines)}`;
}

// ---- The tool -------------------------------------------------------------------------------

/** Cuts a message (never a page: pages are built to fit) to `maxChars`. */
function fitMessage(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, findHeadEnd(text, maxChars - 1))}…`;
}

/**
 * Answers one call of the read tool: `input` is what the model sent (`{ ref, offset?, limit?,
 * pattern? }`, or that object as JSON text). Resolves to the text the model gets back, at most
 * `options.maxChars` characters:
 * - a page: lines `offset` to `offset + limit - 1` as `cat -n` prints them (number
 *   right-aligned in 6 columns, a tab, the line), as many as fit, then a footer: the end of
 *   the content, or the call that reads the next page. A line too long for a page is cut,
 *   with a marker;
 * - with `pattern`: the matching lines (`:` after the number) with `contextLines` lines of
 *   context (`-`), groups apart separated by `--`, from line `offset` on, at most `limit`
 *   matches, then a footer; a long matching line is shown around its first match;
 * - otherwise a message: invalid input, a refusal (a reference this store did not write, or
 *   another session's), no content at that reference, or the store's failure.
 * Rejects only on a bug, never for what the model or the store did.
 */
export async function readOffloaded(
  store: ContentStore,
  input: unknown,
  options: ResolvedReadOffloadedOptions,
): Promise<string> {
  const request = parseInput(input, DEFAULT_READ_LIMIT, options.compilePattern);
  if (typeof request === 'string') return fitMessage(request, options.maxChars);
  const resolved = await resolveKey(store, request.ref, options.sessionId);
  if ('refusal' in resolved) return fitMessage(resolved.refusal, options.maxChars);
  const missing = `No offloaded content at ${quoteReference(request.ref)}: nothing is stored under that reference (it may have been pruned).`;
  try {
    const entry = await callStore(() => store.stat(resolved.key));
    if (entry === undefined) return fitMessage(missing, options.maxChars);
    const source: ValueSource = {
      store,
      key: resolved.key,
      size: entry.size,
      chunkBytes: options.chunkBytes,
      checkpoints: options.lineIndex?.checkpointsOf(resolved.key, entry) ?? [],
    };
    return request.pattern === undefined
      ? await readPage(source, request, options)
      : await searchLines(source, request, options);
  } catch (error) {
    if (error instanceof ValueGone) return fitMessage(missing, options.maxChars);
    if (error instanceof StoreFailure) {
      return fitMessage(
        `Could not read ${quoteReference(request.ref)}: ${describeError(error.error)}`,
        options.maxChars,
      );
    }
    throw error;
  }
}
