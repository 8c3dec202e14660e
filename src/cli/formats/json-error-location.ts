/**
 * Where a JSON text stops being valid. `JSON.parse` on Node 18 and 20 names a position for
 * some errors and none for others ("Unexpected end of JSON input", "Unexpected token ..."),
 * so after a failed parse this scanner walks the text with the JSON grammar to find the first
 * offending character and turns it into a line and a column.
 */

/** Where a JSON text is invalid and why. */
export interface JsonErrorLocation {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
  /** What was found there, e.g. `unexpected "}"` or `unexpected end of input`. */
  reason: string;
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function describeCharacter(text: string, offset: number): string {
  if (offset >= text.length) return 'unexpected end of input';
  const character = String.fromCodePoint(text.codePointAt(offset) ?? 0);
  return `unexpected ${JSON.stringify(character)}`;
}

/** A recursive-descent walk of the JSON grammar (RFC 8259) that throws at the first error. */
class JsonScanner {
  private offset = 0;

  constructor(private readonly text: string) {}

  scanDocument(): void {
    this.skipWhitespace();
    this.scanValue(0);
    this.skipWhitespace();
    if (this.offset < this.text.length) this.fail();
  }

  private fail(reason?: string): never {
    throw new ScanError(this.offset, reason ?? describeCharacter(this.text, this.offset));
  }

  private skipWhitespace(): void {
    while (this.offset < this.text.length) {
      const code = this.text.charCodeAt(this.offset);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      this.offset += 1;
    }
  }

  private expect(character: string): void {
    if (this.text[this.offset] !== character) this.fail(`${describeCharacter(this.text, this.offset)}, expected ${JSON.stringify(character)}`);
    this.offset += 1;
  }

  private scanValue(depth: number): void {
    // Deeper than any transcript: stop before the call stack does.
    if (depth > 5000) this.fail('nesting too deep');
    const character = this.text[this.offset];
    if (character === '{') return this.scanObject(depth);
    if (character === '[') return this.scanArray(depth);
    if (character === '"') return this.scanString();
    if (character === '-' || (character !== undefined && character >= '0' && character <= '9')) return this.scanNumber();
    for (const literal of ['true', 'false', 'null']) {
      if (this.text.startsWith(literal, this.offset)) {
        this.offset += literal.length;
        return;
      }
    }
    this.fail();
  }

  private scanObject(depth: number): void {
    this.offset += 1;
    this.skipWhitespace();
    if (this.text[this.offset] === '}') {
      this.offset += 1;
      return;
    }
    for (;;) {
      if (this.text[this.offset] !== '"') this.fail(`${describeCharacter(this.text, this.offset)}, expected a property name`);
      this.scanString();
      this.skipWhitespace();
      this.expect(':');
      this.skipWhitespace();
      this.scanValue(depth + 1);
      this.skipWhitespace();
      if (this.text[this.offset] === ',') {
        this.offset += 1;
        this.skipWhitespace();
        continue;
      }
      if (this.text[this.offset] === '}') {
        this.offset += 1;
        return;
      }
      this.fail(`${describeCharacter(this.text, this.offset)}, expected "," or "}"`);
    }
  }

  private scanArray(depth: number): void {
    this.offset += 1;
    this.skipWhitespace();
    if (this.text[this.offset] === ']') {
      this.offset += 1;
      return;
    }
    for (;;) {
      this.scanValue(depth + 1);
      this.skipWhitespace();
      if (this.text[this.offset] === ',') {
        this.offset += 1;
        this.skipWhitespace();
        continue;
      }
      if (this.text[this.offset] === ']') {
        this.offset += 1;
        return;
      }
      this.fail(`${describeCharacter(this.text, this.offset)}, expected "," or "]"`);
    }
  }

  private scanString(): void {
    this.offset += 1;
    for (;;) {
      if (this.offset >= this.text.length) this.fail('unterminated string');
      const code = this.text.charCodeAt(this.offset);
      if (code === 0x22) {
        this.offset += 1;
        return;
      }
      if (code < 0x20) this.fail('control character in string');
      if (code === 0x5c) {
        const escaped = this.text[this.offset + 1];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.offset + 2, this.offset + 6))) this.fail('bad \\u escape in string');
          this.offset += 6;
          continue;
        }
        if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) this.fail('bad escape in string');
        this.offset += 2;
        continue;
      }
      this.offset += 1;
    }
  }

  private scanNumber(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.offset, this.offset + 400));
    if (match === null) this.fail('bad number');
    this.offset += match[0].length;
  }
}

/** Turns an offset into a 1-based line and column. */
export function locateOffset(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds where `text` stops being valid JSON. Returns `undefined` when the scanner finds no
 * error (the caller then reports the parser's own message).
 */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  try {
    new JsonScanner(text).scanDocument();
    return undefined;
  } catch (error) {
    if (!(error instanceof ScanError)) return undefined;
    return { ...locateOffset(text, error.offset), reason: error.reason };
  }
}
