import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildBatchFileName,
  buildDirectFileName,
  MAX_VERBATIM_ID_LENGTH,
  planFileNames,
  toFileStem,
} from '../../../../src/core/offload/offload-names.js';
import { isSafePathSegment } from '../../../../src/core/store/safe-path.js';

/** What any stem may be: safe characters, optionally `~` and an 11-digit hash; never `.` or `..`. */
const STEM = /^[A-Za-z0-9._-]*(~[0-9a-z]{11})?$/;

/** Ids from a tiny alphabet, so that `a`, `a-1`, `a-2`, duplicates and their suffixes collide often. */
const collidingId = fc.constantFrom('a', 'a-1', 'a-2', 'a-1-1', 'b', 'a~1', '../a', 'a/1', '');
const anyId = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 30 }), collidingId);

describe('toFileStem (tool_use_id → file name part)', () => {
  it('keeps a safe id of up to 100 characters as it is, in batch and direct offload names', () => {
    expect(toFileStem('toolu_01A.b-c')).toBe('toolu_01A.b-c');
    expect(toFileStem('x'.repeat(MAX_VERBATIM_ID_LENGTH))).toBe('x'.repeat(MAX_VERBATIM_ID_LENGTH));
  });

  it('maps an id over 100 characters to its first 60 characters, ~ and a hash', () => {
    const stem = toFileStem('x'.repeat(MAX_VERBATIM_ID_LENGTH + 1));
    expect(stem).toMatch(/^x{60}~[0-9a-z]{11}$/);
  });

  it.each([['../../etc/passwd'], ['a/b'], ['a\\b'], ['..'], ['.'], ['nul\0byte'], ['spaces are out'], [''], ['😀']])(
    'maps the unsafe id %j to a safe stem',
    (id) => {
      const stem = toFileStem(id);
      expect(stem).toMatch(STEM);
      expect(stem).toContain('~');
      expect(stem).not.toMatch(/^\./);
    },
  );

  it('gives any string a safe stem, the same on every call (property)', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const stem = toFileStem(id);
        expect(stem).toMatch(STEM);
        expect(stem.length).toBeLessThanOrEqual(MAX_VERBATIM_ID_LENGTH);
        expect(stem === '.' || stem === '..').toBe(false);
        expect(toFileStem(id)).toBe(stem);
      }),
    );
  });

  it('never maps an unsafe id onto a safe id, which keeps its own name (property)', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const stem = toFileStem(id);
        if (stem !== id) expect(isSafePathSegment(stem)).toBe(false);
      }),
    );
  });

  it('tells 100,000 distinct unsafe ids apart', () => {
    const stems = new Set<string>();
    for (let index = 0; index < 100_000; index += 1) stems.add(toFileStem(`call/${index}`));
    expect(stems.size).toBe(100_000);
  });
});

describe('planFileNames (names of one call, planned against every id)', () => {
  it('gives a, a (duplicate) and a-1 three names, the duplicate skipping a-1', () => {
    expect(planFileNames(['a', 'a', 'a-1'], [], buildBatchFileName)).toEqual([
      'tool-result-a.md',
      'tool-result-a-2.md',
      'tool-result-a-1.md',
    ]);
  });

  it('keeps the name of an id that is reserved but not written free for it', () => {
    expect(planFileNames(['a', 'a'], ['a-1'], buildBatchFileName)).toEqual(['tool-result-a.md', 'tool-result-a-2.md']);
  });

  it('names direct offload duplicates <stem>~N.md, which no real id can take', () => {
    expect(planFileNames(['d', 'd', 'd-1'], [], buildDirectFileName)).toEqual(['d.md', 'd~1.md', 'd-1.md']);
  });

  it('gives every block of a call its own name, first uses their base name, deterministically (property)', () => {
    fc.assert(
      fc.property(fc.array(anyId, { maxLength: 40 }), fc.array(anyId, { maxLength: 10 }), (ids, otherIds) => {
        for (const build of [buildBatchFileName, buildDirectFileName]) {
          const stems = ids.map(toFileStem);
          const reserved = [...stems, ...otherIds.map(toFileStem)];
          const names = planFileNames(stems, reserved, build);
          expect(new Set(names).size).toBe(names.length);
          expect(planFileNames(stems, reserved, build)).toEqual(names);
          const bases = new Set(reserved.map((stem) => build(stem, 0)));
          stems.forEach((stem, index) => {
            const isFirstUse = stems.indexOf(stem) === index;
            if (isFirstUse) expect(names[index]).toBe(build(stem, 0));
            else expect(bases.has(names[index]!)).toBe(false);
          });
        }
      }),
    );
  });

  it('plans 10,000 uses of one id in linear work: each suffix is tried once', () => {
    let built = 0;
    const counting = (stem: string, suffix: number): string => {
      built += 1;
      return buildBatchFileName(stem, suffix);
    };
    const stems = Array.from({ length: 10_000 }, () => 'a');
    const names = planFileNames(stems, stems, counting);
    expect(names.at(-1)).toBe('tool-result-a-9999.md');
    expect(built).toBeLessThan(5 * stems.length);
  });
});
