/**
 * The read tool's `pattern`: text a model wrote, compiled by a linear-time engine (RE2's
 * syntax, see {@link CompilePattern}) so that no pattern, however it is written, can make a
 * search take longer than reading the lines it searches. The engine is a port: the package
 * passes RE2's JavaScript port (`src/infrastructure/re2-pattern.ts`).
 */
import { describeValue } from '../errors.js';
import { groupDigits } from '../text/figures.js';
import { findHeadEnd } from '../text/text.js';

/**
 * Longest part of one line a search looks at, in characters (UTF-16 code units): a longer line
 * (a tool result written as one line of JSON) is searched in its first this-many characters
 * only, and the answer says so. Searching is linear in the line's length; this bounds the
 * work, and the memory, one line can cost.
 */
export const MAX_SEARCHED_LINE_CHARS = 1_000_000;

/**
 * Longest `pattern` compiled, in characters. Compiling takes time that grows with the pattern,
 * beyond linear (a pattern of 2,000,000 characters took 2.5 to 7.7 s, the event loop held all
 * the while); one of 1,000 takes milliseconds, and a model's search is a few dozen.
 */
const MAX_PATTERN_CHARS = 1_000;

/** Flags of `/source/flags` that change how a line matches. */
interface PatternFlags {
  /** `i`: letters match either case. */
  ignoreCase: boolean;
  /** `m`: `^` and `$` match at line breaks (a searched line has none, so this changes little). */
  multiline: boolean;
  /** `s`: `.` matches a line break too. */
  dotAll: boolean;
}

/** Where a match is in a line, in UTF-16 code units. */
interface PatternMatch {
  index: number;
  length: number;
}

/**
 * A compiled pattern. Both methods must take time linear in the line's length whatever the
 * pattern: it comes from a model.
 */
export interface LinePattern {
  /** Whether the pattern matches somewhere in `line`. */
  test(line: string): boolean;
  /** The leftmost match in `line`, or undefined. */
  find(line: string): PatternMatch | undefined;
}

/**
 * Compiles a pattern in RE2 syntax (JavaScript's, without backreferences or lookaround), or
 * throws an error whose message says why it cannot.
 */
export type CompilePattern = (source: string, flags: PatternFlags) => LinePattern;

/** A pattern ready to search with, and the text the model gave. */
export interface SearchPattern {
  text: string;
  compiled: LinePattern;
}

/** Characters of the pattern repeated in answers. */
const MAX_PATTERN_ECHO_CHARS = 60;

/**
 * `/source/flags`: the form models often write. `i`, `m` and `s` are kept; `g` and `y` are
 * dropped (each line is tested on its own), `d`, `u` and `v` change nothing here.
 */
const SLASHED_PATTERN = /^\/([\s\S]+)\/([dgimsuvy]*)$/;

const PATTERN_SYNTAX =
  'Patterns use RE2 syntax: a JavaScript regular expression without backreferences (\\1) or lookaround ((?=...), (?!...), (?<=...), (?<!...)), e.g. "error|warn", or "/timeout/i" for flags.';

/** The model's pattern compiled, or the message that tells it what is wrong. */
export function compileSearchPattern(text: string, compile: CompilePattern): SearchPattern | string {
  if (text.length > MAX_PATTERN_CHARS) {
    return `Invalid input: "pattern" must be at most ${groupDigits(MAX_PATTERN_CHARS)} characters, got one of ${groupDigits(text.length)}. Search for a shorter, distinctive part of the text.`;
  }
  const slashed = SLASHED_PATTERN.exec(text);
  const source = slashed === null ? text : slashed[1]!;
  const flags = slashed === null ? '' : slashed[2]!;
  try {
    const compiled = compile(source, {
      ignoreCase: flags.includes('i'),
      multiline: flags.includes('m'),
      dotAll: flags.includes('s'),
    });
    return { text, compiled };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `Invalid pattern ${describeValue(text)}: ${reason}. ${PATTERN_SYNTAX}`;
  }
}

/** The pattern as a regular expression literal (`/error|warn/`), cut to {@link MAX_PATTERN_ECHO_CHARS}. */
export function describePattern(pattern: string): string {
  const literal = SLASHED_PATTERN.test(pattern) ? pattern : `/${pattern}/`;
  return literal.length <= MAX_PATTERN_ECHO_CHARS
    ? literal
    : `${literal.slice(0, findHeadEnd(literal, MAX_PATTERN_ECHO_CHARS - 1))}…`;
}
