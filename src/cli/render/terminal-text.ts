/**
 * Text from a transcript, made safe to print. A tool result, a tool name, an id or a file name
 * can hold bytes a terminal obeys rather than shows: `ESC[31m` recolours the screen, an OSC
 * sequence (`ESC]0;title BEL`, `ESC]52;c;<base64> BEL`) sets the window title or writes the
 * clipboard, a C1 control (U+009B is a one-character CSI) does the same without ESC, and the
 * bidirectional overrides reorder what the reader sees. Every such character is written as a
 * `\uXXXX` escape, the notation `JSON.stringify` uses, so a sequence shows as inert text
 * (`\u001b[31m`) and the reader can still tell what was there. Only what reaches the terminal
 * is escaped: files the CLI writes keep their content exactly.
 */

// C0 controls, DEL, C1 controls, and the bidirectional marks and overrides (ALM, LRM, RLM,
// LRE..RLO, LRI..PDI) that reorder a line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// The same, less line feed and tab: a multi-line preview keeps its layout.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_IN_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// What JSON.stringify leaves raw: DEL, C1 and the bidi characters (it escapes C0 itself).
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Options of {@link toTerminalText}. */
export interface TerminalTextOptions {
  /**
   * Keep line feeds and tabs (a preview meant to span lines); every other control is escaped.
   * @default false: a value on one line, `\n` escaped too
   */
  multiline?: boolean;
}

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `value` with every control character, escape-sequence introducer and bidirectional override
 * written as `\uXXXX`: `"a\u001b[31mb"` prints as `a\u001b[31mb`. Anything else (accents, CJK,
 * emoji) is unchanged. Non-strings are turned into text first.
 */
export function toTerminalText(value: unknown, options: TerminalTextOptions = {}): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.replace(options.multiline === true ? UNSAFE_IN_MULTILINE : UNSAFE_CHARACTER, escapeCharacter);
}

/**
 * JSON text (from `JSON.stringify`) made safe to print, still valid JSON meaning the same
 * value: the characters `JSON.stringify` leaves raw (DEL, C1, bidi overrides) occur only inside
 * strings, where `\uXXXX` is their JSON escape.
 */
export function toTerminalJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, escapeCharacter);
}
