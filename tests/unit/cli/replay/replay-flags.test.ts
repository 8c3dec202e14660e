import { describe, expect, it } from 'vitest';
import { parseCommandArguments } from '../../../../src/cli/arguments.js';
import { UsageError } from '../../../../src/cli/errors.js';
import {
  chooseReplaySummarizer,
  DEFAULT_PRICE_PER_MTOK,
  parseTokenCount,
  readRuledNumberFlag,
  readTokenCountFlag,
} from '../../../../src/cli/replay/replay-flags.js';
import { describeSummarizer } from '../../../../src/cli/summarizer-choice.js';

const FLAGS = {
  window: { type: 'string' },
  'price-per-mtok': { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
} as const;

function parse(args: string[]): ReturnType<typeof parseCommandArguments> {
  return parseCommandArguments('replay', args, FLAGS, 1);
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('replay --window: a token count as people write it', () => {
  it.each([
    ['30000', 30_000],
    ['100k', 100_000],
    ['100K', 100_000],
    ['1.5k', 1_500],
    ['1.5m', 1_500_000],
    [' 2M ', 2_000_000],
    ['.5k', 500],
    ['1', 1],
  ])('reads %j as %d', (text, expected) => {
    expect(parseTokenCount(text)).toBe(expected);
  });

  it.each(['0', '0k', '-5', '1.2345k', '1.5', 'abc', '', '10 000', '0x10', '1e3', '100kb', 'Infinity'])(
    'refuses %j',
    (text) => {
      expect(parseTokenCount(text)).toBeUndefined();
    },
  );

  it('names the flag and quotes the text in a usage error', () => {
    const error = catchError(() => readTokenCountFlag(parse(['--window', 'lots']), 'window', 'replay'));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      '--window must be a whole number of tokens >= 1 such as 30000, 100k or 1.5m, got "lots"',
    );
    expect((error as UsageError).command).toBe('replay');
  });

  it('is undefined when the flag is absent', () => {
    expect(readTokenCountFlag(parse([]), 'window', 'replay')).toBeUndefined();
  });
});

describe('replay --price-per-mtok', () => {
  it('defaults to an example price of $3 per million input tokens', () => {
    expect(DEFAULT_PRICE_PER_MTOK).toBe(3);
    expect(readRuledNumberFlag(parse([]), 'price-per-mtok', { min: 0 }, 'replay')).toBeUndefined();
  });

  it('takes a decimal number and refuses a negative one, naming the flag', () => {
    expect(readRuledNumberFlag(parse(['--price-per-mtok', '0.8']), 'price-per-mtok', { min: 0 }, 'replay')).toBe(0.8);
    const error = catchError(() =>
      readRuledNumberFlag(parse(['--price-per-mtok', '-1']), 'price-per-mtok', { min: 0 }, 'replay'),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('--price-per-mtok must be a number >= 0, got "-1"');
  });
});

describe('replay and eval summarizer: offline unless --provider says otherwise', () => {
  it('is the extractive summarizer by default, whatever the environment holds', () => {
    const before = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    try {
      expect(chooseReplaySummarizer(parse([]), 'replay')).toEqual({
        provider: 'extractive',
        chosenBy: 'default',
        model: undefined,
        baseURL: undefined,
      });
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = before;
    }
  });

  it('takes --provider with its model and base URL', () => {
    const choice = chooseReplaySummarizer(
      parse(['--provider', 'openai', '--model', 'gpt-5-mini', '--base-url', 'http://127.0.0.1:1']),
      'replay',
    );
    expect(choice).toMatchObject({
      provider: 'openai',
      chosenBy: 'flag',
      model: 'gpt-5-mini',
      baseURL: 'http://127.0.0.1:1',
    });
    expect(describeSummarizer(choice)).toBe('openai gpt-5-mini at http://127.0.0.1:1');
  });

  it('refuses an unknown provider with a usage error pointing at the command that was run', () => {
    const error = catchError(() => chooseReplaySummarizer(parse(['--provider', 'gemini']), 'eval'));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('--provider must be one of anthropic, openai, extractive, got "gemini"');
    expect((error as UsageError).command).toBe('eval');
  });

  it('refuses --model without an LLM provider', () => {
    const error = catchError(() => chooseReplaySummarizer(parse(['--model', 'x']), 'replay'));
    expect((error as Error).message).toBe('--model needs an LLM: pass --provider anthropic or openai');
  });

  it('describes the offline summarizer', () => {
    expect(describeSummarizer(chooseReplaySummarizer(parse([]), 'replay'))).toBe('extractive (offline, deterministic)');
  });
});
