import { describe, expect, it } from 'vitest';
import { isDeepEqual } from '../../../../src/core/util/deep-equal.js';

describe('isDeepEqual', () => {
  it('holds plain objects equal whatever their key order, and arrays item by item', () => {
    expect(isDeepEqual({ a: [1, { b: 'x' }], c: null }, { c: null, a: [1, { b: 'x' }] })).toBe(true);
    expect(isDeepEqual([1, [2, 3]], [1, [2, 3]])).toBe(true);
  });

  it('tells apart a missing key, an extra key, another value, another length or an array against an object', () => {
    expect(isDeepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(isDeepEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(isDeepEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(isDeepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(isDeepEqual([], {})).toBe(false);
    expect(isDeepEqual(null, {})).toBe(false);
  });

  it.each([
    [{ a: 1 }, { a: 1, b: 2 }],
    [
      { a: 1, b: 2 },
      { a: 1, c: 2 },
    ],
    [
      [1, 2],
      [1, 2, 3],
    ],
    [[1], { 0: 1 }],
    [{ a: null }, { a: {} }],
    ['1', 1],
  ])('tells %j from %j, in either order', (left, right) => {
    expect(isDeepEqual(left, right)).toBe(false);
    expect(isDeepEqual(right, left)).toBe(false);
  });

  it('holds objects that are not plain equal only when they are the same object', () => {
    const bytes = new Uint8Array([1, 2]);
    expect(isDeepEqual({ data: bytes }, { data: bytes })).toBe(true);
    expect(isDeepEqual({ data: bytes }, { data: new Uint8Array([1, 2]) })).toBe(false);
  });
});
