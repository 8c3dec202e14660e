import { describe, expect, it } from 'vitest';
import { InvalidOptionError, UnsafePathError } from '../../../../src/core/errors.js';
import { flattenOptionGroups, resolveWithOptionPaths } from '../../../../src/core/options/option-groups.js';

const schema = {
  offload: { threshold: 'threshold', timing: 'offloadTiming' },
  compaction: { archive: { policy: 'archive' } },
};
const { paths } = flattenOptionGroups({}, schema, new Set());

function messageOf(error: Error): string {
  try {
    resolveWithOptionPaths(paths, () => {
      throw error;
    });
  } catch (thrown) {
    return (thrown as Error).message;
  }
  return 'no error';
}

describe('resolveWithOptionPaths', () => {
  it('names a flat option at the start of a message by its path', () => {
    expect(messageOf(new InvalidOptionError('threshold must be a number >= 1, got 0'))).toBe(
      'offload.threshold must be a number >= 1, got 0',
    );
  });

  it('names a camelCased flat option anywhere in a message, a plain word only at its start', () => {
    expect(messageOf(new InvalidOptionError('archive is read with offloadTiming; the archive stays'))).toBe(
      'compaction.archive.policy is read with offload.timing; the archive stays',
    );
  });

  it('leaves environment variables, other options and other errors as they are', () => {
    expect(messageOf(new InvalidOptionError('OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "x"'))).toBe(
      'OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "x"',
    );
    expect(messageOf(new InvalidOptionError('provider must be "anthropic", got "x"'))).toBe(
      'provider must be "anthropic", got "x"',
    );
    expect(messageOf(new UnsafePathError('threshold is not a folder name'))).toBe('threshold is not a folder name');
  });

  it('returns what resolve returns', () => {
    expect(resolveWithOptionPaths(paths, () => 42)).toBe(42);
  });
});

describe('flattenOptionGroups', () => {
  it('gives each grouped value under its flat name, nested groups included', () => {
    const { values } = flattenOptionGroups(
      { offload: { timing: 'on-arrival' }, compaction: { archive: { policy: 'best-effort' } } },
      schema,
      new Set(),
    );
    expect(values).toEqual({ offloadTiming: 'on-arrival', archive: 'best-effort' });
  });

  it('leaves the top-level keys to the caller', () => {
    expect(flattenOptionGroups({ outputDir: 'x' }, schema, new Set(['outputDir'])).values).toEqual({});
  });

  it('refuses a removed grouped spelling with what replaces it, and an unknown key with the keys of its group', () => {
    const removed = { 'offload.limit': 'pass offload.threshold' };
    expect(() => flattenOptionGroups({ offload: { limit: 5 } }, schema, new Set(), removed)).toThrow(
      'offload.limit is not an option any more: pass offload.threshold',
    );
    expect(() => flattenOptionGroups({ offload: { limits: 5 } }, schema, new Set(), removed)).toThrow(
      'offload.limits is not an option: expected one of threshold, timing',
    );
  });
});
