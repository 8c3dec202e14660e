import { describe, expect, it } from 'vitest';
import { ContextError, describeValue, InvalidOptionError, WriteFailedError } from '../../../src/core/errors.js';
import { resolveNumberSetting } from '../../../src/core/options/env.js';
import { assertSafePathSegment } from '../../../src/core/store/safe-path.js';
import { assertMessages } from '../../../src/core/messages/validate-messages.js';

describe('ContextError', () => {
  it('takes its name from the subclass and keeps code and cause', () => {
    const cause = new Error('ENOSPC');
    const error = new WriteFailedError('could not write', { cause });
    expect(error).toBeInstanceOf(ContextError);
    expect(error.name).toBe('WriteFailedError');
    expect(error.code).toBe('WRITE_FAILED');
    expect(error.cause).toBe(cause);
  });
});

describe('describeValue (values in error messages)', () => {
  it.each([
    [{}, 'an object'],
    [() => undefined, 'a function'],
    [Symbol('s'), 'a symbol'],
    [10n, 'a bigint'],
    [[1, 2], 'an array of 2'],
    ['x', '"x"'],
    [null, 'null'],
  ])('describes %o as %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });
});

describe('resolveNumberSetting', () => {
  const setting = { option: 'ratioThreshold', env: 'R', default: 0.2, rule: { min: 0, max: 1 } };
  it('prefers the option over the environment', () => {
    expect(resolveNumberSetting(setting, 0.5, { R: '0.1' })).toBe(0.5);
  });
  it('reads the environment when the option is absent', () => {
    expect(resolveNumberSetting(setting, undefined, { R: ' 0.1 ' })).toBe(0.1);
  });
  it('falls back to the default when the variable is unset or empty', () => {
    expect(resolveNumberSetting(setting, undefined, {})).toBe(0.2);
    expect(resolveNumberSetting(setting, undefined, { R: '  ' })).toBe(0.2);
  });
  it('rejects text that parseFloat would accept, naming the variable', () => {
    expect(() => resolveNumberSetting(setting, undefined, { R: '0.3abc' })).toThrow(
      new InvalidOptionError('R must be a number in [0, 1], got "0.3abc"'),
    );
  });
  it('rejects an out-of-range option, naming the option', () => {
    expect(() => resolveNumberSetting(setting, 2, {})).toThrow(/ratioThreshold must be a number in \[0, 1\], got 2/);
  });
});

describe('assertSafePathSegment', () => {
  it.each(['toolu_01abc', 'a.b-c_D9', 'x'.repeat(200)])('accepts %s', (value) => {
    expect(assertSafePathSegment('id', value)).toBe(value);
  });
  it.each(['', '.', '..', '../etc', 'a/b', 'a\\b', 'a\0b', 'x'.repeat(201), 'é'])(
    'rejects %j with UNSAFE_PATH',
    (value) => {
      expect(() => assertSafePathSegment('id', value)).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
    },
  );
});

describe('assertMessages', () => {
  it('names the path of a tool_result without a string tool_use_id', () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 7, content: 'x' }] },
    ];
    expect(() => assertMessages(messages)).toThrow(
      /messages\[1\]\.content\[0\]\.tool_use_id: expected a string, got 7/,
    );
  });
  it('rejects something that is not an array', () => {
    expect(() => assertMessages({})).toThrow(expect.objectContaining({ code: 'INVALID_MESSAGE' }));
  });
  it('passes unknown block types and fields through', () => {
    expect(() =>
      assertMessages([{ role: 'assistant', content: [{ type: 'server_tool_use', foo: 1 }], extra: true }]),
    ).not.toThrow();
  });
});
