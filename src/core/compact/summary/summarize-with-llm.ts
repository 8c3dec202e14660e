/**
 * The LLM-backed summarizer: renders Rest, builds the summary prompt, keeps every request within
 * the summarizer's own window (`summary-input.ts`: each prompt is counted before it is sent)
 * and sends it through the {@link LlmClient} port, chunk after chunk when Rest is too large
 * for one request.
 *
 * The `compact/summary` folder: the summary of a compaction.
 * - `summarize-with-llm.ts`: the LLM summarizer (this file); `summarize-reusing-prefix.ts`: the
 *   one that reuses the conversation's cached prefix; `extractive-summarizer.ts`: the offline one.
 * - `summary-prompt.ts`, `summary-input.ts`, `summary-budget.ts`: the prompt, its sizing, the
 *   summary's budget.
 * - `ledger.ts`: the facts every summary carries whoever wrote it, read off the history by
 *   `conversation-facts.ts`, `user-requests.ts`, `last-error.ts`, `error-lines.ts`,
 *   `input-gist.ts`, `extractive-failures.ts`, `offload-index.ts`; `reference-reader.ts`: how the
 *   summary's reader opens a reference.
 */
import { raceWithSignal } from '../../abort.js';
import { DEFAULT_SUMMARY_INPUT_MAX_TOKENS } from '../../options/defaults.js';
import { requireString } from '../../options/env.js';
import { describeValue, InvalidOptionError, SummarizerFailedError } from '../../errors.js';
import type {
  LlmClient,
  LlmSummarizeOptions,
  LlmUsage,
  Summarizer,
  SummarizerOptions,
  TokenCounter,
} from '../../ports.js';
import type { Message } from '../../types.js';
import type { YieldingCount } from '../../text/tokens.js';
import {
  computeMinSummaryInputTokens,
  createRequestPlanner,
  MIN_SUMMARY_CONVERSATION_TOKENS,
  type TokenCounterEncoding,
} from './summary-input.js';

export {
  computeMinSummaryInputTokens,
  MIN_KEPT_BLOCK_CHARS,
  MIN_SUMMARY_CONVERSATION_TOKENS,
} from './summary-input.js';
export type { TokenCounterEncoding } from './summary-input.js';

const TOKEN_COUNTER_ENCODINGS: readonly TokenCounterEncoding[] = ['unknown', 'o200k_base'];

/** Options of {@link createLlmSummarizer}. */
export interface CreateLlmSummarizerOptions {
  /** Model that writes the summary, passed to {@link LlmClient.summarize}. */
  model: string;
  /**
   * Largest prompt sent in one request, in tokens as `tokenCounter` counts them (the prompt's
   * instructions included). Leave room for the reply and for the difference between this
   * counter and the provider's tokenizer.
   * @default 100000 ({@link DEFAULT_SUMMARY_INPUT_MAX_TOKENS})
   */
  inputMaxTokens?: number | undefined;
  /** Counts the tokens of each prompt before it is sent. */
  tokenCounter: TokenCounter;
  /**
   * What `tokenCounter` is known to implement. With `'o200k_base'` (what the package's default
   * counter says in its `encoding`) each prompt is counted message by message:
   * the messages are joined by line breaks before a `[`, where o200k_base always ends a
   * pre-token, so the counts add up to the prompt's, and a long history is tokenized once
   * rather than once per attempt, as short strings (much faster than one long prompt with any
   * non-Latin character in it). Any other counter (cl100k_base, tiktoken, a wrapper that
   * changes counts) must not claim it: `'unknown'` counts each prompt whole.
   * @default `'o200k_base'` when `tokenCounter.encoding` is `'o200k_base'`, else `'unknown'`
   */
  tokenCounterEncoding?: TokenCounterEncoding | undefined;
  /**
   * Upper bound of each reply, in tokens.
   * @default computeSummaryMaxTokens(maxWords): 3 tokens per word plus 256
   */
  maxTokens?: number | undefined;
  /**
   * Called with the token usage of each reply, when the client reports it (the package's
   * Anthropic and OpenAI clients do): how much of the input was read from or written to the
   * provider's prompt cache.
   * @default undefined
   */
  onUsage?: ((usage: LlmUsage) => void) | undefined;
  /**
   * Lets the event loop run (a macrotask, such as `setImmediate`). With it, each text longer
   * than a few thousand characters that sizing a prompt needs is counted in parts with a yield
   * between them, before the planning that uses the counts: a megabyte message does not hold the
   * loop while the prompt is sized. The prompts are the same (for the default counter).
   * @default undefined (counted at once)
   */
  yieldToLoop?: (() => Promise<void>) | undefined;
}

/**
 * The reply budget for a summary of `maxWords` words: `3 × maxWords + 256` tokens. English
 * prose takes about 1.3 tokens per word and a CJK character 1 to 1.5, but summaries are dense
 * with paths, identifiers and commands (several tokens each) and Markdown; a reply cut by
 * `max_tokens` loses its last sections, Task Status among them, so the ceiling is generous —
 * the prompt's word budget, not this ceiling, keeps the summary short.
 *
 * @example
 * ```ts
 * computeSummaryMaxTokens(1200); // 3856
 * ```
 */
export function computeSummaryMaxTokens(maxWords: number): number {
  return Math.ceil(maxWords * 3) + 256;
}

/**
 * Creates a {@link Summarizer} that asks an LLM for the structured summary (five sections).
 *
 * Each request's prompt stays within `inputMaxTokens`, as `tokenCounter` counts the prompt's
 * text: Rest whole when it fits; else long tool results, tool inputs and thinking cut in the
 * middle (never below 2,000 characters, with a marker such as `[... 41,233 chars cut ...]`);
 * else Rest in sequential chunks, each prompt carrying the summary so far. Compaction therefore
 * never fails because the history is too large.
 *
 * A blank reply (empty or whitespace) rejects with a {@link SummarizerFailedError} (code
 * `SUMMARIZER_FAILED`): an empty reply counts as a failed call; the reply is
 * otherwise returned trimmed. Errors of the client (network, rate limit, abort) propagate
 * unchanged, so a retry can read their `retryAfterMs`.
 *
 * @throws {@link InvalidOptionError} at creation when `model` is not a non-empty string,
 * `inputMaxTokens` or `maxTokens` is not a positive integer, `tokenCounter` has no `count`,
 * `tokenCounterEncoding` is not one of {@link TokenCounterEncoding}, or `inputMaxTokens` is too
 * small for any summary (below `computeMinSummaryInputTokens(1, tokenCounter)`, the shortest
 * prompt); from `summarize` when `maxWords` is not a positive integer or `inputMaxTokens` is
 * below {@link computeMinSummaryInputTokens} of that `maxWords` (a few tokens more).
 *
 * @example
 * ```ts
 * const summarizer = createLlmSummarizer(await createAnthropicLlmClient(), {
 *   model: 'claude-haiku-4-5-20251001',
 *   tokenCounter: defaultTokenCounter,
 *   tokenCounterEncoding: 'o200k_base', // counted message by message
 * });
 * const summary = await summarizer.summarize(rest, { maxWords: 1200 });
 * ```
 */
export function createLlmSummarizer(client: LlmClient, options: CreateLlmSummarizerOptions): Summarizer {
  const model = requireString('model', options.model);
  const inputMaxTokens = options.inputMaxTokens ?? DEFAULT_SUMMARY_INPUT_MAX_TOKENS;
  requirePositiveInteger('inputMaxTokens', inputMaxTokens);
  if (options.maxTokens !== undefined) requirePositiveInteger('maxTokens', options.maxTokens);
  const tokenCounter = options.tokenCounter;
  if (typeof tokenCounter?.count !== 'function') {
    throw new InvalidOptionError(
      `tokenCounter must be an object with a count(text) method, got ${describeValue(tokenCounter)}`,
    );
  }
  const encoding = options.tokenCounterEncoding ?? (tokenCounter.encoding === 'o200k_base' ? 'o200k_base' : 'unknown');
  if (!TOKEN_COUNTER_ENCODINGS.includes(encoding)) {
    throw new InvalidOptionError(
      `tokenCounterEncoding must be one of ${TOKEN_COUNTER_ENCODINGS.map((name) => `'${name}'`).join(', ')}, got ${describeValue(encoding)}`,
    );
  }
  if (typeof client?.summarize !== 'function') {
    throw new InvalidOptionError(
      `client must be an LlmClient with a summarize(prompt, model) method, got ${describeValue(client)}`,
    );
  }
  const { onUsage, yieldToLoop } = options;
  if (yieldToLoop !== undefined && typeof yieldToLoop !== 'function') {
    throw new InvalidOptionError(`yieldToLoop must be a function, got ${describeValue(yieldToLoop)}`);
  }
  if (onUsage !== undefined && typeof onUsage !== 'function') {
    throw new InvalidOptionError(`onUsage must be a function, got ${describeValue(onUsage)}`);
  }
  // too small for even the shortest prompt (a 1-word budget): fail now, not at every summary
  const minimum = computeMinSummaryInputTokens(1, tokenCounter);
  if (inputMaxTokens < minimum) {
    throw new InvalidOptionError(
      `inputMaxTokens must be at least ${minimum} (the summary prompt's instructions take ${minimum - MIN_SUMMARY_CONVERSATION_TOKENS} tokens, plus ${MIN_SUMMARY_CONVERSATION_TOKENS} for the conversation), got ${inputMaxTokens}`,
    );
  }

  return {
    async summarize(messages: readonly Message[], summarizeOptions: SummarizerOptions): Promise<string> {
      const { maxWords, signal } = summarizeOptions;
      requirePositiveInteger('maxWords', maxWords);
      signal?.throwIfAborted();
      const planner = createRequestPlanner(messages, {
        tokenCounter,
        tokenCounterEncoding: encoding,
        inputMaxTokens,
        maxWords,
        deferLongCounts: yieldToLoop !== undefined,
      });
      const state: YieldingCount | undefined =
        yieldToLoop === undefined ? undefined : { yieldToLoop, charsSinceYield: 0, signal };
      const requestOptions: LlmSummarizeOptions = { maxTokens: options.maxTokens ?? computeSummaryMaxTokens(maxWords) };
      if (signal !== undefined) requestOptions.signal = signal;
      if (onUsage !== undefined) requestOptions.onUsage = onUsage;
      const send = async (prompt: string, label: string): Promise<string> => {
        signal?.throwIfAborted();
        // raced: a client that ignores the signal cannot hold the abort up
        const reply = await raceWithSignal((async () => client.summarize(prompt, model, requestOptions))(), signal);
        return requireSummaryText(reply, `model ${JSON.stringify(model)}, ${label}`);
      };

      const single = state === undefined ? planner.planSingleRequest() : await planner.planSingleRequestYielding(state);
      if (single !== undefined) return send(single.prompt, 'one request');

      let summary: string | undefined;
      let start = 0;
      let chunk = 0;
      // sequential on purpose: each chunk's prompt carries the summary of all chunks before it
      while (start < messages.length || summary === undefined) {
        chunk += 1;
        const next =
          state === undefined
            ? planner.planChunk(start, summary)
            : await planner.planChunkYielding(start, summary, state);
        summary = await send(next.prompt, `chunk ${chunk}`);
        start = next.end;
      }
      return summary;
    },
  };
}

/** Sums the usage of several LLM replies: `add` is an `onUsage` callback, `total` the sum so far (`undefined` before any). */
export interface UsageTotal {
  add: (usage: LlmUsage) => void;
  total: () => LlmUsage | undefined;
}

/** Creates a {@link UsageTotal}: what the summary requests of one compaction cost. */
export function createUsageTotal(): UsageTotal {
  let sum: LlmUsage | undefined;
  return {
    add(usage) {
      sum = {
        inputTokens: (sum?.inputTokens ?? 0) + usage.inputTokens,
        cacheReadInputTokens: (sum?.cacheReadInputTokens ?? 0) + usage.cacheReadInputTokens,
        cacheCreationInputTokens: (sum?.cacheCreationInputTokens ?? 0) + usage.cacheCreationInputTokens,
        outputTokens: (sum?.outputTokens ?? 0) + usage.outputTokens,
        requestCount: (sum?.requestCount ?? 0) + usage.requestCount,
      };
    },
    total: () => sum,
  };
}

/**
 * The reply trimmed; a blank one (or not a string) rejects with a {@link SummarizerFailedError}
 * whose message ends with `context` (which model, which request).
 */
export function requireSummaryText(reply: unknown, context: string): string {
  if (typeof reply !== 'string' || reply.trim() === '') {
    throw new SummarizerFailedError(`The LLM returned a blank summary (${context})`);
  }
  return reply.trim();
}

/** Throws {@link InvalidOptionError} naming `name` unless `value` is an integer >= 1. */
export function requirePositiveInteger(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(`${name} must be an integer >= 1, got ${describeValue(value)}`);
  }
}
