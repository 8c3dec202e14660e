import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendErrorLine,
  appendPreview,
  buildBatchReference,
  buildPagingLine,
  buildDirectReference,
  buildPreview,
  isOffloadReference,
  MAX_REFERENCE_ERROR_LINE_CHARS,
  readReferenceErrorLine,
} from '../../../../src/core/offload/offload-reference.js';

const reference = fc.oneof(
  fc.constantFrom('./tool-result-a.md', '/srv/offload/s/a.md').map(buildBatchReference),
  fc.constantFrom('/tmp/s/a.md', 'C:\\offload\\s\\a~1.md').map(buildDirectReference),
);
const preview = fc.record({ headChars: fc.nat({ max: 400 }), tailChars: fc.nat({ max: 400 }) });
const content = fc.string({ unit: 'grapheme', maxLength: 900 });

describe('isOffloadReference (a reference is exactly a reference)', () => {
  it('recognises a reference line alone, and one followed by any preview the package writes (property)', () => {
    fc.assert(
      fc.property(reference, content, preview, (line, text, sizes) => {
        expect(isOffloadReference(line)).toBe(true);
        expect(isOffloadReference(line + buildPreview(text, sizes))).toBe(true);
        expect(isOffloadReference([{ type: 'text', text: line + buildPreview(text, sizes) }])).toBe(true);
      }),
    );
  });

  it('does not take text that merely starts with a reference for one (property)', () => {
    fc.assert(
      fc.property(
        reference,
        content,
        preview,
        fc.string({ minLength: 1, maxLength: 20 }),
        (line, text, sizes, extra) => {
          expect(isOffloadReference(`${line}\n${extra}`)).toBe(false);
          expect(isOffloadReference(line + buildPreview(text, sizes) + extra)).toBe(false);
        },
      ),
    );
  });

  it('rejects a preview whose figures do not match its text', () => {
    const line = buildBatchReference('./tool-result-a.md');
    expect(isOffloadReference(`${line}\nPreview (all 5 chars):\nabcdef`)).toBe(false);
    expect(
      isOffloadReference(`${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 5 chars omitted ...]\nyz`),
    ).toBe(true);
    expect(
      isOffloadReference(`${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 4 chars omitted ...]\nyz`),
    ).toBe(false);
    expect(
      isOffloadReference(
        `${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 5 chars omitted ...]\nyz and more`,
      ),
    ).toBe(false);
  });

  it('does not take a first line that does not end with ] for a reference', () => {
    expect(isOffloadReference('[Content offloaded to: ./a.md] and then some')).toBe(false);
  });
});

describe('the paging line of a cut result', () => {
  const lines = Array.from({ length: 90 }, (_, index) => `line ${index}: ${'x'.repeat(20)}`).join('\n');

  it('says how many lines the whole has and about how many make a page', () => {
    expect(buildPagingLine(lines, 500)).toBe(
      '\nRead in pages (90 lines, about 16 lines a page): pass an offset and a limit, or search it.',
    );
  });

  it('is left out when a page would hold every line (one long line)', () => {
    expect(buildPagingLine('x'.repeat(5000), 500)).toBe('');
    expect(appendPreview(buildDirectReference('/s/a.md'), lines, { headChars: 5000, tailChars: 0 }, 500)).toBe(
      `${buildDirectReference('/s/a.md')}${buildPreview(lines, { headChars: 5000, tailChars: 0 })}`,
    );
  });

  it('leaves a reference a reference, after an error line and before a cut preview (property)', () => {
    fc.assert(
      fc.property(reference, content, preview, fc.integer({ min: 1, max: 2000 }), (line, text, sizes, page) => {
        const cut = appendPreview(appendErrorLine(line, 'Error: failed'), text + lines, sizes, page);
        expect(isOffloadReference(cut)).toBe(true);
        expect(readReferenceErrorLine(cut)).toBe('Error: failed');
      }),
    );
  });

  it('is not taken for ours when a tool printed it without a preview after it', () => {
    const line = buildDirectReference('/s/a.md');
    expect(isOffloadReference(line + buildPagingLine(lines, 500))).toBe(false);
  });
});

describe('the error line after a reference', () => {
  const errorText = fc.string({ minLength: 1, maxLength: 400 });

  it('leaves a reference a reference, alone or before a preview, and reads back as written (property)', () => {
    fc.assert(
      fc.property(reference, errorText, content, preview, (line, error, text, sizes) => {
        const noted = appendErrorLine(line, error);
        expect(isOffloadReference(noted)).toBe(true);
        expect(isOffloadReference(noted + buildPreview(text, sizes))).toBe(true);
        const read = readReferenceErrorLine(noted + buildPreview(text, sizes));
        expect(read).toBe(readReferenceErrorLine(noted));
        expect(read?.includes('\n')).toBe(false);
      }),
    );
  });

  it('keeps the line whole up to its limit, cuts a longer one with a mark, and puts line breaks on one line', () => {
    const line = buildBatchReference('./tool-result-a.md');
    expect(appendErrorLine(line, 'AssertionError: expected 1 to be 2')).toBe(
      `${line}\nError line: AssertionError: expected 1 to be 2`,
    );
    expect(readReferenceErrorLine(appendErrorLine(line, 'x'.repeat(MAX_REFERENCE_ERROR_LINE_CHARS)))).toBe(
      'x'.repeat(MAX_REFERENCE_ERROR_LINE_CHARS),
    );
    expect(readReferenceErrorLine(appendErrorLine(line, 'y'.repeat(1000)))).toBe(
      `${'y'.repeat(MAX_REFERENCE_ERROR_LINE_CHARS)} [...]`,
    );
    expect(readReferenceErrorLine(appendErrorLine(line, 'a\r\nb'))).toBe('a b');
    expect(appendErrorLine(line, undefined)).toBe(line);
    expect(appendErrorLine(line, '')).toBe(line);
  });

  it('is not taken from text a tool printed: a longer line, or more text after it, is ordinary content', () => {
    const line = buildBatchReference('./tool-result-a.md');
    expect(isOffloadReference(`${line}\nError line: ${'z'.repeat(MAX_REFERENCE_ERROR_LINE_CHARS + 100)}`)).toBe(false);
    expect(isOffloadReference(`${line}\nError line: boom\nmore output`)).toBe(false);
    expect(readReferenceErrorLine(line)).toBeUndefined();
  });
});
