/**
 * The error in what a tool printed, whether or not the result was marked as an error: a shell
 * tool that runs a failing test suite often returns its output as an ordinary result. What
 * counts, strongest first:
 *
 * 1. an error message: `TypeError: ...`, `AssertionError: ...` (also after pytest's `E   `),
 *    `java.lang.IllegalStateException: ...`, the last line of a Python traceback, compiler
 *    lines (`error[E0308]: ...`, `error TS2345: ...`, `src/a.ts(3,5): error TS2345: ...`,
 *    `a.c:10:5: error: ...`), `fatal: ...`, `panic: ...`;
 * 2. a failing test summary: `FAIL tests/a.test.ts`, `FAILED tests/test_a.py::test_x`,
 *    `--- FAIL: TestX`, `not ok 3`, `Tests  2 failed | 40 passed`, `Found 3 errors`, `npm ERR!`;
 * 3. a non-zero exit status: `exit code: 1`, `exited with code 2`, `make: *** [all] Error 2`.
 *
 * What does not count: prose that mentions errors (`Error handling is described below`), zero
 * counts (`0 failed`, `exit code: 0`). Pure.
 */

/** Characters of a line tested: a minified megabyte on one line is not searched through. */
const MAX_LINE_CHARS = 2000;

/**
 * `TypeError: ...`, `Error: ...`, `AssertionError` alone, `pkg.SomeException: ...`, `E   ValueError: ...`,
 * `Uncaught TypeError: ...`, `Exception in thread "main" ...`, `error: ...`, `error[E0308]: ...`,
 * `error TS2345: ...`, `fatal: ...`, `panic: ...`, `thread 'main' panicked at ...`.
 */
const ERROR_MESSAGE =
  /^(?:(?:E\s+|Uncaught\s+|Caused by:\s+)?(?:[A-Za-z_$][\w$]*\.)*[\w$]*(?:Error|Exception)(?::|$|\s*\[)|Exception in thread\b|(?:fatal|panic|error)(?:\[[A-Z]?\d+\]|\s+[A-Z]{1,4}\d+)?:|thread '[^']*' panicked at\b)/;
/** A compiler's located error: `a.c:10:5: error: ...`, `src/a.ts:3:5 - error TS2345: ...`, `src/a.ts(3,5): error TS2345: ...`. */
const LOCATED_ERROR =
  /^\S[^\n]*?(?::\d+(?::\d+)?:?|\(\d+,\d+\):?)\s+(?:-\s+)?(?:fatal\s+)?error(?:\s+[A-Z]{1,4}\d+)?(?::|\[)/;
/** A failing test summary, or a line marking a failure. */
const FAILURE_SUMMARY =
  /^(?:(?:---\s+)?FAIL(?:ED|URE)?\b|ERROR\b|not ok\b|npm ERR!|[✗×✖✘]\s)|(?:^|[^\w.])[1-9]\d*\s+(?:failed|failing|failures?|errors?)\b/;
/** An exit status, its number captured (zero is no failure). */
const EXIT_STATUS =
  /\bexit(?:ed)?(?:\s+with)?\s+(?:code|status)\s*:?\s*(-?\d+)|^make(?:\[\d+\])?: \*\*\* .*\bError (\d+)/i;
/** What every line of the kinds above holds: the others are passed over at once. */
const MAY_REPORT_ERROR = /err|exc|fail|exit|panic|fatal|not ok|[✗×✖✘]/i;
/** Python's traceback header: the first line after it that is not indented is the exception. */
const TRACEBACK_HEADER = 'Traceback (most recent call last):';

/** How strongly a line says what went wrong: lower is stronger. */
const Strength = { Message: 0, Summary: 1, ExitStatus: 2, None: 3 } as const;
type Strength = (typeof Strength)[keyof typeof Strength];

function rateLine(line: string): Strength {
  if (!MAY_REPORT_ERROR.test(line)) return Strength.None;
  const exit = EXIT_STATUS.exec(line);
  // `Error: Exit code 1` says no more than the status it wraps
  if (exit !== null) return Number(exit[1] ?? exit[2]) !== 0 ? Strength.ExitStatus : Strength.None;
  if (ERROR_MESSAGE.test(line) || LOCATED_ERROR.test(line)) return Strength.Message;
  return FAILURE_SUMMARY.test(line) ? Strength.Summary : Strength.None;
}

/**
 * The line of `text` that best says what went wrong: its first error message, else its first
 * failing test summary, else its first non-zero exit status (trimmed), else `undefined`. One
 * pass over the text, which stops at the first error message; lines are not split into an
 * array, so a 10 MB output costs its scan and nothing more.
 */
export function findErrorLine(text: string): string | undefined {
  let best: string | undefined;
  let bestStrength: Strength = Strength.None;
  let afterTraceback = false;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const raw = text.slice(start, Math.min(end, start + MAX_LINE_CHARS));
    start = end + 1;
    const line = raw.trim();
    if (line === '') continue;
    if (line === TRACEBACK_HEADER) {
      afterTraceback = true;
      continue;
    }
    // a traceback's frames are indented; its last line names the exception, whatever its name
    if (afterTraceback && !/^\s/.test(raw)) return line;
    const strength = rateLine(line);
    if (strength === Strength.Message) return line;
    if (strength < bestStrength) {
      best = line;
      bestStrength = strength;
    }
  }
  return best;
}

/** The first line of `text` that is not blank, trimmed; `''` when there is none. */
export function firstLine(text: string): string {
  const match = /\S[^\n]*/.exec(text);
  return match === null ? '' : match[0].trim();
}

/**
 * The line of a failed tool result that best says what went wrong ({@link findErrorLine}),
 * else its first line: tool output often opens with a banner (`RUN v3.2.4 /repo`) that says
 * nothing, but a failure with no error line still has something to show. A failed command's
 * result that opens with its exit status alone (`Exit code 1`, then what the command printed,
 * as Claude Code's shell tool returns it) gives the line after it when nothing says more than
 * the status: `rm: cannot remove 'x':
 * Permission denied` says what went wrong, the status only that something did.
 */
/** A line that is an exit status and nothing else, as a failed command's result opens with it (`Exit code 1`). */
const EXIT_CODE_HEADER = /^Exit code -?\d+$/;

export function errorLine(text: string): string {
  const found = findErrorLine(text);
  if (found === undefined) return firstLine(text);
  if (found !== firstLine(text) || !EXIT_CODE_HEADER.test(found)) return found;
  const next = firstLine(text.slice(text.indexOf(found) + found.length));
  return next === '' ? found : next;
}

/**
 * Tools whose output is content they fetched (a file, search matches, a web page), not what
 * they did: an error line in it is someone else's, so an unmarked result of theirs is never
 * taken for a failure.
 */
const CONTENT_TOOL = /read|view|open|grep|search|glob|list|fetch|web|browse|(?:^|[^a-z])(?:cat|ls|find|rg)(?:[^a-z]|$)/;

/** Whether an unmarked result of `toolName` (`undefined`: its call is not in the messages) may hold an error it hit. */
export function printsItsOwnErrors(toolName: string | undefined): boolean {
  return toolName === undefined || !CONTENT_TOOL.test(toolName.toLowerCase());
}

/** Characters of a result's start, and of its end, that {@link findPrintedErrorLine} reads: where a tool prints its first error and its summary. */
export const PRINTED_ERROR_END_CHARS = 16_384;

/** The first and last `chars` characters of `text`, without the lines the cut splits; `text` itself when it is not longer than both. */
function keepEnds(text: string, chars: number): string {
  if (text.length <= 2 * chars) return text;
  const head = text.slice(0, chars);
  const tail = text.slice(text.length - chars);
  const headEnd = head.lastIndexOf('\n');
  const tailStart = tail.indexOf('\n');
  return `${headEnd === -1 ? '' : head.slice(0, headEnd)}\n${tailStart === -1 ? '' : tail.slice(tailStart + 1)}`;
}

/**
 * The line of a tool result that says what went wrong, when it reports a failure: for a result
 * marked as an error, {@link errorLine}; for an unmarked one of a tool that prints its own errors
 * ({@link printsItsOwnErrors}), {@link findErrorLine}; else `undefined`. The rule the last error
 * is found by, for one result, read in its first and last {@link PRINTED_ERROR_END_CHARS}
 * characters: a 10 MB log costs two slices, not a scan of its middle.
 */
export function findPrintedErrorLine(text: string, isError: boolean, toolName: string | undefined): string | undefined {
  if (!isError && !printsItsOwnErrors(toolName)) return undefined;
  const ends = keepEnds(text, PRINTED_ERROR_END_CHARS);
  return isError ? errorLine(ends) || undefined : findErrorLine(ends);
}
