import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildBatchReference, buildDirectReference, buildPreview, isOffloadReference } from '../../src/core/offload-reference.js';

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
      fc.property(reference, content, preview, fc.string({ minLength: 1, maxLength: 20 }), (line, text, sizes, extra) => {
        expect(isOffloadReference(`${line}\n${extra}`)).toBe(false);
        expect(isOffloadReference(line + buildPreview(text, sizes) + extra)).toBe(false);
      }),
    );
  });

  it('rejects a preview whose figures do not match its text', () => {
    const line = buildBatchReference('./tool-result-a.md');
    expect(isOffloadReference(`${line}\nPreview (all 5 chars):\nabcdef`)).toBe(false);
    expect(isOffloadReference(`${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 5 chars omitted ...]\nyz`)).toBe(true);
    expect(isOffloadReference(`${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 4 chars omitted ...]\nyz`)).toBe(false);
    expect(isOffloadReference(`${line}\nPreview (first 2 and last 2 of 9 chars):\nab\n[... 5 chars omitted ...]\nyz and more`)).toBe(false);
  });

  it('does not take a first line that does not end with ] for a reference', () => {
    expect(isOffloadReference('[Content offloaded to: ./a.md] and then some')).toBe(false);
  });
});
