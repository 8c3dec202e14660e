/**
 * JSON parsing whose errors name the line and column, whatever the Node version says.
 */
import { CliError } from '../errors.js';
import { locateJsonError } from './json-error-location.js';

/** Where a text came from, for error messages: a file path or `stdin`. */
export interface TextOrigin {
  /** The file path as the user gave it, or `stdin`. */
  source: string;
  /** Line of the text's first line in the file (JSONL lines are parsed one by one). @default 1 */
  firstLine?: number;
}

/** What `JSON.parse` said, without the text it quotes back or the offset it may name. */
function describeParserMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
}

/**
 * Parses JSON. On failure throws a {@link CliError} (exit 1) such as
 * `bad.json: invalid JSON at line 3, column 7: unexpected "}", expected a property name`.
 */
export function parseJson(text: string, origin: TextOrigin): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const location = locateJsonError(text);
    if (location === undefined) {
      throw new CliError(`${origin.source}: invalid JSON: ${describeParserMessage(error)}`, undefined, {
        cause: error,
      });
    }
    const line = location.line + (origin.firstLine ?? 1) - 1;
    throw new CliError(
      `${origin.source}: invalid JSON at line ${line}, column ${location.column}: ${location.reason}`,
      undefined,
      {
        cause: error,
      },
    );
  }
}
