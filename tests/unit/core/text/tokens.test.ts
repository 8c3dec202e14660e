import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTokens, estimateTokens, shouldCompact } from '../../../../src/api/tokens.js';
import { InvalidMessageError, InvalidOptionError } from '../../../../src/core/errors.js';
import {
  BLOCK_TOKEN_OVERHEAD as BLOCK,
  MESSAGE_TOKEN_OVERHEAD as MESSAGE,
  CHARS_COUNTED_BETWEEN_YIELDS,
  compactThresholdTokens,
  countHistoryTokens,
  countMessageTokens,
  countMessageTokensYielding,
  countTextYielding,
  rememberMessageTokens,
  shouldCompactWith,
} from '../../../../src/core/text/tokens.js';
import type { Message } from '../../../../src/core/types.js';
import { charCounter, createCountingCounter, deepFreeze } from '../../../fixtures/compact-fixtures.js';

const ENV_NAMES = ['CONTEXT_TOKEN_LIMIT', 'COMPACT_THRESHOLD_RATIO'] as const;
let savedEnv: Record<string, string | undefined>;
beforeEach(() => {
  savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  for (const name of ENV_NAMES) delete process.env[name];
});
afterEach(() => {
  for (const name of ENV_NAMES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe('countTokens', () => {
  const count = (messages: Message[]): number => countTokens(messages, { tokenCounter: charCounter, cache: false });

  it('counts an empty history as 0', () => {
    expect(count([])).toBe(0);
    expect(countTokens([])).toBe(0);
  });

  it('counts string content plus the per-message overhead', () => {
    expect(count([{ role: 'user', content: 'hello' }])).toBe(MESSAGE + 5);
    expect(count([{ role: 'user', content: '' }])).toBe(MESSAGE);
  });

  it('counts text, tool names, tool inputs as JSON, thinking, plus the per-block overhead', () => {
    const input = { path: 'a.ts' };
    const message: Message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'ignored-signature' },
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input },
      ],
    };
    expect(count([message])).toBe(
      MESSAGE + (BLOCK + 3) + (BLOCK + 2) + (BLOCK + 'read_file'.length + JSON.stringify(input).length),
    );
  });

  it('counts tool results recursively, string or blocks', () => {
    const message: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'abc' },
        {
          type: 'tool_result',
          tool_use_id: 'b',
          content: [
            { type: 'text', text: 'de' },
            { type: 'image', source: { data: 'x'.repeat(999) } },
          ],
        },
        { type: 'tool_result', tool_use_id: 'c', content: [] },
      ],
    };
    expect(count([message])).toBe(MESSAGE + (BLOCK + 3) + (BLOCK + (BLOCK + 2)) + BLOCK);
  });

  it('counts unknown blocks (image, document, redacted_thinking) as 0, overhead included', () => {
    const message: Message = {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', data: 'x'.repeat(5000) } },
        { type: 'redacted_thinking', data: 'y'.repeat(100) },
        { type: 'document', source: { type: 'text', data: 'z' } },
      ],
    };
    expect(count([message])).toBe(MESSAGE);
  });

  it('sums messages', () => {
    expect(
      count([
        { role: 'system', content: 'ab' },
        { role: 'user', content: 'cde' },
      ]),
    ).toBe(2 * MESSAGE + 5);
  });

  describe('malformed messages (INVALID_MESSAGE, checked on a cache miss)', () => {
    it('rejects a null message with InvalidMessageError and its path, not a bare TypeError', () => {
      const history = [null] as unknown as Message[];
      expect(() => countTokens(history)).toThrow(InvalidMessageError);
      expect(() => countTokens(history)).toThrow('messages[0]: expected a message object, got null');
      expect(() => shouldCompact(history, { contextTokenLimit: 10 })).toThrow(
        expect.objectContaining({ code: 'INVALID_MESSAGE', path: 'messages[0]' }),
      );
    });

    it('names the path of the bad field of a later message', () => {
      const history = [
        { role: 'user', content: 'fine' },
        { role: 'user', content: [{ type: 'tool_result', content: 'no id' }] },
      ] as unknown as Message[];
      expect(() => countTokens(history, { tokenCounter: charCounter })).toThrow(
        expect.objectContaining({ code: 'INVALID_MESSAGE', path: 'messages[1].content[0].tool_use_id' }),
      );
      expect(() => countTokens([{ role: 'bot', content: 'x' }] as unknown as Message[], { cache: false })).toThrow(
        expect.objectContaining({ path: 'messages[0].role' }),
      );
      expect(() => countMessageTokens(7 as unknown as Message, charCounter)).toThrow(
        expect.objectContaining({ path: 'message' }),
      );
    });

    it('checks each message once: appending one message checks (and tokenizes) that message only', () => {
      const roleReads: number[] = [];
      const tracked = (index: number, content: string): Message => {
        roleReads[index] = 0;
        return {
          get role() {
            roleReads[index] = (roleReads[index] ?? 0) + 1;
            return 'user' as const;
          },
          content,
        };
      };
      const counter = createCountingCounter();
      const history = [tracked(0, 'one'), tracked(1, 'two')];
      countTokens(history, { tokenCounter: counter });
      const readsPerCheck = roleReads[0]!;
      expect(readsPerCheck).toBeGreaterThan(0);
      expect(roleReads).toEqual([readsPerCheck, readsPerCheck]);
      history.push(tracked(2, 'three'));
      countTokens(history, { tokenCounter: counter });
      expect(roleReads).toEqual([readsPerCheck, readsPerCheck, readsPerCheck]);
      expect(counter.calls).toEqual(['one', 'two', 'three']);
    });

    it('does not read the prefix lastUsage covers', () => {
      const history = [null, { role: 'user', content: 'after' }] as unknown as Message[];
      expect(countTokens(history, { tokenCounter: charCounter, lastUsage: { inputTokens: 10, messageCount: 1 } })).toBe(
        10 + MESSAGE + 5,
      );
    });
  });

  describe('cache (incremental counting)', () => {
    it('never tokenizes an unchanged message object twice', () => {
      const counter = createCountingCounter();
      const history: Message[] = [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ];
      expect(countTokens(history, { tokenCounter: counter })).toBe(2 * MESSAGE + 6);
      expect(counter.calls).toEqual(['one', 'two']);
      history.push({ role: 'user', content: 'three' });
      expect(countTokens(history, { tokenCounter: counter })).toBe(3 * MESSAGE + 11);
      expect(counter.calls).toEqual(['one', 'two', 'three']);
    });

    it('recounts with cache: false (a message mutated in place) and refreshes the cache', () => {
      const counter = createCountingCounter();
      const message: Message = { role: 'user', content: 'abc' };
      expect(countTokens([message], { tokenCounter: counter })).toBe(MESSAGE + 3);
      message.content = 'abcdef';
      expect(countTokens([message], { tokenCounter: counter })).toBe(MESSAGE + 3);
      expect(countTokens([message], { tokenCounter: counter, cache: false })).toBe(MESSAGE + 6);
      expect(countTokens([message], { tokenCounter: counter })).toBe(MESSAGE + 6);
      expect(counter.calls).toEqual(['abc', 'abcdef']);
    });

    it('keeps one cache per counter', () => {
      const message: Message = { role: 'user', content: 'abcd' };
      expect(countMessageTokens(message, charCounter)).toBe(MESSAGE + 4);
      expect(countMessageTokens(message, { count: () => 1 })).toBe(MESSAGE + 1);
    });

    it('counts a deep-frozen history', () => {
      const history = deepFreeze<Message[]>([{ role: 'user', content: [{ type: 'text', text: 'frozen' }] }]);
      expect(countTokens(history, { tokenCounter: charCounter })).toBe(MESSAGE + BLOCK + 6);
    });
  });

  describe('lastUsage (the provider figure makes the prefix exact)', () => {
    const history: Message[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'question' },
      { role: 'assistant', content: 'answer' },
    ];

    it('takes inputTokens for the first messageCount messages and estimates only the rest', () => {
      expect(
        countTokens(history, { tokenCounter: charCounter, lastUsage: { inputTokens: 1000, messageCount: 2 } }),
      ).toBe(1000 + MESSAGE + 6);
    });

    it('is exactly the provider figure when it covers every message', () => {
      expect(
        countTokens(history, { tokenCounter: charCounter, lastUsage: { inputTokens: 777, messageCount: 3 } }),
      ).toBe(777);
    });

    it('accepts an Anthropic usage object as is: input_tokens + cache_read + cache_creation', () => {
      const usage = {
        input_tokens: 10,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 90,
        output_tokens: 42,
        service_tier: 'standard',
      };
      expect(countTokens(history, { tokenCounter: charCounter, lastUsage: { ...usage, messageCount: 3 } })).toBe(600);
      const noCache = {
        input_tokens: 10,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        messageCount: 3,
      };
      expect(countTokens(history, { tokenCounter: charCounter, lastUsage: noCache })).toBe(10);
    });

    it('rejects a messageCount beyond the history, naming the field', () => {
      expect(() => countTokens(history, { lastUsage: { inputTokens: 5, messageCount: 4 } })).toThrow(
        new InvalidOptionError(
          'lastUsage.messageCount must be an integer in [0, 3] (messages the last request sent), got 4',
        ),
      );
    });

    it('rejects a negative or missing token figure', () => {
      expect(() => countTokens(history, { lastUsage: { inputTokens: -1, messageCount: 1 } })).toThrow(
        /lastUsage.inputTokens must be a number >= 0, got -1/,
      );
      expect(() => countTokens(history, { lastUsage: { messageCount: 1 } as never })).toThrow(/input_tokens/);
    });
  });

  describe('tokenSafetyFactor', () => {
    it('scales local estimates only, rounding up', () => {
      const history: Message[] = [
        { role: 'user', content: 'x'.repeat(6) },
        { role: 'assistant', content: 'y' },
      ];
      expect(countTokens(history, { tokenCounter: charCounter, tokenSafetyFactor: 1.5 })).toBe(
        Math.ceil((2 * MESSAGE + 7) * 1.5),
      );
      expect(
        countTokens(history, {
          tokenCounter: charCounter,
          tokenSafetyFactor: 1.5,
          lastUsage: { inputTokens: 100, messageCount: 1 },
        }),
      ).toBe(100 + Math.ceil((MESSAGE + 1) * 1.5));
    });

    it('rejects a factor <= 0 or not a number', () => {
      expect(() => countTokens([], { tokenSafetyFactor: 0 })).toThrow(
        new InvalidOptionError('tokenSafetyFactor must be a number > 0, got 0'),
      );
      expect(() => countTokens([], { tokenSafetyFactor: Number.NaN })).toThrow(/tokenSafetyFactor/);
    });
  });

  it('rejects a tokenCounter without count()', () => {
    expect(() => countTokens([], { tokenCounter: {} as never })).toThrow(
      /tokenCounter must be an object with a count\(text\) method/,
    );
  });

  it('rejects messages that are not an array', () => {
    expect(() => countTokens('hello' as never)).toThrow(/messages: expected an array of messages/);
  });
});

describe('estimateTokens', () => {
  it('is 0 for empty text', () => {
    expect(estimateTokens('')).toBe(0);
  });

  it('uses the given counter', () => {
    expect(estimateTokens('abcd', { tokenCounter: charCounter })).toBe(4);
  });

  it('counts text holding special-token strings such as <|endoftext|> as plain text', () => {
    expect(estimateTokens('before <|endoftext|> after <|im_start|>')).toBeGreaterThan(5);
  });
});

describe('shouldCompact: tokens >= limit × ratio', () => {
  const history = (contentLength: number): Message[] => [{ role: 'user', content: 'x'.repeat(contentLength) }];
  // a factor of 1: these pin the trigger's arithmetic on the local count
  const options = {
    tokenCounter: charCounter,
    contextTokenLimit: 100,
    compactThresholdRatio: 0.5,
    cache: false,
    tokenSafetyFactor: 1,
  };
  const unscaled = { tokenCounter: charCounter, cache: false, tokenSafetyFactor: 1 };

  it('triggers exactly at the threshold', () => {
    expect(shouldCompact(history(50 - MESSAGE), options)).toBe(true);
  });

  it('does not trigger one token below the threshold', () => {
    expect(shouldCompact(history(49 - MESSAGE), options)).toBe(false);
  });

  it("scales the local count by the manager's starting calibration of the family when no factor is given", () => {
    const window = { tokenCounter: charCounter, contextTokenLimit: 100, compactThresholdRatio: 0.5, cache: false };
    // a trigger of 50: 34 local tokens are 51 at 1.5 (anthropic, other) and 34 at 1 (openai); 32 are 48 at 1.5
    expect(shouldCompact(history(34 - MESSAGE), window)).toBe(true);
    expect(shouldCompact(history(34 - MESSAGE), { ...window, model: 'claude-sonnet-4-6' })).toBe(true);
    expect(shouldCompact(history(34 - MESSAGE), { ...window, provider: 'openai' })).toBe(false);
    expect(shouldCompact(history(32 - MESSAGE), window)).toBe(false);
  });

  it('never triggers on an empty history', () => {
    expect(shouldCompact([], { ...options, compactThresholdRatio: 0 })).toBe(false);
  });

  it('computes 200000 × 0.92 as 184000 exactly (no float residue)', () => {
    expect(compactThresholdTokens(200_000, 0.92)).toBe(184_000);
    expect(compactThresholdTokens(100, 0.29)).toBe(29);
    expect(compactThresholdTokens(10, 0.55)).toBe(6);
  });

  it('defaults to 200000 × 0.92', () => {
    expect(shouldCompact(history(184_000 - MESSAGE), unscaled)).toBe(true);
    expect(shouldCompact(history(183_999 - MESSAGE), unscaled)).toBe(false);
  });

  it('reads CONTEXT_TOKEN_LIMIT and COMPACT_THRESHOLD_RATIO at call time', () => {
    process.env.CONTEXT_TOKEN_LIMIT = '100';
    process.env.COMPACT_THRESHOLD_RATIO = ' 0.5 ';
    expect(shouldCompact(history(50 - MESSAGE), unscaled)).toBe(true);
    process.env.COMPACT_THRESHOLD_RATIO = '0.6';
    expect(shouldCompact(history(50 - MESSAGE), unscaled)).toBe(false);
  });

  it('prefers options over the environment', () => {
    process.env.CONTEXT_TOKEN_LIMIT = '1';
    expect(shouldCompact(history(49 - MESSAGE), options)).toBe(false);
  });

  it('rejects an invalid variable, naming it', () => {
    process.env.CONTEXT_TOKEN_LIMIT = '200k';
    expect(() => shouldCompact(history(1))).toThrow(
      new InvalidOptionError('CONTEXT_TOKEN_LIMIT must be an integer >= 1, got "200k"'),
    );
    delete process.env.CONTEXT_TOKEN_LIMIT;
    process.env.COMPACT_THRESHOLD_RATIO = '1.5';
    expect(() => shouldCompact(history(1))).toThrow(/COMPACT_THRESHOLD_RATIO must be a number in \[0, 1\], got "1.5"/);
  });

  it('rejects an invalid option, naming it', () => {
    expect(() => shouldCompact(history(1), { contextTokenLimit: 0 })).toThrow(
      /contextTokenLimit must be an integer >= 1, got 0/,
    );
  });

  it('counts the provider figure for the prefix (lastUsage)', () => {
    const messages = [...history(1), { role: 'assistant' as const, content: 'y' }];
    expect(shouldCompact(messages, { ...options, lastUsage: { inputTokens: 45, messageCount: 1 } })).toBe(true);
    expect(shouldCompact(messages, { ...options, lastUsage: { inputTokens: 44, messageCount: 1 } })).toBe(false);
  });

  it('core shouldCompactWith agrees with countHistoryTokens', () => {
    const messages = history(10);
    const tokens = countHistoryTokens(messages, { tokenCounter: charCounter });
    expect(
      shouldCompactWith(messages, { tokenCounter: charCounter, contextTokenLimit: tokens, compactThresholdRatio: 1 }),
    ).toBe(true);
    expect(
      shouldCompactWith(messages, {
        tokenCounter: charCounter,
        contextTokenLimit: tokens + 1,
        compactThresholdRatio: 1,
      }),
    ).toBe(false);
  });
});

describe('countTextYielding', () => {
  /** Notes each text counted and each yield, in order. */
  function createLog(): {
    events: string[];
    counter: { count(text: string): number };
    yieldToLoop: () => Promise<void>;
  } {
    const events: string[] = [];
    return {
      events,
      counter: { count: (text) => (events.push(`count ${text.length}`), text.length) },
      yieldToLoop: () => (events.push('yield'), Promise.resolve()),
    };
  }

  it('counts a short text in one call, without yielding', async () => {
    const log = createLog();
    const state = { yieldToLoop: log.yieldToLoop, charsSinceYield: 0 };
    expect(await countTextYielding(log.counter, 'a b c', state)).toBe(5);
    expect(log.events).toEqual(['count 5']);
  });

  it('counts a long text in parts, yielding before each part that would go over the budget', async () => {
    const log = createLog();
    const text = 'word '.repeat(10_000); // 50,000 characters
    const state = { yieldToLoop: log.yieldToLoop, charsSinceYield: 0 };
    expect(await countTextYielding(log.counter, text, state)).toBe(text.length);
    const parts = log.events.filter((event) => event.startsWith('count'));
    expect(parts.length).toBeGreaterThanOrEqual(Math.ceil(text.length / CHARS_COUNTED_BETWEEN_YIELDS));
    expect(log.events.filter((event) => event === 'yield')).toHaveLength(parts.length - 1);
    expect(log.events[0]).toMatch(/^count/);
  });

  it('carries what it counted from text to text: short texts yield once their sum passes the budget', async () => {
    const log = createLog();
    const state = { yieldToLoop: log.yieldToLoop, charsSinceYield: 0 };
    const short = 'x'.repeat(1000);
    for (let index = 0; index < 16; index += 1) await countTextYielding(log.counter, short, state);
    // 3 texts fit in 3,840 characters: the 4th, 7th, 10th, 13th and 16th wait for a yield
    expect(log.events.filter((event) => event === 'yield')).toHaveLength(5);
  });
});

describe('countMessageTokensYielding', () => {
  it('gives the count countMessageTokens gives, and caches it for the counter', async () => {
    const counter = createCountingCounter();
    const message: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'y'.repeat(20_000) },
        { type: 'tool_result', tool_use_id: 't1', content: 'z'.repeat(9_000) },
      ],
    };
    const state = { yieldToLoop: () => Promise.resolve(), charsSinceYield: 0 };
    const count = await countMessageTokensYielding(message, counter, state);
    expect(count).toBe(countMessageTokens(structuredClone(message), charCounter));
    const calls = counter.calls.length;
    expect(countMessageTokens(message, counter)).toBe(count);
    expect(counter.calls.length).toBe(calls);
  });
});

describe('rememberMessageTokens', () => {
  it('makes a later count of that message through that counter tokenize nothing', () => {
    const counter = createCountingCounter();
    const message: Message = { role: 'user', content: 'hello there' };
    rememberMessageTokens(message, counter, 42);
    expect(countHistoryTokens([message], { tokenCounter: counter })).toBe(42);
    expect(counter.calls).toEqual([]);
  });
});
