import { describe, expect, it } from 'vitest';
import {
  CACHE_READ_RATIO,
  CACHE_WRITE_RATIO,
  measureRun,
  priceFirstWrites,
  priceWithCaching,
  PRICE_PER_MTOK,
  replayUnmanaged,
} from '../../../../bench/peers/measure-run.js';
import { normalizeMessages, type PeerTranscript } from '../../../../bench/peers/transcripts.js';
import { countTokens } from '../../../../src/api/tokens.js';
import type { Message } from '../../../../src/core/types.js';

const LOG = Array.from({ length: 40 }, (_, line) => `line ${line}: FAIL totals.test.ts expected 101 to be 102`).join(
  '\n',
);
const FILE = Array.from({ length: 40 }, (_, line) => `export const rate${line} = ${line / 100};`).join('\n');

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const task: Message = { role: 'user', content: 'Fix the totals test.' };
const runCall: Message = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'run1', name: 'run_command', input: { command: 'npm test' } }],
};
const runResult: Message = {
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 'run1', content: LOG, is_error: true }],
};
const readCall: Message = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'read1', name: 'read_file', input: { path: 'src/rates.ts' } }],
};
const readResult: Message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'read1', content: FILE }] };
const answer: Message = { role: 'assistant', content: 'Fixed.' };

/** Three requests: before runCall, before readCall, before the answer. */
const transcript: PeerTranscript = {
  name: 'test',
  messages: [system, task, runCall, runResult, readCall, readResult, answer],
  toolDefinitionTokens: 0,
};

function replaced(message: Message, text: string): Message {
  const [block] = message.content as [{ type: 'tool_result'; tool_use_id: string }];
  return { role: 'user', content: [{ ...block, content: text }] };
}

const price = (tokens: number, ratio: number): number => (tokens * ratio * PRICE_PER_MTOK) / 1_000_000;

describe('the peer benchmark: cost with caching', () => {
  it('prices the prefix shared with the previous request as cache reads and the rest as cache writes', () => {
    const first = [system, task];
    const second = [system, task, runCall, runResult];
    const expected =
      price(countTokens(first), CACHE_WRITE_RATIO) +
      price(countTokens(first), CACHE_READ_RATIO) +
      price(countTokens([runCall, runResult]), CACHE_WRITE_RATIO);
    expect(priceWithCaching([first, second], 0)).toBeCloseTo(expected, 12);
  });

  it('writes everything after the first message that differs', () => {
    const second = [system, { role: 'user', content: 'Fix the totals test, please.' } as Message, runCall];
    const expected =
      price(countTokens([system, task]), CACHE_WRITE_RATIO) +
      price(countTokens([system]), CACHE_READ_RATIO) +
      price(countTokens(second.slice(1)), CACHE_WRITE_RATIO);
    expect(priceWithCaching([[system, task], second], 0)).toBeCloseTo(expected, 12);
  });

  it('reads the tool definitions from the cache after the first request', () => {
    const withTools = priceWithCaching([[system], [system]], 100);
    const without = priceWithCaching([[system], [system]], 0);
    expect(withTools - without).toBeCloseTo(price(100, CACHE_WRITE_RATIO) + price(100, CACHE_READ_RATIO), 12);
  });
});

describe('the peer benchmark: the cost of writing each message once', () => {
  it('prices every message of the transcript once, as a cache write, with the tool definitions once', () => {
    const messages = [system, task, runCall, runResult, readCall, readResult];
    expect(priceFirstWrites(transcript)).toBeCloseTo(price(countTokens(messages), CACHE_WRITE_RATIO), 12);
    expect(priceFirstWrites({ ...transcript, toolDefinitionTokens: 50 }) - priceFirstWrites(transcript)).toBeCloseTo(
      price(50, CACHE_WRITE_RATIO),
      12,
    );
  });

  it('is below the unmanaged cost, which reads everything again at every request', () => {
    expect(priceFirstWrites(transcript)).toBeLessThan(
      measureRun(transcript, replayUnmanaged(transcript), 100_000).cachedCost,
    );
  });
});

describe('the peer benchmark: figures of a run', () => {
  it('counts the unmanaged transcript as every request sending everything before its answer', () => {
    const figures = measureRun(transcript, replayUnmanaged(transcript), 100_000);
    expect(figures.unmanagedTokens).toBe(
      countTokens([system, task]) +
        countTokens([system, task, runCall, runResult]) +
        countTokens([system, task, runCall, runResult, readCall, readResult]),
    );
    expect(figures.tokensSent).toBe(figures.unmanagedTokens);
    expect(figures).toMatchObject({ requests: 3, prefixChanges: 0, readBacks: 0, lostResults: 0, results: 2 });
  });

  it('counts requests larger than the window', () => {
    const window = countTokens([system, task, runCall, runResult]);
    expect(measureRun(transcript, replayUnmanaged(transcript), window).overWindow).toBe(1);
  });

  it('reads back a stored result the model never saw whole, in one more request carrying it', () => {
    const reference = replaced(runResult, '[Tool result offloaded to file: /store/run1.txt]');
    const requests = [
      [system, task],
      [system, task, runCall, reference],
      [system, task, runCall, reference, readCall, readResult],
    ];
    const figures = measureRun(transcript, { requests, storedTexts: [LOG] }, 100_000);
    expect(figures.readBacks).toBe(1);
    // the read-back request: the second request, then a read call and the log
    const floor = countTokens(requests[1] as Message[]) + countTokens([runResult]);
    expect(figures.readBackTokens).toBeGreaterThan(floor);
    expect(figures.readBackTokens).toBeLessThan(floor + 50);
    expect(figures.lostResults).toBe(0);
  });

  it('counts a result neither in the last context nor in the store as lost, and reads nothing back', () => {
    const cleared = replaced(runResult, '[cleared]');
    const requests = [
      [system, task],
      [system, task, runCall, runResult],
      [system, task, runCall, cleared, readCall, readResult],
    ];
    const figures = measureRun(transcript, { requests, storedTexts: [] }, 100_000);
    expect(figures).toMatchObject({ lostResults: 1, readBacks: 0, prefixChanges: 1 });
  });

  it('does not count a result the store holds as lost', () => {
    const cleared = replaced(runResult, '[cleared]');
    const requests = [
      [system, task],
      [system, task, runCall, runResult],
      [system, task, runCall, cleared, readCall, readResult],
    ];
    expect(
      measureRun(transcript, { requests, storedTexts: [`history: ${JSON.stringify(LOG)}`] }, 100_000).lostResults,
    ).toBe(0);
  });

  it('does not count a result of several text blocks as lost when the store joined them otherwise', () => {
    const blocks: Message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'run1',
          content: [
            { type: 'text', text: LOG },
            { type: 'text', text: FILE },
          ],
        },
      ],
    };
    const cleared = replaced(runResult, '[cleared]');
    const requests = [
      [system, task],
      [system, task, runCall, blocks],
      [system, task, runCall, cleared, readCall, readResult],
    ];
    const run = { ...transcript, messages: [system, task, runCall, blocks, readCall, readResult, answer] };
    expect(measureRun(run, { requests, storedTexts: [`${LOG}\n\n${FILE}`] }, 100_000).lostResults).toBe(0);
    expect(measureRun(run, { requests, storedTexts: [LOG] }, 100_000).lostResults).toBe(1);
  });

  it("scores eval's probes of the transcript on the last context, without the store's own kinds", () => {
    const summary: Message = { role: 'user', content: 'Summary: the agent ran the tests and read a file.' };
    const requests = [
      [system, task],
      [system, task, runCall, runResult],
      [system, summary, readCall, readResult],
    ];
    const figures = measureRun(transcript, { requests, storedTexts: [] }, 100_000);
    // the task, the latest request (the same), the last file read, the last error (a failed command is no last command)
    expect(figures.probesTotal).toBe(4);
    // the summary dropped the requests and the error; the read call is kept
    expect(figures.probesKept).toBe(1);
  });
});

describe('the peer benchmark: normal form', () => {
  it('splits a user message holding tool results into one message per result, its text apart', () => {
    const mixed: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'one' },
        { type: 'tool_result', tool_use_id: 'b', content: 'two' },
        { type: 'text', text: 'and carry on' },
      ],
    };
    expect(normalizeMessages([task, mixed])).toEqual([
      task,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'one' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'and carry on' }] },
    ]);
  });

  it('keeps the objects of messages already in normal form', () => {
    const [first, second] = normalizeMessages([task, runResult]);
    expect(first).toBe(task);
    expect(second).toBe(runResult);
  });
});
