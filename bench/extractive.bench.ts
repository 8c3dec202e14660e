/**
 * Extractive summarizer benchmark: the offline
 * summary of 100,000 agent messages (tool calls and results, failures, user requests) must
 * take under a second, and grow linearly: the same history cut to 10,000 messages is measured
 * in the same run. The floor is `JSON.stringify` of the messages: one pass over the input.
 */
import { createExtractiveSummarizer } from '../src/core/compact/summary/extractive-summarizer.js';
import { isToolResultBlock, isToolUseBlock, type Message } from '../src/core/types.js';
import { buildHistory } from './compact.bench.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';
import { createRandom } from '../tests/fixtures/random.js';

export const title = 'Extractive summarizer (offline fallback)';

const MESSAGE_COUNT = 100_000;
const SMALL_MESSAGE_COUNT = 10_000;
const MAX_WORDS = 1200;
/** A failing `bash` call's result opens with a test runner's output. */
const FAILURE_RATE = 0.25;
/** How often a new user request follows a tool result. */
const REQUEST_RATE = 0.02;

interface AgentHistory {
  messages: Message[];
  calls: number;
  failures: number;
  requests: number;
}

/**
 * `buildHistory`'s tool calls and results (one in ten a `read_file`, the rest `bash`), with a
 * quarter of the `bash` results turned into failures and a user request now and then, cut to
 * `messageCount` messages.
 */
function buildAgentHistory(messageCount: number): AgentHistory {
  const random = createRandom(23);
  const history: AgentHistory = { messages: [], calls: 0, failures: 0, requests: 0 };
  let lastToolName = '';
  for (const message of buildHistory(Math.ceil(messageCount / 2), 200, 23)) {
    if (history.messages.length === messageCount) break;
    const blocks = Array.isArray(message.content) ? message.content : [];
    const call = blocks.find(isToolUseBlock);
    const result = blocks.find(isToolResultBlock);
    if (call !== undefined) {
      history.calls += 1;
      lastToolName = call.name;
    }
    if (result === undefined) {
      history.messages.push(message);
      continue;
    }
    const failed = lastToolName === 'bash' && random() < FAILURE_RATE;
    if (failed) {
      history.failures += 1;
      const output = ` RUN  v3.2.4 /home/agent/app\n FAIL  tests/handler.test.ts > returns 200\nAssertionError: expected 500 to be 200\n${String(result.content)}`;
      history.messages.push({ role: 'user', content: [{ ...result, is_error: true, content: output }] });
    } else {
      history.messages.push(message);
    }
    if (random() < REQUEST_RATE && history.messages.length < messageCount) {
      history.requests += 1;
      history.messages.push({
        role: 'user',
        content: `Request ${history.requests}: now make the handler retry on timeouts, and keep the tests green.`,
      });
    }
  }
  return history;
}

const FLOOR = 'JSON.stringify(messages)';
const LARGE = 'summarize, 100,000 messages';
const SMALL = 'summarize, first 10,000 messages';

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const history = buildAgentHistory(MESSAGE_COUNT);
  const small = history.messages.slice(0, SMALL_MESSAGE_COUNT);
  const summarizer = createExtractiveSummarizer();
  const summary = await summarizer.summarize(history.messages, { maxWords: MAX_WORDS });
  // failures are at least the flagged ones: a result that prints an error line counts too
  const expected = `- ${history.calls} tool calls, `;
  if (history.messages.length !== MESSAGE_COUNT || !summary.includes(expected)) {
    throw new Error(`unexpected summary of ${history.messages.length} messages: no "${expected}" in\n${summary}`);
  }
  const medians = await measureMedians(
    {
      [FLOOR]: () => JSON.stringify(history.messages),
      [LARGE]: () => summarizer.summarize(history.messages, { maxWords: MAX_WORDS }),
      [SMALL]: () => summarizer.summarize(small, { maxWords: MAX_WORDS }),
    },
    { ...options, iterations: 10 },
  );
  const floorMs = medians[FLOOR] as number;
  const largeMs = medians[LARGE] as number;
  const smallMs = medians[SMALL] as number;
  const jsonChars = JSON.stringify(history.messages).length;
  const count = (value: number): string => value.toLocaleString('en-US');
  return [
    {
      name: `createExtractiveSummarizer().summarize, ${count(MESSAGE_COUNT)} messages, maxWords ${MAX_WORDS}`,
      medianMs: largeMs,
      baseline: { name: 'JSON.stringify of the messages', medianMs: floorMs },
      extra: `${count(history.calls)} tool calls, ${count(history.failures)} failed, ${count(history.requests)} requests; ${(jsonChars / 1e6).toFixed(1)}M JSON chars`,
      goal: '< 1 s',
      met: largeMs < 1000,
    },
    {
      name: `same, first ${count(SMALL_MESSAGE_COUNT)} messages (linear: 10x the messages, about 10x the time)`,
      medianMs: smallMs,
      extra: `100,000 messages took ${(largeMs / smallMs).toFixed(1)}x as long`,
      goal: '100,000 messages <= 15x the time of 10,000',
      met: largeMs <= 15 * smallMs,
    },
  ];
}
