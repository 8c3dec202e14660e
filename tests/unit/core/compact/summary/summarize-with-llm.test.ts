import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  computeMinSummaryInputTokens,
  computeSummaryMaxTokens,
  createLlmSummarizer,
  MIN_KEPT_BLOCK_CHARS,
  MIN_SUMMARY_CONVERSATION_TOKENS,
} from '../../../../../src/core/compact/summary/summarize-with-llm.js';
import { createRequestPlanner, type PlannedRequest } from '../../../../../src/core/compact/summary/summary-input.js';
import {
  buildSummaryPrompt,
  renderMessagesForSummary,
} from '../../../../../src/core/compact/summary/summary-prompt.js';
import { ContextError, InvalidOptionError, SummarizerFailedError } from '../../../../../src/core/errors.js';
import type { LlmClient, LlmSummarizeOptions, TokenCounter } from '../../../../../src/core/ports.js';
import { CHARS_COUNTED_BETWEEN_YIELDS, countHistoryTokens } from '../../../../../src/core/text/tokens.js';
import type { ContentBlock, Message } from '../../../../../src/core/types.js';
import { defaultTokenCounter } from '../../../../../src/infrastructure/tokenizer.js';

/** About four characters per token, like English text under a BPE tokenizer. */
const quarterCounter: TokenCounter = { count: (text) => Math.ceil(text.length / 4) };

interface RecordedCall {
  prompt: string;
  model: string;
  options: LlmSummarizeOptions | undefined;
}

/** A fake LLM: records each call, answers from `replies` (the last one repeats), tracks overlap. */
function createFakeClient(replies: readonly (string | Error)[] = ['## Goals & Decisions\nSummary']) {
  const calls: RecordedCall[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: LlmClient = {
    async summarize(prompt, model, options) {
      calls.push({ prompt, model, options });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Promise.resolve();
      inFlight -= 1;
      const reply = replies[Math.min(calls.length - 1, replies.length - 1)] ?? '';
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return { client, calls, maxInFlight: () => maxInFlight };
}

function toolExchange(id: string, result: string, name = 'bash'): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input: { command: `run ${id}` } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

describe('createLlmSummarizer', () => {
  describe('one request', () => {
    it('sends the summary prompt with the whole conversation, the model and a reply budget sized from maxWords', async () => {
      const fake = createFakeClient(['  ## Goals & Decisions\nFix it.  \n']);
      const summarizer = createLlmSummarizer(fake.client, { model: 'claude-test', tokenCounter: quarterCounter });
      const messages: Message[] = [
        { role: 'user', content: 'Fix the failing test' },
        { role: 'assistant', content: 'Looking at it now.' },
      ];
      const summary = await summarizer.summarize(messages, { maxWords: 1200 });

      expect(summary).toBe('## Goals & Decisions\nFix it.');
      expect(fake.calls).toHaveLength(1);
      const [call] = fake.calls;
      expect(call?.model).toBe('claude-test');
      expect(call?.options).toEqual({ maxTokens: computeSummaryMaxTokens(1200) });
      expect(call?.prompt).toContain(
        '<conversation>\n[1] user:\nFix the failing test\n\n[2] assistant:\nLooking at it now.\n</conversation>',
      );
      expect(call?.prompt).toContain('Pay special attention to the MOST RECENT messages');
      expect(call?.prompt).toContain('at most 1200 words');
      expect(call?.prompt).not.toContain('<previous_summary>');
    });

    it('sizes the reply as 3 tokens per word plus 256, unless maxTokens is given', async () => {
      expect(computeSummaryMaxTokens(1200)).toBe(3856);
      expect(computeSummaryMaxTokens(100)).toBe(556);
      const fake = createFakeClient();
      const summarizer = createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter, maxTokens: 777 });
      await summarizer.summarize([{ role: 'user', content: 'hi' }], { maxWords: 1200 });
      expect(fake.calls[0]?.options?.maxTokens).toBe(777);
    });

    it('passes the abort signal to the client', async () => {
      const fake = createFakeClient();
      const controller = new AbortController();
      await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter }).summarize(
        [{ role: 'user', content: 'hi' }],
        {
          maxWords: 100,
          signal: controller.signal,
        },
      );
      expect(fake.calls[0]?.options?.signal).toBe(controller.signal);
    });

    it('passes onUsage to the client, which reports each reply through it', async () => {
      const fake = createFakeClient();
      const onUsage = (): void => undefined;
      await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter, onUsage }).summarize(
        [{ role: 'user', content: 'hi' }],
        { maxWords: 100 },
      );
      expect(fake.calls[0]?.options).toEqual({ maxTokens: computeSummaryMaxTokens(100), onUsage });
    });

    it('rejects with the abort reason at once when the client ignores the signal and never answers', async () => {
      vi.useFakeTimers();
      const controller = new AbortController();
      const reason = new Error('stop');
      const client = {
        summarize: () => {
          setTimeout(() => controller.abort(reason), 5);
          return new Promise<string>(() => undefined);
        },
      };
      try {
        const summary = createLlmSummarizer(client, { model: 'm', tokenCounter: quarterCounter }).summarize(
          [{ role: 'user', content: 'hi' }],
          {
            maxWords: 100,
            signal: controller.signal,
          },
        );
        const settled = expect(summary).rejects.toBe(reason);
        await vi.advanceTimersByTimeAsync(5);
        await settled;
      } finally {
        vi.useRealTimers();
      }
    });

    it('sends an empty Rest as an empty conversation', async () => {
      const fake = createFakeClient();
      await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter }).summarize([], {
        maxWords: 100,
      });
      expect(fake.calls[0]?.prompt).toContain('<conversation>\n\n</conversation>');
    });
  });

  describe('cutting long tool results', () => {
    it('cuts long tool results in the middle, keeping head and tail and stating the chars cut, to fit one request', async () => {
      const fake = createFakeClient();
      const inputMaxTokens = 8_000;
      const summarizer = createLlmSummarizer(fake.client, { model: 'm', inputMaxTokens, tokenCounter: quarterCounter });
      const big = `HEAD-OF-RESULT ${'a'.repeat(60_000)} TAIL-OF-RESULT`;
      const messages: Message[] = [
        { role: 'user', content: 'Please run the build' },
        ...toolExchange('t1', big),
        ...toolExchange('t2', big),
        { role: 'assistant', content: 'Both builds ran.' },
      ];
      await summarizer.summarize(messages, { maxWords: 300 });

      expect(fake.calls).toHaveLength(1);
      const prompt = fake.calls[0]?.prompt ?? '';
      expect(quarterCounter.count(prompt)).toBeLessThanOrEqual(inputMaxTokens);
      const markers = [...prompt.matchAll(/\[\.\.\. ([\d,]+) chars cut \.\.\.\]/g)];
      expect(markers).toHaveLength(2);
      expect(prompt.match(/HEAD-OF-RESULT/g)).toHaveLength(2);
      expect(prompt.match(/TAIL-OF-RESULT/g)).toHaveLength(2);
      // what was cut plus what was kept is the whole result
      const kept = big.length - Number(markers[0]?.[1]?.replace(/,/g, ''));
      expect(kept).toBeGreaterThanOrEqual(MIN_KEPT_BLOCK_CHARS);
      expect(kept).toBeLessThan(big.length);
      // user and assistant text are never cut
      expect(prompt).toContain('Please run the build');
      expect(prompt).toContain('Both builds ran.');
    });

    it('cuts no more than needed: results under the fitted length stay whole', async () => {
      const fake = createFakeClient();
      const summarizer = createLlmSummarizer(fake.client, {
        model: 'm',
        inputMaxTokens: 12_000,
        tokenCounter: quarterCounter,
      });
      const small = `SMALL ${'s'.repeat(3_000)} END`;
      const messages = [...toolExchange('t1', 'b'.repeat(100_000)), ...toolExchange('t2', small)];
      await summarizer.summarize(messages, { maxWords: 300 });
      const prompt = fake.calls[0]?.prompt ?? '';
      expect(prompt).toContain(small);
      expect(prompt.match(/chars cut/g)).toHaveLength(1);
    });
  });

  describe('chunks: sequential, each carrying the summary so far', () => {
    // user text is never cut, so 60 messages of ~1,000 tokens cannot fit one 8,000-token request
    const messages: Message[] = Array.from({ length: 60 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `MESSAGE-${index} ${'word '.repeat(800)}`,
    }));

    it('summarizes in sequential chunks, each prompt carrying the previous reply, and returns the last reply', async () => {
      const replies = Array.from({ length: 30 }, (_, index) => `SUMMARY-${index + 1}`);
      const fake = createFakeClient(replies);
      const inputMaxTokens = 8_000;
      const summarizer = createLlmSummarizer(fake.client, { model: 'm', inputMaxTokens, tokenCounter: quarterCounter });
      const summary = await summarizer.summarize(messages, { maxWords: 200 });

      expect(fake.calls.length).toBeGreaterThan(1);
      expect(fake.maxInFlight()).toBe(1);
      expect(summary).toBe(`SUMMARY-${fake.calls.length}`);
      expect(fake.calls[0]?.prompt).not.toContain('<previous_summary>');
      fake.calls.slice(1).forEach((call, index) => {
        expect(call.prompt).toContain(`<previous_summary>\nSUMMARY-${index + 1}\n</previous_summary>`);
      });
      for (const call of fake.calls) expect(quarterCounter.count(call.prompt)).toBeLessThanOrEqual(inputMaxTokens);
    });

    it('sends every message exactly once, in order, whole', async () => {
      const fake = createFakeClient(['S']);
      await createLlmSummarizer(fake.client, {
        model: 'm',
        inputMaxTokens: 8_000,
        tokenCounter: quarterCounter,
      }).summarize(messages, {
        maxWords: 200,
      });
      const seen = fake.calls.flatMap((call) =>
        [...call.prompt.matchAll(/MESSAGE-(\d+) /g)].map((match) => Number(match[1])),
      );
      expect(seen).toEqual(messages.map((_, index) => index));
      for (const [index, message] of messages.entries()) {
        expect(
          fake.calls.some((call) =>
            call.prompt.includes(`[${index + 1}] ${message.role}:\n${String(message.content)}`),
          ),
        ).toBe(true);
      }
    });

    it('cuts a single message too large for any request, and still fits', async () => {
      const fake = createFakeClient(['S']);
      const inputMaxTokens = 3_000;
      const huge: Message[] = [
        { role: 'user', content: 'First request' },
        { role: 'user', content: `PASTE-START ${'p'.repeat(100_000)} PASTE-END` },
        { role: 'assistant', content: 'Done' },
      ];
      await createLlmSummarizer(fake.client, { model: 'm', inputMaxTokens, tokenCounter: quarterCounter }).summarize(
        huge,
        { maxWords: 100 },
      );
      for (const call of fake.calls) expect(quarterCounter.count(call.prompt)).toBeLessThanOrEqual(inputMaxTokens);
      const all = fake.calls.map((call) => call.prompt).join('\n');
      expect(all).toContain('PASTE-START');
      expect(all).toContain('PASTE-END');
      expect(all).toMatch(/\[\.\.\. [\d,]+ chars cut \.\.\.\]/);
      expect(all).toContain('First request');
      expect(all).toContain('Done');
    });

    it('keeps a long carried summary from crowding out the conversation', async () => {
      const fake = createFakeClient([`LONG-SUMMARY ${'z'.repeat(50_000)}`]);
      const inputMaxTokens = 8_000;
      await createLlmSummarizer(fake.client, { model: 'm', inputMaxTokens, tokenCounter: quarterCounter }).summarize(
        messages,
        {
          maxWords: 200,
        },
      );
      expect(fake.calls.length).toBeGreaterThan(1);
      for (const call of fake.calls) expect(quarterCounter.count(call.prompt)).toBeLessThanOrEqual(inputMaxTokens);
      expect(fake.calls[1]?.prompt).toContain('LONG-SUMMARY');
      expect(fake.calls[1]?.prompt).toMatch(/MESSAGE-\d+ /);
    });
  });

  describe('never exceeds inputMaxTokens (property)', () => {
    const block = fc.oneof(
      fc.record({
        type: fc.constant('text' as const),
        text: fc.string({ unit: 'grapheme', maxLength: 3_000, size: 'max' }),
      }),
      fc.record({ type: fc.constant('thinking' as const), thinking: fc.string({ maxLength: 20_000, size: 'max' }) }),
    );
    const message = fc.oneof(
      fc.record({
        role: fc.constantFrom('user' as const, 'assistant' as const),
        content: fc.string({ unit: 'grapheme', maxLength: 6_000, size: 'max' }),
      }),
      fc.record({ role: fc.constant('assistant' as const), content: fc.array(block, { maxLength: 3 }) }),
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 40_000, size: 'max' }), fc.boolean())
        .map(([id, result, isError]): Message[] => [
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id, name: 'bash', input: { command: result.slice(0, 5_000) } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }] },
        ]),
    );
    // a counter that is not additive over concatenation: non-ASCII text costs more, lines cost extra
    const unevenCounter: TokenCounter = {
      count: (text) => {
        let ascii = 0;
        let other = 0;
        for (let index = 0; index < text.length; index += 1) {
          if (text.charCodeAt(index) < 128) ascii += 1;
          else other += 1;
        }
        return Math.ceil(ascii / 4) + other + (text.split('\n').length - 1);
      },
    };

    it('every prompt sent counts at most inputMaxTokens, whatever the history', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(message, { maxLength: 25 }),
          fc.integer({ min: 3_000, max: 30_000 }),
          fc.constantFrom(quarterCounter, unevenCounter),
          async (generated, inputMaxTokens, tokenCounter) => {
            const messages = generated.flat() as Message[];
            const fake = createFakeClient(['S'.repeat(4_000)]);
            await createLlmSummarizer(fake.client, { model: 'm', inputMaxTokens, tokenCounter }).summarize(messages, {
              maxWords: 150,
            });
            expect(fake.calls.length).toBeGreaterThan(0);
            for (const call of fake.calls) expect(tokenCounter.count(call.prompt)).toBeLessThanOrEqual(inputMaxTokens);
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe('sizing with the real o200k_base counter: every prompt is counted', () => {
    const counter = defaultTokenCounter;
    // units that sit on either side of the points where o200k_base's pre-tokenizer splits
    const unit = fc.constantFrom(
      '\n',
      '\r',
      '\r\n',
      '\n\n',
      ' ',
      '  ',
      '\t',
      '/',
      '//',
      'a',
      'Ab',
      'word',
      ' word',
      'Z',
      'é',
      'e\u0301',
      '\u0301',
      '中文',
      '压缩',
      '😀',
      '\ud83d',
      '1',
      '123',
      '4567',
      '.',
      '}',
      '{"a":1}',
      '"',
      "'",
      "'s",
      "'LL",
      '[',
      ']',
      '[1] user:',
      '<',
      '\u00a0',
      '\u3000',
      '\u2028',
      '_',
      '-',
      '\u000b',
      '<|endoftext|>',
      '  indented',
      'x\n',
      '\n[tool_use',
      '²',
      'ǅ',
      'ʰ',
    );
    const text = fc.array(unit, { maxLength: 40 }).map((units) => units.join(''));
    const longText = fc
      .tuple(text, fc.integer({ min: 1, max: 300 }))
      .map(([value, times]) => (value === '' ? 'x' : value).repeat(times).slice(0, 9_000));
    const anyText = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: longText });
    const identifier = fc.oneof(
      fc.constantFrom('toolu_01', 'call_abc', 'x\n[y', ''),
      fc.stringMatching(/^toolu_[0-9A-Za-z]{1,12}$/),
    );
    const block: fc.Arbitrary<ContentBlock> = fc.oneof(
      fc.record({ type: fc.constant('text'), text: anyText }),
      fc.record({ type: fc.constant('thinking'), thinking: anyText }),
      fc.record({
        type: fc.constant('tool_use'),
        id: identifier,
        name: fc.constantFrom('bash', 'read_file', 'mcp__x2__y', ''),
        input: fc.dictionary(text, anyText, { maxKeys: 2 }),
      }),
      fc.record({
        type: fc.constant('tool_result'),
        tool_use_id: identifier,
        content: fc.oneof(
          anyText,
          fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: anyText }), fc.constant({ type: 'image' })), {
            maxLength: 3,
          }),
        ),
        is_error: fc.boolean(),
      }),
      fc.constant({ type: 'redacted_thinking', data: 'x' }),
    );
    const message: fc.Arbitrary<Message> = fc.oneof(
      fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: anyText }),
      fc.record({
        role: fc.constantFrom('user' as const, 'assistant' as const),
        content: fc.array(block, { maxLength: 4 }),
      }),
    );

    /** Every request a run would send, replying `reply` to each chunk. */
    function planAll(
      messages: readonly Message[],
      inputMaxTokens: number,
      reply: string,
    ): { request: PlannedRequest; start: number }[] {
      const planner = createRequestPlanner(messages, {
        tokenCounter: counter,
        tokenCounterEncoding: 'o200k_base',
        inputMaxTokens,
        maxWords: 100,
      });
      const single = planner.planSingleRequest();
      if (single !== undefined) return [{ request: single, start: 0 }];
      const requests: { request: PlannedRequest; start: number }[] = [];
      let start = 0;
      let previous: string | undefined;
      while (start < messages.length || previous === undefined) {
        const request = planner.planChunk(start, previous);
        expect(request.end).toBeGreaterThan(start); // progress
        requests.push({ request, start });
        previous = reply;
        start = request.end;
      }
      return requests;
    }

    it("'o200k_base' counts message by message, and the sum is the prompt's count, never above inputMaxTokens", () => {
      fc.assert(
        fc.property(
          fc.array(message, { maxLength: 14 }),
          fc.integer({ min: 1_700, max: 6_000 }),
          fc.boolean(),
          (messages, inputMaxTokens, counted) => {
            // a history the agent loop counted (cached counts) or one never counted
            if (counted) countHistoryTokens(messages, { tokenCounter: counter });
            const requests = planAll(messages, inputMaxTokens, 'S');
            for (const { request } of requests) {
              expect(request.tokens).toBe(counter.count(request.prompt));
              expect(request.tokens).toBeLessThanOrEqual(inputMaxTokens);
            }
            expect(requests.at(-1)?.request.end).toBe(messages.length);
          },
        ),
        { numRuns: 150 },
      );
    });

    it('plans the same requests yielding, counting no text over a few thousand characters at once', async () => {
      const long = (seed: string, words: number): string =>
        Array.from({ length: words }, (_, index) => `${seed}${(index * 7919) % 1000}`).join(' ');
      const messages: Message[] = [
        { role: 'user', content: long('task', 1_500) },
        ...toolExchange('t1', long('log', 6_000)),
        { role: 'assistant', content: long('plan', 900) },
        ...toolExchange('t2', long('diff', 3_000)),
        { role: 'user', content: 'Go on.' },
      ];
      for (const inputMaxTokens of [2_500, 9_000, 40_000, 200_000]) {
        const expected = planAll(messages, inputMaxTokens, 'S');
        const longestCounted: number[] = [];
        const planner = createRequestPlanner(messages, {
          tokenCounter: {
            count(text) {
              longestCounted.push(text.length);
              return counter.count(text);
            },
          },
          tokenCounterEncoding: 'o200k_base',
          inputMaxTokens,
          maxWords: 100,
          deferLongCounts: true,
        });
        const state = { yieldToLoop: () => new Promise<void>((resolve) => setImmediate(resolve)), charsSinceYield: 0 };
        const single = await planner.planSingleRequestYielding(state);
        const actual: { request: PlannedRequest; start: number }[] = [];
        if (single !== undefined) actual.push({ request: single, start: 0 });
        else {
          let start = 0;
          let previous: string | undefined;
          while (start < messages.length || previous === undefined) {
            const request = await planner.planChunkYielding(start, previous, state);
            actual.push({ request, start });
            previous = 'S';
            start = request.end;
          }
        }
        expect(actual).toEqual(expected);
        expect(Math.max(...longestCounted)).toBeLessThanOrEqual(CHARS_COUNTED_BETWEEN_YIELDS);
      }
    });

    it('counting whole: sends the whole prompt when it fits, tokenizing a counted history no more than the prompt once', async () => {
      const fake = createFakeClient();
      const messages: Message[] = [
        { role: 'user', content: 'Fix the failing test' },
        ...toolExchange('t1', 'FAIL src/a.test.ts\\n  expected 1, got 2\\n'),
        { role: 'assistant', content: 'Fixed.' },
      ];
      let countedChars = 0;
      const countingCounter: TokenCounter = {
        count: (value) => {
          countedChars += value.length;
          return counter.count(value);
        },
      };
      countHistoryTokens(messages, { tokenCounter: countingCounter }); // the agent loop's count
      const templates =
        buildSummaryPrompt('', { maxWords: 1 }).length + buildSummaryPrompt('', { maxWords: 100 }).length;
      const before = countedChars;
      await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: countingCounter }).summarize(messages, {
        maxWords: 100,
      });
      const prompt = buildSummaryPrompt(renderMessagesForSummary(messages), { maxWords: 100 });
      expect(fake.calls[0]?.prompt).toBe(prompt);
      // the minimum-size checks count the prompt's instructions once each; the rest is the prompt, once
      expect(countedChars - before).toBe(prompt.length + templates);
    });

    it.each([
      ['counting whole', 'unknown' as const],
      ["'o200k_base', message by message", 'o200k_base' as const],
    ])(
      '%s: every prompt fits, and every message is sent once, in order, whole, cut or in chunks',
      async (_, tokenCounterEncoding) => {
        const messages: Message[] = [
          { role: 'user', content: 'Fix the failing test 修复测试' },
          ...toolExchange('t1', `FAIL ${'x y '.repeat(15_000)}`),
          ...Array.from({ length: 40 }, (_, index) =>
            toolExchange(`t${index + 2}`, `export const a${index} = 1; // 中文\n`.repeat(30)),
          ).flat(),
        ];
        // whole in one request, cut to fit one request, in chunks
        for (const [inputMaxTokens, cut, chunked] of [
          [100_000, false, false],
          [25_000, true, false],
          [3_000, true, true],
        ] as const) {
          const fake = createFakeClient(['S']);
          await createLlmSummarizer(fake.client, {
            model: 'm',
            inputMaxTokens,
            tokenCounter: counter,
            tokenCounterEncoding,
          }).summarize(messages, { maxWords: 100 });
          for (const call of fake.calls) expect(counter.count(call.prompt)).toBeLessThanOrEqual(inputMaxTokens);
          const seen = fake.calls.flatMap((call) =>
            [...call.prompt.matchAll(/^\[(\d+)\] (?:user|assistant):$/gm)].map((match) => Number(match[1])),
          );
          expect(seen).toEqual(messages.map((__, index) => index + 1));
          expect(fake.calls.length > 1).toBe(chunked);
          expect(fake.calls.some((call) => call.prompt.includes(' chars cut ...]'))).toBe(cut);
        }
      },
    );

    it('never counts the same long text twice while trying prompts around a user message no prompt may cut', async () => {
      const fake = createFakeClient(['S']);
      const counted: string[] = [];
      const recording: TokenCounter = {
        count: (text) => {
          counted.push(text);
          return counter.count(text);
        },
      };
      const pasted = 'aGVsbG8gd29ybGQ/'.repeat(20_000); // 320,000 characters a prompt cannot cut
      const messages: Message[] = [
        { role: 'user', content: `Look at this: ${pasted}` },
        ...toolExchange('t1', 'x y '.repeat(5_000)),
      ];
      await createLlmSummarizer(fake.client, {
        model: 'm',
        inputMaxTokens: 20_000,
        tokenCounter: recording,
        tokenCounterEncoding: 'o200k_base',
      }).summarize(messages, { maxWords: 100 });
      const long = counted.filter((text) => text.length > 100_000);
      expect(long.length).toBeGreaterThan(0);
      expect(new Set(long).size).toBe(long.length);
    });

    it('summarizes a long history in full chunks, sending every message once, in order', async () => {
      const messages: Message[] = Array.from({ length: 300 }, (_, index) =>
        index % 2 === 0
          ? {
              role: 'assistant',
              content: [
                { type: 'tool_use', id: `toolu_${index}`, name: 'bash', input: { command: `ls src/${index}` } },
              ],
            }
          : {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: `toolu_${index - 1}`,
                  content: `MESSAGE-${index}\n${'export const a = 1;\n'.repeat(40)}`,
                },
              ],
            },
      );
      countHistoryTokens(messages, { tokenCounter: counter });
      const fake = createFakeClient(Array.from({ length: 50 }, (_, index) => `SUMMARY-${index + 1}`));
      const inputMaxTokens = 8_000;
      const summary = await createLlmSummarizer(fake.client, {
        model: 'm',
        inputMaxTokens,
        tokenCounter: counter,
        tokenCounterEncoding: 'o200k_base',
      }).summarize(messages, { maxWords: 200 });
      expect(fake.calls.length).toBeGreaterThan(3);
      expect(summary).toBe(`SUMMARY-${fake.calls.length}`);
      const seen = fake.calls.flatMap((call) =>
        [...call.prompt.matchAll(/MESSAGE-(\d+)\n/g)].map((match) => Number(match[1])),
      );
      expect(seen).toEqual(messages.flatMap((_, index) => (index % 2 === 1 ? [index] : [])));
      for (const call of fake.calls) {
        const tokens = counter.count(call.prompt);
        expect(tokens).toBeLessThanOrEqual(inputMaxTokens);
        if (call !== fake.calls.at(-1)) expect(tokens).toBeGreaterThan(inputMaxTokens * 0.9);
      }
    });
  });

  describe('failures', () => {
    it('rejects a blank reply with a SummarizerFailedError, code SUMMARIZER_FAILED: empty content is a failed call', async () => {
      const fake = createFakeClient([' \n ']);
      const promise = createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter }).summarize(
        [{ role: 'user', content: 'hi' }],
        {
          maxWords: 100,
        },
      );
      await expect(promise).rejects.toBeInstanceOf(SummarizerFailedError);
      await expect(promise).rejects.toBeInstanceOf(ContextError);
      await expect(promise).rejects.toMatchObject({
        code: 'SUMMARIZER_FAILED',
        message: expect.stringContaining('blank summary'),
      });
    });

    it('rejects when an intermediate chunk reply is blank, without sending later chunks', async () => {
      const fake = createFakeClient(['first', '']);
      const messages: Message[] = Array.from({ length: 40 }, (_, index) => ({
        role: 'user',
        content: `M${index} ${'w '.repeat(2_000)}`,
      }));
      const promise = createLlmSummarizer(fake.client, {
        model: 'm',
        inputMaxTokens: 4_000,
        tokenCounter: quarterCounter,
      }).summarize(messages, {
        maxWords: 100,
      });
      await expect(promise).rejects.toMatchObject({
        code: 'SUMMARIZER_FAILED',
        message: expect.stringContaining('chunk 2'),
      });
      expect(fake.calls).toHaveLength(2);
    });

    it('lets the client error through unchanged (the retry reads its retryAfterMs)', async () => {
      const failure = Object.assign(new Error('overloaded'), { status: 529, retryAfterMs: 1500 });
      const fake = createFakeClient([failure]);
      const promise = createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter }).summarize(
        [{ role: 'user', content: 'hi' }],
        {
          maxWords: 100,
        },
      );
      await expect(promise).rejects.toBe(failure);
    });

    it('rejects with the abort reason before calling the client when the signal is already aborted', async () => {
      const fake = createFakeClient();
      const controller = new AbortController();
      const reason = new Error('stop');
      controller.abort(reason);
      const promise = createLlmSummarizer(fake.client, { model: 'm', tokenCounter: quarterCounter }).summarize(
        [{ role: 'user', content: 'hi' }],
        {
          maxWords: 100,
          signal: controller.signal,
        },
      );
      await expect(promise).rejects.toBe(reason);
      expect(fake.calls).toHaveLength(0);
    });

    it('stops between chunks when the signal aborts', async () => {
      const controller = new AbortController();
      const reason = new Error('stop');
      const client: LlmClient = {
        summarize: async () => {
          controller.abort(reason);
          return 'partial';
        },
      };
      const messages: Message[] = Array.from({ length: 40 }, (_, index) => ({
        role: 'user',
        content: `M${index} ${'w '.repeat(2_000)}`,
      }));
      const promise = createLlmSummarizer(client, {
        model: 'm',
        inputMaxTokens: 4_000,
        tokenCounter: quarterCounter,
      }).summarize(messages, {
        maxWords: 100,
        signal: controller.signal,
      });
      await expect(promise).rejects.toBe(reason);
    });
  });

  describe('validation', () => {
    const client = createFakeClient().client;

    it('rejects an inputMaxTokens too small for any prompt at creation, naming the option, the minimum and the value', () => {
      const minimum = computeMinSummaryInputTokens(1, quarterCounter);
      expect(() =>
        createLlmSummarizer(client, { model: 'm', inputMaxTokens: 500, tokenCounter: quarterCounter }),
      ).toThrow(InvalidOptionError);
      expect(() =>
        createLlmSummarizer(client, { model: 'm', inputMaxTokens: 500, tokenCounter: quarterCounter }),
      ).toThrow(
        new RegExp(
          `^inputMaxTokens must be at least ${minimum} \\(the summary prompt's instructions take ${minimum - MIN_SUMMARY_CONVERSATION_TOKENS} tokens, plus 1000 for the conversation\\), got 500$`,
        ),
      );
      expect(() =>
        createLlmSummarizer(client, { model: 'm', inputMaxTokens: minimum - 1, tokenCounter: quarterCounter }),
      ).toThrow(/at least/);
      expect(() =>
        createLlmSummarizer(client, { model: 'm', inputMaxTokens: minimum, tokenCounter: quarterCounter }),
      ).not.toThrow();
    });

    it('rejects from summarize an inputMaxTokens too small for the prompt of that maxWords, saying the minimum', async () => {
      // a 7-digit word budget makes the prompt longer than the 1-word one checked at creation
      const inputMaxTokens = computeMinSummaryInputTokens(1, quarterCounter);
      const minimum = computeMinSummaryInputTokens(1_000_000, quarterCounter);
      expect(minimum).toBeGreaterThan(inputMaxTokens);
      const summarizer = createLlmSummarizer(client, { model: 'm', inputMaxTokens, tokenCounter: quarterCounter });
      const promise = summarizer.summarize([{ role: 'user', content: 'hi' }], { maxWords: 1_000_000 });
      await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(promise).rejects.toThrow(
        new RegExp(`^inputMaxTokens must be at least ${minimum} .*got ${inputMaxTokens}$`),
      );
    });

    it('computeMinSummaryInputTokens is the prompt with an empty conversation plus MIN_SUMMARY_CONVERSATION_TOKENS (1,430 for 1,200 words with o200k_base)', () => {
      expect(computeMinSummaryInputTokens(1200, quarterCounter)).toBe(
        quarterCounter.count(buildSummaryPrompt('', { maxWords: 1200 })) + 1000,
      );
      expect(computeMinSummaryInputTokens(1200, defaultTokenCounter)).toBe(1430);
    });

    it.each([
      [{ model: '', tokenCounter: quarterCounter }, /^model must be a non-empty string/],
      [
        { model: 'm', tokenCounter: quarterCounter, inputMaxTokens: 0 },
        /^inputMaxTokens must be an integer >= 1, got 0$/,
      ],
      [{ model: 'm', tokenCounter: quarterCounter, maxTokens: 1.5 }, /^maxTokens must be an integer >= 1, got 1.5$/],
      [{ model: 'm', tokenCounter: {} as TokenCounter }, /^tokenCounter must be an object with a count\(text\) method/],
      [
        { model: 'm', tokenCounter: quarterCounter, tokenCounterEncoding: 'cl100k_base' as 'o200k_base' },
        /^tokenCounterEncoding must be one of 'unknown', 'o200k_base', got "cl100k_base"$/,
      ],
    ])('rejects bad options at creation: %o', (options, message) => {
      expect(() => createLlmSummarizer(client, options)).toThrow(message);
    });

    it('rejects a bad maxWords, naming it', async () => {
      const summarizer = createLlmSummarizer(client, { model: 'm', tokenCounter: quarterCounter });
      await expect(summarizer.summarize([], { maxWords: 0 })).rejects.toThrow(
        /^maxWords must be an integer >= 1, got 0$/,
      );
    });
  });
});

describe("the counter's encoding decides how a prompt is counted", () => {
  const messages: Message[] = [
    { role: 'user', content: 'Fix the failing test.' },
    ...toolExchange('t1', 'FAIL tests/a.test.ts\n'.repeat(20)),
  ];

  /** The default counter's counts, with every text it is asked about recorded; named `encoding` when given. */
  function createRecordingCounter(encoding?: string): TokenCounter & { texts: string[] } {
    const texts: string[] = [];
    const count = (text: string): number => (texts.push(text), defaultTokenCounter.count(text));
    return encoding === undefined ? { texts, count } : { texts, count, encoding };
  }

  it("counts each prompt message by message when tokenCounter.encoding is 'o200k_base'", async () => {
    const counter = createRecordingCounter('o200k_base');
    const fake = createFakeClient(['S']);
    await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: counter }).summarize(messages, {
      maxWords: 100,
    });
    expect(counter.texts).not.toContain(fake.calls[0]?.prompt);
  });

  it('counts each prompt whole when the counter names no encoding', async () => {
    const counter = createRecordingCounter();
    const fake = createFakeClient(['S']);
    await createLlmSummarizer(fake.client, { model: 'm', tokenCounter: counter }).summarize(messages, {
      maxWords: 100,
    });
    expect(counter.texts).toContain(fake.calls[0]?.prompt);
  });

  it('lets tokenCounterEncoding overrule the counter', async () => {
    const counter = createRecordingCounter('o200k_base');
    const fake = createFakeClient(['S']);
    await createLlmSummarizer(fake.client, {
      model: 'm',
      tokenCounter: counter,
      tokenCounterEncoding: 'unknown',
    }).summarize(messages, { maxWords: 100 });
    expect(counter.texts).toContain(fake.calls[0]?.prompt);
  });
});
