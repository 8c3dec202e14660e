import { describe, expect, it } from 'vitest';
import {
  errorLine,
  findErrorLine,
  findPrintedErrorLine,
  printsItsOwnErrors,
  PRINTED_ERROR_END_CHARS,
} from '../../../../../src/core/compact/summary/error-lines.js';

describe('findErrorLine: the error in what a tool printed', () => {
  it.each([
    [
      'a JavaScript error',
      'RUN v3.2.4 /repo\n\nTypeError: Cannot read properties of undefined (reading "x")\n    at f (src/a.ts:3:5)',
      'TypeError: Cannot read properties of undefined (reading "x")',
    ],
    [
      "an assertion after pytest's E",
      '    def test_x():\n>       assert 1 == 2\nE       AssertionError: assert 1 == 2',
      'E       AssertionError: assert 1 == 2',
    ],
    [
      'a qualified exception',
      'Exception in thread "main" java.lang.IllegalStateException: closed',
      'Exception in thread "main" java.lang.IllegalStateException: closed',
    ],
    ['an error named alone', 'assert x\nAssertionError', 'AssertionError'],
    [
      "a bare Error:, indented in a script's output",
      'Testing VR=OB, value=256\n  Success: value type=int\n  Error: error: With tag (0066, 0040) got exception',
      'Error: error: With tag (0066, 0040) got exception',
    ],
    [
      'a Rust compiler error',
      'Compiling app v0.1.0\nerror[E0308]: mismatched types\n --> src/main.rs:4:9',
      'error[E0308]: mismatched types',
    ],
    [
      'a TypeScript error, located',
      'src/a.ts(3,5): error TS2345: Argument of type "string" is not assignable',
      'src/a.ts(3,5): error TS2345: Argument of type "string" is not assignable',
    ],
    [
      'a TypeScript error, pretty',
      'src/a.ts:3:5 - error TS2345: Argument of type "string"',
      'src/a.ts:3:5 - error TS2345: Argument of type "string"',
    ],
    [
      'a C compiler error',
      'gcc -c a.c\na.c:10:5: error: expected ";" before "}" token',
      'a.c:10:5: error: expected ";" before "}" token',
    ],
    [
      'git',
      'fatal: not a git repository (or any of the parent directories): .git',
      'fatal: not a git repository (or any of the parent directories): .git',
    ],
    [
      'a Go panic',
      'goroutine 1 [running]:\npanic: runtime error: index out of range',
      'panic: runtime error: index out of range',
    ],
  ])('finds %s', (_, text, line) => {
    expect(findErrorLine(text)).toBe(line);
  });

  it('takes the last line of a Python traceback, whatever the exception is called', () => {
    const traceback =
      'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n    main()\n  File "a.py", line 2, in main\n    raise KeyboardInterrupt\nKeyboardInterrupt';
    expect(findErrorLine(`collecting ...\n${traceback}\n`)).toBe('KeyboardInterrupt');
  });

  it.each([
    [
      'a vitest summary',
      ' ✓ a > one\n Test Files  1 failed (1)\n      Tests  2 failed | 40 passed (42)',
      'Test Files  1 failed (1)',
    ],
    [
      'a pytest summary',
      '=== short test summary info ===\nFAILED tests/test_a.py::test_x - assert 1 == 2\n=== 1 failed, 3 passed in 0.12s ===',
      'FAILED tests/test_a.py::test_x - assert 1 == 2',
    ],
    ['a Go test failure', '=== RUN   TestX\n--- FAIL: TestX (0.00s)\nFAIL\tapp\t0.01s', '--- FAIL: TestX (0.00s)'],
    ['a TAP failure', 'ok 1 - one\nnot ok 2 - two', 'not ok 2 - two'],
    ['a compiler count', 'Found 3 errors in 2 files.', 'Found 3 errors in 2 files.'],
    ['npm', 'npm ERR! code ELIFECYCLE', 'npm ERR! code ELIFECYCLE'],
  ])('finds %s when there is no error message', (_, text, line) => {
    expect(findErrorLine(text)).toBe(line);
  });

  it.each([
    ['exit code: 1', 'building\nexit code: 1'],
    ['Exit code 2', 'Exit code 2\n'],
    ['exited with code 127', 'sh: foo: not found\nProcess exited with code 127'],
    ['exit status 1', 'exit status 1'],
    ['make', 'cc -o app app.c\nmake: *** [Makefile:3: all] Error 2'],
  ])('finds a non-zero exit status (%s)', (line, text) => {
    expect(findErrorLine(text)).toBe(
      text
        .split('\n')
        .find((candidate) => candidate.includes(line.split(' ')[0] as string))
        ?.trim(),
    );
  });

  it('prefers the error message to the summary and to an exit status that wraps it', () => {
    expect(
      findErrorLine(
        'Error: Exit code 1\n FAIL  tests/a.test.ts > two\nAssertionError: expected 2 to be 3\n Tests  1 failed (1)',
      ),
    ).toBe('AssertionError: expected 2 to be 3');
  });

  it.each([
    [
      'prose about error handling',
      'Error handling is described in docs/errors.md.\nThe error handling: retries, then a message.',
    ],
    [
      'zero counts',
      ' Test Files  3 passed (3)\n      Tests  40 passed | 0 failed (40)\n0 errors, 0 warnings\nexit code: 0',
    ],
    ['words that end in error', 'ErrorBoundary renders its children\nerrors: none'],
    ['a clean build', '> tsc --noEmit\n\nDone in 2.1s.'],
  ])('finds nothing in %s', (_, text) => {
    expect(findErrorLine(text)).toBeUndefined();
  });

  it('finds an error line inside a 10 MB output', () => {
    const filler = 'ok 1 - a passing check with some words in it\n'.repeat(240_000);
    const output = `${filler}src/app.ts(12,3): error TS2322: Type "number" is not assignable to type "string".\n${filler}`;
    expect(output.length).toBeGreaterThan(10_000_000);
    expect(findErrorLine(output)).toBe(
      'src/app.ts(12,3): error TS2322: Type "number" is not assignable to type "string".',
    );
  });

  it('errorLine gives the line after an exit status that opens the result, when nothing says more', () => {
    const output = "Exit code 1\nrm: cannot remove '.venv/lib64': Value too large\nrm: cannot remove 'b'";
    expect(errorLine(output)).toBe("rm: cannot remove '.venv/lib64': Value too large");
    expect(errorLine('Exit code 1')).toBe('Exit code 1');
    expect(errorLine('Exit code 2\nTypeError: x is undefined')).toBe('TypeError: x is undefined');
    expect(errorLine('building\nexit code 1\nnext')).toBe('exit code 1');
  });

  it('errorLine falls back to the first line when nothing says what went wrong', () => {
    expect(errorLine('\n  permission denied on /srv\nmore')).toBe('permission denied on /srv');
    expect(errorLine('')).toBe('');
  });
});

describe('printsItsOwnErrors: whose unmarked output may hold its own error', () => {
  it.each(['Bash', 'run_command', 'shell', 'execute_command', 'mcp__ci__run_tests', undefined])('%s does', (name) => {
    expect(printsItsOwnErrors(name)).toBe(true);
  });

  it.each(['Read', 'read_file', 'Grep', 'Glob', 'search', 'list_files', 'WebFetch', 'cat', 'LS'])(
    '%s fetches content and does not',
    (name) => {
      expect(printsItsOwnErrors(name)).toBe(false);
    },
  );
});

describe('findPrintedErrorLine: the error line of one result, for its reference', () => {
  const passing = (lines: number): string =>
    Array.from({ length: lines }, (_, index) => `ok ${index} compiled src/module-${index}.ts`).join('\n');

  it("takes a marked result's error line, else its first line", () => {
    expect(findPrintedErrorLine('RUN v3\nTypeError: x is undefined', true, 'run_command')).toBe(
      'TypeError: x is undefined',
    );
    expect(findPrintedErrorLine('Command timed out after 120 s\nlog', true, 'read_file')).toBe(
      'Command timed out after 120 s',
    );
  });

  it("takes an unmarked result's error line only from a tool that prints its own errors", () => {
    expect(findPrintedErrorLine('FAIL tests/a.test.ts\nexit code: 1', false, 'run_command')).toBe(
      'FAIL tests/a.test.ts',
    );
    expect(findPrintedErrorLine('TypeError: documented here', false, 'read_file')).toBeUndefined();
    expect(findPrintedErrorLine(passing(10), false, 'run_command')).toBeUndefined();
  });

  it('finds the error at the end of a 10 MB log, and reads only its two ends', () => {
    const log = `${passing(400_000)}\nAssertionError: expected 2336 to equal 2337\nexit code: 1`;
    expect(log.length).toBeGreaterThan(10_000_000);
    expect(findPrintedErrorLine(log, false, 'run_command')).toBe('AssertionError: expected 2336 to equal 2337');
    // an error only in the middle is past both ends: the reference goes without it
    const middle = `${passing(200_000)}\nTypeError: deep inside\n${passing(200_000)}`;
    expect(findPrintedErrorLine(middle, false, 'run_command')).toBeUndefined();
  });

  it('never takes a line cut at an end for a whole one', () => {
    // the last line of the head's range starts before the cut and ends after it: it is left out
    const cut = `${'x'.repeat(PRINTED_ERROR_END_CHARS - 10)}\nTypeError: ${'y'.repeat(100)}\n${passing(20_000)}`;
    expect(findPrintedErrorLine(cut, false, 'run_command')).toBeUndefined();
  });
});
