import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toTerminalJson, toTerminalText } from '../../../../src/cli/render/terminal-text.js';

/** Every character a terminal obeys rather than shows: C0, DEL, C1, and the bidi marks and overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Text rich in what matters here: every C0/C1 control and DEL, the bidi characters, and ordinary text. */
const terminalText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xa0 }).map((code) => String.fromCharCode(code)),
    fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u2028', '\\', '"'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
});

describe('toTerminalText: terminal safety', () => {
  it('shows a CSI colour sequence as inert text', () => {
    expect(toTerminalText('\u001b[31mred\u001b[0m')).toBe('\\u001b[31mred\\u001b[0m');
  });

  it('shows an OSC 52 clipboard write and an OSC 0 title set, whether ended by BEL or by ESC \\', () => {
    expect(toTerminalText('\u001b]52;c;cm0gLXJmIH4=\u0007')).toBe('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(toTerminalText('\u001b]0;pwned\u001b\\')).toBe('\\u001b]0;pwned\\u001b\\');
  });

  it('escapes the C1 controls (U+009B is a one-character CSI) and DEL', () => {
    expect(toTerminalText('a\u009b31mb\u0085c\u007fd')).toBe('a\\u009b31mb\\u0085c\\u007fd');
  });

  it('escapes the bidirectional overrides, isolates and marks', () => {
    expect(toTerminalText('invoice\u202egnp.exe')).toBe('invoice\\u202egnp.exe');
    for (const code of [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(toTerminalText(String.fromCharCode(code))).toBe(`\\u${code.toString(16).padStart(4, '0')}`);
    }
  });

  it('escapes line breaks and tabs in a one-line value', () => {
    expect(toTerminalText('a\nb\tc\rd')).toBe('a\\u000ab\\u0009c\\u000dd');
  });

  it('keeps line feeds and tabs in a multi-line preview, and escapes every other control', () => {
    expect(toTerminalText('a\nb\tc\rd\u001b[2J', { multiline: true })).toBe('a\nb\tc\\u000dd\\u001b[2J');
  });

  it('leaves accents, CJK, emoji and backslashes as they are', () => {
    expect(toTerminalText('plain/é中😀 C:\\dir')).toBe('plain/é中😀 C:\\dir');
  });

  it('never lets an unsafe character through, whatever the text', () => {
    fc.assert(
      fc.property(terminalText, (text) => {
        expect(toTerminalText(text)).not.toMatch(UNSAFE);
        expect(toTerminalText(text, { multiline: true }).replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);
      }),
    );
  });
});

describe('toTerminalJson', () => {
  it('keeps JSON valid and its value the same, with nothing a terminal obeys left raw', () => {
    fc.assert(
      fc.property(fc.jsonValue(), terminalText, (value, text) => {
        const json = JSON.stringify({ value, text }, null, 2);
        const safe = toTerminalJson(json);
        expect(safe.replace(/[\n]/g, '')).not.toMatch(UNSAFE);
        expect(JSON.parse(safe)).toEqual(JSON.parse(json));
      }),
    );
  });
});
