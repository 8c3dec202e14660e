import { describe, expect, it } from 'vitest';
import { NUMBER_FLAG_RULES, parseCommandArguments, readNumberFlag } from '../../../src/cli/arguments.js';
import type { FlagDefinition, NumberFlagName } from '../../../src/cli/arguments.js';
import { UsageError } from '../../../src/cli/errors.js';
import { planOffload, shouldCompact } from '../../../src/index.js';

const FLAGS: Readonly<Record<string, FlagDefinition>> = {
  'char-threshold': { type: 'string' },
  'ratio-threshold': { type: 'string' },
  limit: { type: 'string' },
  ratio: { type: 'string' },
  out: { type: 'string' },
  output: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
};

function parse(args: readonly string[]): ReturnType<typeof parseCommandArguments> {
  return parseCommandArguments('offload', args, FLAGS, 1);
}

function readNumber(name: NumberFlagName, value: string): number | undefined {
  return readNumberFlag(parse([`--${name}=${value}`]), name, 'offload');
}

function usageErrorOf(action: () => unknown): UsageError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a usage error');
}

describe('parseCommandArguments: a value starting with "-"', () => {
  it.each([
    [['--char-threshold', '-5'], '-5'],
    [['--char-threshold=-5'], '-5'],
    [['--char-threshold', '-.5'], '-.5'],
    [['--char-threshold', '-1e3'], '-1e3'],
  ])('%j gives the flag the value %j', (args, value) => {
    expect(parse(args).values['char-threshold']).toBe(value);
  });

  it('attaches a negative number to a short flag too, under its long name', () => {
    expect(parse(['-o', '-5']).values.output).toBe('-5');
  });

  it('never gives a boolean flag a value', () => {
    expect(usageErrorOf(() => parse(['--force', '-5'])).message).toBe('unknown option -5');
  });

  it('leaves the arguments after -- alone', () => {
    expect(parseCommandArguments('offload', ['--', '--char-threshold', '-5'], FLAGS, 2).positionals).toEqual([
      '--char-threshold',
      '-5',
    ]);
  });

  it('says how to give a value starting with "-" that is not a number', () => {
    expect(usageErrorOf(() => parse(['--out', '-x'])).message).toBe(
      '--out needs a value (for one starting with "-", write --out=<value>)',
    );
  });
});

describe('readNumberFlag', () => {
  it.each([
    ['char-threshold', '-5', '--char-threshold must be a number >= 1, got "-5"'],
    ['char-threshold', '0', '--char-threshold must be a number >= 1, got "0"'],
    ['ratio-threshold', '-0.5', '--ratio-threshold must be a number in [0, 1], got "-0.5"'],
    ['limit', '-5', '--limit must be an integer >= 1, got "-5"'],
    ['limit', '1000.5', '--limit must be an integer >= 1, got "1000.5"'],
    ['ratio', '1.5', '--ratio must be a number in [0, 1], got "1.5"'],
  ] as const)('--%s %s: names the flag and its true bound', (name, value, message) => {
    const error = usageErrorOf(() => readNumber(name, value));
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(2);
    expect(error.command).toBe('offload');
  });

  it.each(['0x10', '0b1', '0o7', '1_000', 'Infinity', '1e400', '12k', '', ' ', '--5', '5..0', 'e3'])(
    'rejects %j: decimal numbers only',
    (value) => {
      expect(usageErrorOf(() => readNumber('char-threshold', value)).message).toBe(
        `--char-threshold must be a number >= 1, got ${JSON.stringify(value)}`,
      );
    },
  );

  it.each([
    ['200', 200],
    [' 200 ', 200],
    ['+200', 200],
    ['200.', 200],
    ['200.0', 200],
    ['2e2', 200],
    ['2.5E2', 250],
  ])('reads %j as %d', (value, expected) => {
    expect(readNumber('char-threshold', value)).toBe(expected);
  });

  it('reads a fraction without a leading digit', () => {
    expect(readNumber('ratio', '.5')).toBe(0.5);
  });

  it('is undefined for an absent flag', () => {
    expect(readNumberFlag(parse([]), 'limit', 'offload')).toBeUndefined();
  });
});

describe('NUMBER_FLAG_RULES: the library rule of each flag option', () => {
  // The CLI checks first so that its message names the flag; it must accept exactly what the
  // library accepts, or a valid value would be refused (or a bad one reach the library).
  const libraryChecks: Record<NumberFlagName, (value: number) => unknown> = {
    'char-threshold': (value) => planOffload([], { charThreshold: value }),
    'ratio-threshold': (value) => planOffload([], { ratioThreshold: value }),
    limit: (value) => shouldCompact([], { contextTokenLimit: value }),
    ratio: (value) => shouldCompact([], { compactThresholdRatio: value }),
  };

  function accepts(check: () => unknown): boolean {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  }

  it.each(Object.keys(libraryChecks) as NumberFlagName[])(
    '--%s accepts what the library accepts, at and around its bounds',
    (name) => {
      const rule: { min?: number; max?: number } = NUMBER_FLAG_RULES[name];
      const probes = [-1, -0.001, 0, 0.5, 0.999, 1, 1.001, 1.5, 2, 1000, 1000.5];
      for (const bound of [rule.min, rule.max])
        if (bound !== undefined) probes.push(bound - 0.001, bound, bound + 0.001);
      for (const value of probes) {
        const library = accepts(() => libraryChecks[name](value));
        const cli = accepts(() => readNumber(name, String(value)));
        expect({ value, cli }).toEqual({ value, cli: library });
      }
    },
  );
});
