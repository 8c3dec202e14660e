/**
 * The offline, deterministic summarizer: what compaction uses when no summarizer, no LLM
 * client and no API key is configured. It writes the summary's five sections from facts
 * read off the messages themselves (`conversation-facts.ts`, shared with the compaction
 * ledger) — no model, no network, same output for the same input.
 */
import { describeValue, InvalidOptionError } from '../../errors.js';
import type { Summarizer } from '../../ports.js';
import type { Message } from '../../types.js';
import { countWords, truncateToWords } from '../../text/words.js';
import { gatherFacts, type ConversationFacts, type ToolCall } from './conversation-facts.js';
import { firstLine } from './error-lines.js';
import {
  capWords,
  createErrorDescriber,
  createFailureReader,
  CUT_MARK,
  formatCode,
  nameCall,
} from './extractive-failures.js';
import { stripLedger, type CompactionSummarizerOptions, type LedgerError } from './ledger.js';
import { SUMMARY_SECTION_TITLES } from './summary-prompt.js';

/**
 * Creates the extractive summarizer: deterministic and offline. It fills the five sections of
 * the summary from the messages:
 *
 * - **Goals & Decisions**: the first user request, verbatim (trimmed), and the first line of
 *   each later one; what an earlier compaction's summary said there.
 * - **File Operations**: every path a tool read, wrote, edited or deleted, taken from the tool
 *   inputs (`path`, `file_path`, `filePath`, `notebook_path`, `paths`, ... and the
 *   `[Restored after compact]` messages), with the operations, `(failed)` when the call failed.
 * - **Tool Calls**: the number of calls and failures (`is_error` results), in all and per tool,
 *   and the most recent calls.
 * - **Task Status**: the latest user request, verbatim, and whether the assistant replied to
 *   it; the latest assistant statement, verbatim; the last tool call and its outcome.
 * - **Errors & Resolutions**: the error line of each failed tool result (its first error
 *   message, else its first line reporting a failure, else its first line), what the assistant
 *   said next and how the next call of the same tool went.
 *
 * The summary holds at most `maxWords` words (split on whitespace; each CJK character is a
 * word). When facts do not all fit, the most useful go first: the first and
 * latest requests, the latest statement and the last call, then errors and files (most recent
 * first), then the rest; long quotes are cut and marked `[…]`, omitted list items counted.
 *
 * Limits: it quotes, it does not understand. Decisions and their reasons are not recognised
 * (only requests and statements quoted), the next step is the one the latest statement names,
 * if any, and paths in shell commands (`cat src/a.ts`) are not found, only those in tool
 * inputs. An LLM summarizer writes a better summary; this one never fails and never leaves
 * the machine.
 *
 * @example
 * ```ts
 * const summary = await createExtractiveSummarizer().summarize(rest, { maxWords: 1200 });
 * ```
 */
export function createExtractiveSummarizer(): Summarizer {
  return {
    summarize(messages: readonly Message[], options: CompactionSummarizerOptions): Promise<string> {
      try {
        const { maxWords, signal, lastError } = options;
        if (typeof maxWords !== 'number' || !Number.isInteger(maxWords) || maxWords < 1) {
          throw new InvalidOptionError(`maxWords must be an integer >= 1, got ${describeValue(maxWords)}`);
        }
        signal?.throwIfAborted();
        return Promise.resolve(writeExtractiveSummary(messages, maxWords, lastError));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Facts read off the messages

interface FileRecord {
  path: string;
  /** In first-seen order; a set, since a path touched by many tools has many operations. */
  operations: Set<string>;
  lastMessageIndex: number;
}

interface Facts extends ConversationFacts {
  files: Map<string, FileRecord>;
}

function collectFacts(messages: readonly Message[]): Facts {
  const facts = gatherFacts(messages);
  const files = new Map<string, FileRecord>();
  for (const event of facts.fileEvents) {
    const label = event.failed ? `${event.operation} (failed)` : event.operation;
    const record = files.get(event.path) ?? {
      path: event.path,
      operations: new Set<string>(),
      lastMessageIndex: event.messageIndex,
    };
    record.operations.add(label);
    record.lastMessageIndex = Math.max(record.lastMessageIndex, event.messageIndex);
    files.set(event.path, record);
  }
  return { ...facts, files };
}

// ---------------------------------------------------------------------------------------------
// Items: one line (or quote) of the summary, with what decides whether it fits

interface Item {
  /** Index in SUMMARY_SECTION_TITLES. */
  section: number;
  /** Lower tiers are placed first. */
  tier: number;
  /** Within a tier, lower goes first. */
  priority: number;
  /** Position within its section when written. */
  order: number;
  text: string;
  /** When set, the item may be cut to any length of at least this many words. */
  minWords?: number;
  /** Counted in the section's "N more ... not shown" line when it does not fit. */
  listed?: boolean;
}

/** The last calls described one by one: the five before the last in Tool Calls, the last in Task Status. */
const RECENT_CALLS = 6;

const GOALS = 0;
const FILES = 1;
const TOOLS = 2;
const STATUS = 3;
const ERRORS = 4;

/** What the listed items of each section are, for `- (N more files not shown)`. */
const LIST_NOUNS = ['requests', 'files', 'tools', 'items', 'errors'] as const;
/** Words of `- (N more files not shown)`. */
const OMISSION_NOTE_WORDS = 5;
/** Below this many words for items, lists end without a "more ... not shown" line. */
const MIN_WORDS_FOR_OMISSION_NOTES = 100;

function writeExtractiveSummary(
  messages: readonly Message[],
  maxWords: number,
  lastError: LedgerError | undefined,
): string {
  const facts = collectFacts(messages);
  const items = collectItems(facts, maxWords, createFailureReader(lastError));
  const sections = fitItems(items, maxWords);
  const summary = sections.join('\n\n');
  // only a budget smaller than the five headings can get here
  return countWords(summary) <= maxWords ? summary : truncateToWords(summary, maxWords);
}

function collectItems(facts: Facts, maxWords: number, failureOf: (call: ToolCall) => string | undefined): Item[] {
  const items: Item[] = [];
  const share = (fraction: number, floor: number): number => Math.max(floor, Math.floor(maxWords * fraction));
  const { requests, statements, calls } = facts;

  // Goals & Decisions
  const first = requests[0];
  const latest = requests.at(-1);
  if (facts.earlierSummary !== undefined) {
    items.push(...carryEarlierSections(stripLedger(facts.earlierSummary), share));
  }
  if (first !== undefined) {
    const label = facts.earlierSummary === undefined ? 'First request:' : 'First request since the previous summary:';
    items.push({
      section: GOALS,
      tier: 0,
      priority: 0,
      order: 1,
      text: quoteItem(label, first.text, share(0.2, 20)),
      minWords: 5,
    });
  }
  requests.slice(1, -1).forEach((request, index, later) => {
    items.push({
      section: GOALS,
      tier: 2,
      priority: later.length - index, // most recent first
      order: 2 + index,
      text: `- Later request: ${capWords(firstLine(request.text), 30)}`,
      listed: true,
    });
  });

  // File Operations: all paths, the most recently touched kept first when space runs out
  [...facts.files.values()].forEach((file, index) => {
    items.push({
      section: FILES,
      tier: 1,
      priority: -file.lastMessageIndex,
      order: 1 + index,
      text: `- ${formatCode(file.path)}: ${[...file.operations].join(', ')}`,
      listed: true,
    });
  });

  // Tool Calls
  const failed = calls.filter((call) => failureOf(call) !== undefined);
  const lastFailed = failed.at(-1);
  if (calls.length > 0) {
    items.push({
      section: TOOLS,
      tier: 0,
      priority: 0,
      order: 1,
      text: `- ${plural(calls.length, 'tool call')}, ${failed.length} failed.`,
    });
  }
  // named with its input, unless a recent call below shows it whole
  if (lastFailed !== undefined && !calls.slice(-RECENT_CALLS).includes(lastFailed)) {
    const text = `- Last failed call: ${capWords(nameCall(lastFailed), 15)} → ${capWords(failureOf(lastFailed) ?? '', 30)}`;
    items.push({ section: TOOLS, tier: 0, priority: 1, order: 2, text, minWords: 5 });
  }
  const perTool = new Map<string, { calls: number; failures: number }>();
  for (const call of calls) {
    const stats = perTool.get(call.name) ?? { calls: 0, failures: 0 };
    stats.calls += 1;
    if (failureOf(call) !== undefined) stats.failures += 1;
    perTool.set(call.name, stats);
  }
  [...perTool.entries()]
    .sort(([nameA, a], [nameB, b]) => b.calls - a.calls || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0))
    .forEach(([name, stats], index) => {
      const failures = stats.failures > 0 ? `, ${stats.failures} failed` : '';
      items.push({
        section: TOOLS,
        tier: 2,
        priority: index,
        order: 3 + index,
        text: `- ${formatCode(name)}: ${plural(stats.calls, 'call')}${failures}`,
        listed: true,
      });
    });
  calls.slice(-RECENT_CALLS, -1).forEach((call, index, recent) => {
    items.push({
      section: TOOLS,
      tier: 3,
      priority: recent.length - index,
      order: 1000 + index,
      text: `- Recent call: ${capWords(describeCall(call, failureOf), 30)}`,
      minWords: 4,
    });
  });

  // Task Status
  if (latest !== undefined) {
    const replied =
      statements.some((statement) => statement.messageIndex > latest.messageIndex) ||
      calls.some((call) => call.messageIndex > latest.messageIndex);
    const label = replied ? 'Latest request:' : 'Latest request (no reply yet):';
    const text =
      latest === first ? `- ${label} the first request above.` : quoteItem(label, latest.text, share(0.2, 20));
    items.push({ section: STATUS, tier: 0, priority: 1, order: 1, text, minWords: 5 });
  }
  const statement = statements.at(-1);
  if (statement !== undefined) {
    items.push({
      section: STATUS,
      tier: 0,
      priority: 2,
      order: 2,
      text: quoteItem('Latest assistant statement:', statement.text, share(0.15, 20)),
      minWords: 5,
    });
  }
  const lastCall = calls.at(-1);
  if (lastCall !== undefined) {
    items.push({
      section: STATUS,
      tier: 0,
      priority: 3,
      order: 3,
      text: `- Last tool call: ${capWords(describeCall(lastCall, failureOf), 40)}`,
      minWords: 5,
    });
  }
  // the last error, unless the last call is the one that failed (said just above)
  if (lastFailed !== undefined && lastFailed !== lastCall) {
    const later = calls
      .slice(calls.indexOf(lastFailed) + 1)
      .some((call) => call.name === lastFailed.name && call.result !== undefined && failureOf(call) === undefined);
    const resolution = later ? ` A later ${formatCode(lastFailed.name)} call succeeded.` : '';
    const text = `- Last error, from ${capWords(nameCall(lastFailed), 15)}: ${capWords(failureOf(lastFailed) ?? '', 30)}${resolution}`;
    items.push({ section: STATUS, tier: 0, priority: 4, order: 4, text, minWords: 5 });
  }

  // Errors & Resolutions: every failed call, the most recent kept first
  const describeFailure = createErrorDescriber(facts, failureOf);
  failed.forEach((call, index) => {
    items.push({
      section: ERRORS,
      tier: 1,
      priority: failed.length - index,
      order: 1 + index,
      text: capWords(describeFailure(call), 60),
      minWords: 8,
      listed: true,
    });
  });
  return items;
}

/** Sections of an earlier summary (a previous compaction in Rest), carried under the same titles. */
function carryEarlierSections(summary: string, share: (fraction: number, floor: number) => number): Item[] {
  const bodies = new Map<number, string[]>();
  let section = GOALS; // text before any known heading belongs to the goals
  for (const line of summary.split('\n')) {
    const known = findHeadingSection(line);
    if (known !== -1) {
      section = known;
      continue;
    }
    if (line.trim() === '' || line.trim() === 'None.') continue;
    const lines = bodies.get(section);
    if (lines === undefined) bodies.set(section, [line]);
    else lines.push(line);
  }
  const settings: Record<number, { tier: number; fraction: number }> = {
    [GOALS]: { tier: 1, fraction: 0.25 },
    [FILES]: { tier: 2, fraction: 0.15 },
    [TOOLS]: { tier: 3, fraction: 0.1 },
    [STATUS]: { tier: 3, fraction: 0.1 },
    [ERRORS]: { tier: 3, fraction: 0.1 },
  };
  const items: Item[] = [];
  for (const [index, lines] of bodies) {
    const { tier, fraction } = settings[index] ?? { tier: 3, fraction: 0.1 };
    const body = lines.map((line) => `  ${line}`).join('\n');
    items.push({
      section: index,
      tier,
      priority: -1,
      order: 0,
      text: capWords(`- From the previous summary:\n${body}`, share(fraction, 20)),
      minWords: 10,
    });
  }
  return items;
}

const WHITESPACE = /\s/;
/** What `.` does not match in a regex without the `s` flag (`\n` cannot occur: lines are split on it). */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;
/** `\s*#*\s*$`, written so that its two runs of spaces cannot take turns at the same spaces. */
const HEADING_CLOSING = /^\s*(?:#+\s*)?$/;

/**
 * The section a Markdown heading line names (`## Task Status`, `# tool calls ##`), else -1.
 *
 * The same as matching `/^#{1,6}\s+(.+?)\s*#*\s*$/` and looking up the captured title, without
 * that regex's backtracking, which is cubic in a run of spaces inside the line (a 4,000-space
 * line took seconds). The title is looked up in everything after the `#`s: the spaces and `#`s
 * the regex leaves out of its capture are dropped by {@link normalizeTitle} anyway.
 */
function findHeadingSection(line: string): number {
  let hashes = 0;
  while (hashes < 7 && line[hashes] === '#') hashes += 1;
  if (hashes === 0 || hashes === 7) return -1;
  const rest = line.slice(hashes);
  return isHeadingTitle(rest) ? findSection(rest) : -1;
}

/**
 * Whether the text after a heading's `#`s matches `^\s+(.+?)\s*#*\s*$`: spaces, then a title
 * without line terminators (what `.` matches), then only spaces and `#`s. One pass: when the
 * text has a non-space, the title can start there and run to the first line terminator (if
 * any split matches, this one does); when it has none, any space after the first that is not a line
 * terminator makes a title.
 */
function isHeadingTitle(rest: string): boolean {
  let start = 0;
  while (start < rest.length && WHITESPACE.test(rest.charAt(start))) start += 1;
  if (start === 0) return false;
  if (start === rest.length) {
    for (let index = 1; index < rest.length; index += 1) if (!LINE_TERMINATOR.test(rest.charAt(index))) return true;
    return false;
  }
  let end = start;
  while (end < rest.length && !LINE_TERMINATOR.test(rest.charAt(end))) end += 1;
  // a line terminator ends the title: what follows it may hold only spaces and `#`s
  return end === rest.length || HEADING_CLOSING.test(rest.slice(end + 1));
}

function findSection(heading: string): number {
  const normalized = normalizeTitle(heading);
  return SUMMARY_SECTION_TITLES.findIndex((title) => normalizeTitle(title) === normalized);
}

function normalizeTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/\band\b/g, '&')
    .replace(/[^a-z&]/g, '');
}

function describeCall(call: ToolCall, failureOf: (call: ToolCall) => string | undefined): string {
  const failure = failureOf(call);
  const outcome = call.result === undefined ? 'no result yet' : failure !== undefined ? `failed: ${failure}` : 'ok';
  return `${formatCode(call.name)} ${truncateChars(stringifyInput(call.input), 200)} → ${outcome}`;
}

/** `- Label:` then the text as a Markdown quote, cut to `maxWords` words. */
function quoteItem(label: string, text: string, maxWords: number): string {
  const quoted = capWords(text, maxWords)
    .split('\n')
    .map((line) => (line.trim() === '' ? '  >' : `  > ${line}`))
    .join('\n');
  return `- ${label}\n${quoted}`;
}

// ---------------------------------------------------------------------------------------------
// Fitting the items into the budget

/**
 * Chooses the items that fit `maxWords`: tier by tier; within a tier, sections take turns
 * (the first item of each, then the second of each, ...) so one long list cannot starve the
 * others. Writes each section's chosen items in their display order.
 */
function fitItems(items: readonly Item[], maxWords: number): string[] {
  const headingWords = SUMMARY_SECTION_TITLES.reduce((total, title) => total + countWords(title), 0);
  // every section needs its heading, and "None." when nothing else fits
  let remaining = maxWords - headingWords - SUMMARY_SECTION_TITLES.length;
  // room for "- (N more files not shown)" under each list, when the budget is not tiny
  const noted = SUMMARY_SECTION_TITLES.map((_, section) =>
    items.some((item) => item.section === section && item.listed === true),
  );
  if (remaining >= MIN_WORDS_FOR_OMISSION_NOTES) {
    remaining -= noted.filter(Boolean).length * OMISSION_NOTE_WORDS;
  } else {
    noted.fill(false);
  }

  const ranks = new Map<Item, number>();
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const key = `${item.tier}:${item.section}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => a.priority - b.priority).forEach((item, rank) => ranks.set(item, rank));
  }
  const ranked = [...items].sort(
    (a, b) => a.tier - b.tier || (ranks.get(a) ?? 0) - (ranks.get(b) ?? 0) || a.section - b.section,
  );

  // chosen items by section, in the order they were chosen (which breaks ties of `order`)
  const chosen: Item[][] = SUMMARY_SECTION_TITLES.map(() => []);
  const omitted = SUMMARY_SECTION_TITLES.map(() => 0);
  for (const item of ranked) {
    const words = countWords(item.text);
    if (words <= remaining) {
      chosen[item.section]?.push(item);
      remaining -= words;
    } else if (item.minWords !== undefined && remaining >= item.minWords) {
      const text = truncateToWords(item.text, remaining) + CUT_MARK;
      chosen[item.section]?.push({ ...item, text });
      remaining -= countWords(text);
    } else if (item.listed === true) {
      omitted[item.section] = (omitted[item.section] ?? 0) + 1;
    }
  }
  return SUMMARY_SECTION_TITLES.map((title, section) => {
    const lines = (chosen[section] ?? []).sort((a, b) => a.order - b.order).map((item) => item.text);
    const count = omitted[section] ?? 0;
    if (noted[section] === true && count > 0)
      lines.push(`- (${count} more ${LIST_NOUNS[section] ?? 'items'} not shown)`);
    return `## ${title}\n${lines.length > 0 ? lines.join('\n') : 'None.'}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Small text helpers

/** The first `maxChars` characters of one line of `text`, marked `…` when cut; never splits a surrogate pair. */
function truncateChars(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (flat.length <= maxChars) return flat;
  let end = maxChars;
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${flat.slice(0, end)}…`;
}

function stringifyInput(input: unknown): string {
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '[unserializable input]';
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
