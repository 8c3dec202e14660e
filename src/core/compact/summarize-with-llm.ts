/**
 * The LLM-backed summarizer (spec 05 F-004, DESIGN §6 "Who writes the summary"): renders Rest,
 * builds the prompt, keeps every request within the summarizer's own window, and sends it
 * through the {@link LlmClient} port.
 *
 * How the text is made to fit `inputMaxTokens` (counted with the given {@link TokenCounter},
 * prompt included):
 * 1. Rest whole, when it fits.
 * 2. Else the cuttable parts (tool results, tool inputs, thinking) are cut in the middle to the
 *    longest length that lets Rest fit in one request, with a marker such as
 *    `[... 41,233 chars cut ...]`, but never below {@link MIN_KEPT_BLOCK_CHARS}.
 * 3. Else Rest (cut to that floor) is sent in sequential chunks of whole messages: each chunk's
 *    prompt carries the summary so far, and the last reply is the summary. A single message too
 *    large for a request on its own is cut in the middle.
 */
import { DEFAULT_SUMMARY_INPUT_MAX_TOKENS } from '../defaults.js';
import { requireString } from '../env.js';
import { ContextError, describeValue, InvalidOptionError } from '../errors.js';
import type { LlmClient, Summarizer, SummarizerOptions, TokenCounter } from '../ports.js';
import type { Message } from '../types.js';
import {
  buildSummaryPrompt,
  cutTextInMiddle,
  joinMessageParts,
  MESSAGE_SEPARATOR,
  renderMessageParts,
  type RenderedPart,
} from './summary-prompt.js';

/**
 * Cuttable parts are never cut below this many characters to fit one request; a Rest still too
 * large at that length is summarized in chunks instead.
 */
export const MIN_KEPT_BLOCK_CHARS = 2_000;

/** Tokens the conversation must have room for in a request; a smaller `inputMaxTokens` is rejected. */
export const MIN_SUMMARY_CONVERSATION_TOKENS = 1_000;

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
  /** Counts the tokens of the prompt. */
  tokenCounter: TokenCounter;
  /**
   * Upper bound of each reply, in tokens.
   * @default computeSummaryMaxTokens(maxWords): 3 tokens per word plus 256
   */
  maxTokens?: number | undefined;
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
 * Creates a {@link Summarizer} that asks an LLM for spec 05's structured summary.
 *
 * Each request's prompt stays within `inputMaxTokens`: long tool results are cut in the middle
 * first, then Rest is summarized in sequential chunks (see the module comment), so compaction
 * never fails because the history is too large.
 *
 * A blank reply (empty or whitespace) rejects with a {@link ContextError} of code
 * `SUMMARIZER_FAILED`, as spec 05 F-004 treats an empty reply as a failed call; the reply is
 * otherwise returned trimmed. Errors of the client (network, rate limit, abort) propagate
 * unchanged, so a retry can read their `retryAfterMs`.
 *
 * @throws {@link InvalidOptionError} at creation when `model` is not a non-empty string,
 * `inputMaxTokens` or `maxTokens` is not a positive integer, or `tokenCounter` has no `count`;
 * from `summarize` when `maxWords` is not a positive integer or `inputMaxTokens` leaves less
 * than {@link MIN_SUMMARY_CONVERSATION_TOKENS} tokens for the conversation.
 *
 * @example
 * ```ts
 * const summarizer = createLlmSummarizer(await createAnthropicLlmClient(), {
 *   model: 'claude-haiku-4-5-20251001',
 *   tokenCounter: { count: estimateTokens },
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
    throw new InvalidOptionError(`tokenCounter must be an object with a count(text) method, got ${describeValue(tokenCounter)}`);
  }
  if (typeof client?.summarize !== 'function') {
    throw new InvalidOptionError(`client must be an LlmClient with a summarize(prompt, model) method, got ${describeValue(client)}`);
  }

  return {
    async summarize(messages: readonly Message[], summarizeOptions: SummarizerOptions): Promise<string> {
      const { maxWords, signal } = summarizeOptions;
      requirePositiveInteger('maxWords', maxWords);
      signal?.throwIfAborted();
      const planner = new RequestPlanner(tokenCounter, inputMaxTokens, maxWords);
      const maxTokens = options.maxTokens ?? computeSummaryMaxTokens(maxWords);
      const send = async (prompt: string, label: string): Promise<string> => {
        signal?.throwIfAborted();
        const reply = await client.summarize(prompt, model, signal === undefined ? { maxTokens } : { maxTokens, signal });
        if (typeof reply !== 'string' || reply.trim() === '') {
          throw new ContextError('SUMMARIZER_FAILED', `The LLM returned a blank summary (model ${JSON.stringify(model)}, ${label})`);
        }
        return reply.trim();
      };

      const rendered = renderMessageParts(messages);
      const single = planner.fitInOneRequest(rendered);
      if (single !== undefined) return send(single, 'one request');

      const pieces = rendered.map((parts) => joinMessageParts(parts, MIN_KEPT_BLOCK_CHARS));
      let summary: string | undefined;
      let start = 0;
      let chunk = 0;
      // sequential on purpose: each chunk's prompt carries the summary of all chunks before it
      while (start < pieces.length || summary === undefined) {
        chunk += 1;
        const next = planner.buildChunk(pieces, start, summary);
        summary = await send(next.prompt, `chunk ${chunk}`);
        start = next.end;
      }
      return summary;
    },
  };
}

/** Sizes prompts for one summary run; holds the counts it reuses. */
class RequestPlanner {
  private readonly separatorTokens: number;
  private readonly markerTokens: number;
  private readonly templateTokens: number;

  constructor(
    private readonly counter: TokenCounter,
    private readonly limit: number,
    private readonly maxWords: number,
  ) {
    this.templateTokens = counter.count(buildSummaryPrompt('', { maxWords }));
    this.separatorTokens = counter.count(MESSAGE_SEPARATOR);
    // a marker with a seven-digit figure, as large as any cut of a real history
    this.markerTokens = counter.count('\n[... 9,999,999 chars cut ...]\n');
    const minimum = this.templateTokens + MIN_SUMMARY_CONVERSATION_TOKENS;
    if (limit < minimum) {
      throw new InvalidOptionError(
        `inputMaxTokens must be at least ${minimum} (a ${maxWords}-word summary prompt takes ${this.templateTokens} tokens, plus room for the conversation), got ${limit}`,
      );
    }
  }

  /**
   * The prompt of a single request holding all of Rest, with cuttable parts cut as little as
   * needed; `undefined` when even cutting them to {@link MIN_KEPT_BLOCK_CHARS} is not enough.
   */
  fitInOneRequest(rendered: readonly (readonly RenderedPart[])[]): string | undefined {
    const sized = rendered.map((parts) => parts.map((part) => ({ ...part, tokens: this.counter.count(part.text) })));
    let fixedTokens = this.templateTokens;
    const cuttable: { length: number; tokens: number }[] = [];
    let longest = 0;
    for (const parts of sized) {
      fixedTokens += this.separatorTokens * parts.length; // joins between parts and messages
      for (const part of parts) {
        if (part.cuttable) {
          cuttable.push({ length: part.text.length, tokens: part.tokens });
          longest = Math.max(longest, part.text.length);
        } else {
          fixedTokens += part.tokens;
        }
      }
    }
    // estimated prompt size when cuttable parts keep at most `keep` chars: a cut part keeps
    // its share of tokens, plus the marker
    const estimate = (keep: number): number => {
      let total = fixedTokens;
      for (const part of cuttable) {
        total += part.length <= keep ? part.tokens : Math.ceil((part.tokens * keep) / part.length) + this.markerTokens;
      }
      return total;
    };

    let target = this.limit;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const keep = estimate(longest) <= target ? Number.POSITIVE_INFINITY : this.findLongestKeep(estimate, target, longest);
      if (keep === undefined) return undefined;
      const prompt = buildSummaryPrompt(
        rendered.map((parts) => joinMessageParts(parts, keep)).join(MESSAGE_SEPARATOR),
        { maxWords: this.maxWords },
      );
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return prompt;
      // the estimate was optimistic (token boundaries, cut parts denser than average): aim lower
      target -= tokens - this.limit + this.markerTokens;
    }
    return undefined;
  }

  /** Largest keep length in [MIN_KEPT_BLOCK_CHARS, longest] whose estimate fits `target`. */
  private findLongestKeep(estimate: (keep: number) => number, target: number, longest: number): number | undefined {
    if (estimate(MIN_KEPT_BLOCK_CHARS) > target) return undefined;
    let low = MIN_KEPT_BLOCK_CHARS; // fits
    let high = longest; // does not fit
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (estimate(middle) <= target) low = middle;
      else high = middle;
    }
    return low;
  }

  /**
   * The prompt for the chunk of `pieces` that starts at `start`, carrying `previousSummary`,
   * and the index after its last piece. Takes at least one piece (cut in the middle when it
   * is too large on its own), so every call makes progress.
   */
  buildChunk(pieces: readonly string[], start: number, previousSummary: string | undefined): { prompt: string; end: number } {
    // the summary so far may take at most half of the room left by the instructions, so a
    // chunk always has room for conversation
    const carried =
      previousSummary === undefined
        ? undefined
        : fitTextToTokens(previousSummary, Math.floor((this.limit - this.templateTokens) / 2), this.counter);
    const build = (text: string): string =>
      buildSummaryPrompt(text, carried === undefined ? { maxWords: this.maxWords } : { maxWords: this.maxWords, previousSummary: carried });
    const budget = this.limit - this.counter.count(build(''));

    const pieceTokens: number[] = [];
    let end = start;
    let used = 0;
    while (end < pieces.length) {
      const tokens = this.counter.count(pieces[end] ?? '');
      const cost = tokens + (end > start ? this.separatorTokens : 0);
      if (end > start && used + cost > budget) break;
      pieceTokens.push(tokens);
      used += cost;
      end += 1;
      if (used > budget) break; // a first piece too large on its own is cut below
    }

    let single: string | undefined;
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const text = single ?? pieces.slice(start, end).join(MESSAGE_SEPARATOR);
      const prompt = build(text);
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return { prompt, end };
      const excess = tokens - this.limit;
      if (end - start > 1) {
        // drop trailing pieces worth at least the excess; they open the next chunk
        let dropped = 0;
        while (end - start > 1 && dropped < excess) {
          dropped += (pieceTokens.pop() ?? 0) + this.separatorTokens;
          end -= 1;
        }
        continue;
      }
      const current = single ?? pieces[start] ?? '';
      single = fitTextToTokens(current, Math.max(0, this.counter.count(current) - excess - this.markerTokens), this.counter);
    }
    // unreachable in practice (the loop above shrinks the text each time); an empty
    // conversation always fits, since the carried summary takes at most half the room
    return { prompt: build(''), end };
  }
}

/**
 * Cuts `text` in the middle until `counter` counts at most `maxTokens` tokens in it; `''`
 * when even a bare marker does not fit.
 */
function fitTextToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  let tokens = counter.count(text);
  if (tokens <= maxTokens) return text;
  let keep = text.length;
  for (let attempt = 0; attempt < 32; attempt += 1) {
    // shrink in proportion, with a margin, and always by at least one character
    keep = Math.min(keep - 1, Math.floor(keep * (maxTokens / tokens) * 0.95));
    if (keep <= 0) break;
    const candidate = cutTextInMiddle(text, keep);
    tokens = counter.count(candidate);
    if (tokens <= maxTokens) return candidate;
  }
  return '';
}

function requirePositiveInteger(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(`${name} must be an integer >= 1, got ${describeValue(value)}`);
  }
}
