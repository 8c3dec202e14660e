import { describe, expect, it } from 'vitest';
import { parseDecimalNumber, parseNumberText, resolveNumberSetting } from '../../../../src/core/options/env.js';
import { OPTIONS, resolveTableOption } from '../../../../src/core/options/option-table.js';
import { InvalidOptionError } from '../../../../src/core/errors.js';

describe('parseDecimalNumber: decimal notation only', () => {
  it.each([
    ['5', 5],
    ['-5', -5],
    ['+5', 5],
    ['.5', 0.5],
    ['5.', 5],
    ['5.0', 5],
    ['0.25', 0.25],
    ['1e3', 1000],
    ['1E3', 1000],
    ['2.5e-2', 0.025],
    ['1e+2', 100],
    ['007', 7],
    [' \t12\n', 12],
  ])('reads %j as %d', (text, expected) => {
    expect(parseDecimalNumber(text)).toBe(expected);
  });

  it.each([
    '0x10',
    '0X10',
    '0b1',
    '0o7',
    '-0x10',
    '1_000',
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '',
    '  ',
    '.',
    '-',
    'e3',
    '1e',
    '1.2.3',
    '12abc',
    '1,000',
    '5 5',
    '٣',
  ])('rejects %j', (text) => {
    expect(parseDecimalNumber(text)).toBeUndefined();
  });
});

describe('parseNumberText', () => {
  it('names what it was given and the rule', () => {
    expect(() => parseNumberText('--limit', '-5', { min: 1, integer: true })).toThrow(
      new InvalidOptionError('--limit must be an integer >= 1, got "-5"'),
    );
  });
  it('returns the number within the rule', () => {
    expect(parseNumberText('--ratio', '0.5', { min: 0, max: 1 })).toBe(0.5);
  });
});

describe('resolveTableOption: environment variables are decimal only', () => {
  it.each(['0x10', '0b1', '0o7', '1_000', 'Infinity'])(
    'rejects OFFLOAD_CHAR_THRESHOLD=%s, naming the variable',
    (raw) => {
      expect(() => resolveTableOption(OPTIONS.charThreshold, undefined, { OFFLOAD_CHAR_THRESHOLD: raw })).toThrow(
        new InvalidOptionError(`OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got ${JSON.stringify(raw)}`),
      );
    },
  );

  it.each([
    ['1e3', 1000],
    ['250.', 250],
    [' 250 ', 250],
  ])('reads OFFLOAD_CHAR_THRESHOLD=%j as %d', (raw, expected) => {
    expect(resolveTableOption(OPTIONS.charThreshold, undefined, { OFFLOAD_CHAR_THRESHOLD: raw })).toBe(expected);
  });

  it('reads a fraction without a leading digit', () => {
    expect(
      resolveNumberSetting({ option: 'ratioThreshold', env: 'R', default: 0.2, rule: { min: 0, max: 1 } }, undefined, {
        R: '.5',
      }),
    ).toBe(0.5);
  });
});
