/**
 * Where a JSON text stops being valid. `JSON.parse` on Node 18 and 20 names a position for
 * some errors and none for others ("Unexpected end of JSON input", "Unexpected token ..."),
 * so after a failed parse the text goes through `jsonc-parser` (VS Code's fault-tolerant JSON
 * parser, strict settings: no comments, no trailing commas) for the first error's offset,
 * turned into a line and a column, or for whether the text is just cut short. It is loaded
 * only on that failure path.
 */
import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';

/** Where a JSON text is invalid and why. */
export interface JsonErrorLocation {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
  /** What was found there, e.g. `unexpected "}", expected a value` or `unexpected end of input`. */
  reason: string;
}

/** What each of jsonc-parser's error codes means, in the words of our messages. */
const EXPECTATIONS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'not a JSON value',
  InvalidNumberFormat: 'bad number',
  PropertyNameExpected: 'expected a property name',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'expected the end of the input',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'bad number',
  InvalidUnicode: 'bad \\u escape in string',
  InvalidEscapeCharacter: 'bad escape in string',
  InvalidCharacter: 'control character in string',
};

const require = createRequire(import.meta.url);
let parser: typeof JsoncParser | undefined;

function describeFound(text: string, offset: number, length: number): string {
  if (offset >= text.length || length === 0) return 'unexpected end of input';
  const found = text.slice(offset, offset + Math.min(length, 20));
  return `unexpected ${JSON.stringify(found)}${length > 20 ? '…' : ''}`;
}

function toLineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function findFirstError(text: string): { error: JsoncParser.ParseError; code: string } | undefined {
  parser ??= require('jsonc-parser') as typeof JsoncParser;
  const errors: JsoncParser.ParseError[] = [];
  parser.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  return first === undefined ? undefined : { error: first, code: parser.printParseErrorCode(first.error) };
}

/** Errors of a token that may just be cut short: a string, a number, `true`/`false`/`null`, a lone `-`. */
const CUT_TOKEN_ERRORS = new Set([
  'UnexpectedEndOfString',
  'UnexpectedEndOfNumber',
  'InvalidNumberFormat',
  'InvalidSymbol',
  'InvalidUnicode',
]);

/**
 * Whether an invalid JSON text is valid JSON cut short: its first error is where the text
 * ends (`{"type":"user","mess`, `{"a":[1,`, `{"a":tr`), not a mistake before the end
 * (`{"a": }`, `{"a" 1}`). Trailing whitespace is ignored. `false` for valid JSON.
 */
export function isTruncatedJson(text: string): boolean {
  const content = text.trimEnd();
  const found = findFirstError(content);
  if (found === undefined) return false;
  const { offset, length } = found.error;
  // Nothing left to read: the text stopped where a value, a name or a bracket was due.
  if (offset >= content.length) return true;
  if (offset + length < content.length || !CUT_TOKEN_ERRORS.has(found.code)) return false;
  if (found.code !== 'InvalidSymbol') return true;
  // A symbol cut short is the start of a literal, or the sign of a number still to come.
  const symbol = content.slice(offset);
  return symbol === '-' || ['true', 'false', 'null'].some((literal) => literal.startsWith(symbol));
}

/** Locates the first error of an invalid JSON text; `undefined` when the text is valid JSON. */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const found = findFirstError(text);
  if (found === undefined) return undefined;
  const { error: first, code } = found;
  const expectation = EXPECTATIONS[code] ?? code;
  return {
    ...toLineAndColumn(text, first.offset),
    reason: `${describeFound(text, first.offset, first.length)}, ${expectation}`,
  };
}
