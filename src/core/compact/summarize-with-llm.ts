/**
 * Over 500 lines: most of it predicts token counts of joined text from o200k's pre-tokenizer
 * rules; counting the prompt itself is to replace that machinery (it is the next step of the
 * open issue on the context manager), which will bring the file well under 500 lines.
 *
 * The LLM-backed summarizer: renders Rest,
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
 *
 * How prompts are sized depends on what the counter is known to be
 * ({@link CreateLlmSummarizerOptions.tokenCounterEncoding}): any counter is handled by counting
 * each prompt whole before it is sent ({@link CountingPlanner}); for o200k_base, a prompt's
 * count is the sum of the counts of its parts, so prompts are sized from the per-message counts
 * that `countTokens` caches, and whole prompts are tokenized only on the rare cutting paths
 * ({@link PartsPlanner}).
 */
import { raceWithSignal } from '../abort.js';
import { DEFAULT_SUMMARY_INPUT_MAX_TOKENS } from '../defaults.js';
import { requireString } from '../env.js';
import { describeValue, InvalidOptionError, SummarizerFailedError } from '../errors.js';
import type { LlmClient, Summarizer, SummarizerOptions, TokenCounter } from '../ports.js';
import { countMessageTokens, visitCountedTexts } from '../tokens.js';
import type { Message } from '../types.js';
import {
  buildSummaryPrompt,
  buildSummaryPromptFrame,
  createMessagePartsRenderer,
  cutTextInMiddle,
  joinMessageParts,
  MESSAGE_SEPARATOR,
  renderMessageParts,
  type RenderedPart,
  type SummaryPromptFrame,
} from './summary-prompt.js';

/**
 * Cuttable parts are never cut below this many characters to fit one request; a Rest still too
 * large at that length is summarized in chunks instead.
 */
export const MIN_KEPT_BLOCK_CHARS = 2_000;

/** Tokens the conversation must have room for in a request; a smaller `inputMaxTokens` is rejected. */
export const MIN_SUMMARY_CONVERSATION_TOKENS = 1_000;

// computeMinSummaryInputTokens, remembered per counter and word budget
const minimumsByCounter = new WeakMap<TokenCounter, Map<number, number>>();

/**
 * The smallest `inputMaxTokens` (compaction's `summaryInputMaxTokens`) that a summary of
 * `maxWords` words can work with: the summary prompt's instructions (the prompt with an empty
 * conversation) as `tokenCounter` counts them, plus {@link MIN_SUMMARY_CONVERSATION_TOKENS}.
 * Remembered per counter and `maxWords` (counters are treated as pure, as `countTokens` treats
 * them), so the check `compactMessages` makes at each call costs one lookup.
 *
 * @example
 * ```ts
 * computeMinSummaryInputTokens(1200, defaultTokenCounter); // 1383 with the current prompt
 * ```
 * @throws {@link InvalidOptionError} when `maxWords` is not a positive integer.
 */
export function computeMinSummaryInputTokens(maxWords: number, tokenCounter: TokenCounter): number {
  let byMaxWords = minimumsByCounter.get(tokenCounter);
  if (byMaxWords === undefined) {
    byMaxWords = new Map();
    minimumsByCounter.set(tokenCounter, byMaxWords);
  }
  let minimum = byMaxWords.get(maxWords);
  if (minimum === undefined) {
    minimum = tokenCounter.count(buildSummaryPrompt('', { maxWords })) + MIN_SUMMARY_CONVERSATION_TOKENS;
    byMaxWords.set(maxWords, minimum);
  }
  return minimum;
}

/**
 * What a {@link TokenCounter} is known to implement:
 * - `'unknown'`: any counter;
 * - `'o200k_base'`: the o200k_base encoding as `gpt-tokenizer` implements it (JavaScript's
 *   `\s`), with special tokens counted as plain text: the package's default counter
 *   (`defaultTokenCounter`, which `countTokens` uses).
 */
export type TokenCounterEncoding = 'unknown' | 'o200k_base';

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
  /** Counts the tokens of the prompt. */
  tokenCounter: TokenCounter;
  /**
   * What `tokenCounter` is known to implement. With `'o200k_base'` the summarizer relies on two
   * properties of that encoding: it splits text into pieces with o200k_base's pattern and
   * encodes each piece on its own (so the count of a text is the sum of the counts of its parts
   * cut where a piece must end: after a line break followed by a character other than
   * whitespace and `/`, and after a letter or digit followed by a character that is neither a
   * letter, a mark, a digit nor `'`), and it never counts more tokens than UTF-8 bytes. Prompts
   * are then sized from their parts and from the per-message counts cached by `countTokens`
   * (messages are treated as immutable, as there), instead of being tokenized whole: much
   * faster on a long Rest, and just as exact. Any other counter (cl100k_base, tiktoken, a
   * wrapper that changes counts) must keep the default.
   * @default 'unknown' (each prompt is counted whole before it is sent)
   */
  tokenCounterEncoding?: TokenCounterEncoding | undefined;
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
 * Creates a {@link Summarizer} that asks an LLM for the structured summary (five sections).
 *
 * Each request's prompt stays within `inputMaxTokens`: long tool results are cut in the middle
 * first, then Rest is summarized in sequential chunks (see the module comment), so compaction
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
 *   tokenCounterEncoding: 'o200k_base', // sized from the counts countTokens cached
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
  const encoding = options.tokenCounterEncoding ?? 'unknown';
  if (!TOKEN_COUNTER_ENCODINGS.includes(encoding)) {
    throw new InvalidOptionError(
      `tokenCounterEncoding must be one of ${TOKEN_COUNTER_ENCODINGS.map((name) => `'${name}'`).join(', ')}, got ${describeValue(encoding)}`,
    );
  }
  if (typeof client?.summarize !== 'function') {
    throw new InvalidOptionError(`client must be an LlmClient with a summarize(prompt, model) method, got ${describeValue(client)}`);
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
      const planner = createRequestPlanner(messages, { tokenCounter, inputMaxTokens, maxWords, tokenCounterEncoding: encoding });
      const maxTokens = options.maxTokens ?? computeSummaryMaxTokens(maxWords);
      const send = async (prompt: string, label: string): Promise<string> => {
        signal?.throwIfAborted();
        // raced: a client that ignores the signal cannot hold the abort up
        const reply = await raceWithSignal(
          (async () => client.summarize(prompt, model, signal === undefined ? { maxTokens } : { maxTokens, signal }))(),
          signal,
        );
        if (typeof reply !== 'string' || reply.trim() === '') {
          throw new SummarizerFailedError(`The LLM returned a blank summary (model ${JSON.stringify(model)}, ${label})`);
        }
        return reply.trim();
      };

      const single = planner.planSingleRequest();
      if (single !== undefined) return send(single.prompt, 'one request');

      let summary: string | undefined;
      let start = 0;
      let chunk = 0;
      // sequential on purpose: each chunk's prompt carries the summary of all chunks before it
      while (start < messages.length || summary === undefined) {
        chunk += 1;
        const next = planner.planChunk(start, summary);
        summary = await send(next.prompt, `chunk ${chunk}`);
        start = next.end;
      }
      return summary;
    },
  };
}

/** One request planned by a {@link RequestPlanner}. */
export interface PlannedRequest {
  /** The prompt. */
  prompt: string;
  /** Index after the last message the prompt carries. */
  end: number;
  /** The prompt's tokens as the planner knows them: the count, or an upper bound when `exact` is false. */
  tokens: number;
  /** Whether `tokens` is the prompt's count. */
  exact: boolean;
}

/** Options of {@link createRequestPlanner}. */
export interface CreateRequestPlannerOptions {
  /** The counter prompts are sized with. */
  tokenCounter: TokenCounter;
  /** What the counter is known to be. */
  tokenCounterEncoding: TokenCounterEncoding;
  /** Largest prompt, in tokens. */
  inputMaxTokens: number;
  /** Word budget of the summary. */
  maxWords: number;
}

/**
 * Sizes the requests of one summary run over `messages` (internal; the summarizer's planning
 * without its LLM calls, for tests).
 *
 * @throws {@link InvalidOptionError} when `inputMaxTokens` leaves less than
 * {@link MIN_SUMMARY_CONVERSATION_TOKENS} tokens for the conversation.
 */
export function createRequestPlanner(messages: readonly Message[], options: CreateRequestPlannerOptions): RequestPlanner {
  const { tokenCounter, inputMaxTokens, maxWords } = options;
  return options.tokenCounterEncoding === 'o200k_base'
    ? new PartsPlanner(tokenCounter, inputMaxTokens, maxWords, messages)
    : new CountingPlanner(tokenCounter, inputMaxTokens, maxWords, messages);
}

/** Sizes the prompts of one summary run. */
export abstract class RequestPlanner {
  /** Tokens of the prompt with an empty conversation. */
  protected readonly templateTokens: number;
  /** Tokens of a cut marker with a seven-digit figure, as large as any cut of a real history. */
  protected readonly markerTokens: number;

  constructor(
    protected readonly counter: TokenCounter,
    protected readonly limit: number,
    protected readonly maxWords: number,
    protected readonly messages: readonly Message[],
  ) {
    const minimum = computeMinSummaryInputTokens(maxWords, counter);
    this.templateTokens = minimum - MIN_SUMMARY_CONVERSATION_TOKENS;
    this.markerTokens = counter.count('\n[... 9,999,999 chars cut ...]\n');
    if (limit < minimum) {
      throw new InvalidOptionError(
        `inputMaxTokens must be at least ${minimum} (a ${maxWords}-word summary prompt takes ${this.templateTokens} tokens, plus room for the conversation), got ${limit}`,
      );
    }
  }

  /** The rendered parts of message `index`. */
  protected abstract partsOf(index: number): readonly RenderedPart[];

  /**
   * The prompt of a single request holding all of Rest, with cuttable parts cut as little as
   * needed; `undefined` when even cutting them to {@link MIN_KEPT_BLOCK_CHARS} is not enough.
   */
  abstract planSingleRequest(): PlannedRequest | undefined;

  /**
   * The prompt for the chunk of messages that starts at `start`, carrying `previousSummary`.
   * Takes at least one message (cut in the middle when it is too large on its own), so every
   * call makes progress.
   */
  abstract planChunk(start: number, previousSummary: string | undefined): PlannedRequest;

  /** The frame of a chunk's prompt: the summary so far takes at most half the room left by the instructions. */
  protected chunkFrame(previousSummary: string | undefined): SummaryPromptFrame {
    if (previousSummary === undefined) return buildSummaryPromptFrame({ maxWords: this.maxWords });
    const carried = fitTextToTokens(previousSummary, Math.floor((this.limit - this.templateTokens) / 2), this.counter);
    return buildSummaryPromptFrame({ maxWords: this.maxWords, previousSummary: carried });
  }

  /** Messages `start` to `end` (excluded) as the prompt's conversation, cuttable parts cut to `keep` chars. */
  protected conversation(start: number, end: number, keep: number): string {
    const texts: string[] = [];
    for (let index = start; index < end; index += 1) {
      if (index > start) texts.push(MESSAGE_SEPARATOR);
      this.partsOf(index).forEach((part, position) => {
        if (position > 0) texts.push('\n');
        texts.push(part.cuttable && part.text.length > keep ? cutTextInMiddle(part.text, keep) : part.text);
      });
    }
    return texts.join('');
  }

  /** A chunk of the single message `index`, too large for a request: cut in the middle until the prompt fits. */
  protected planOversizedChunk(index: number, frame: SummaryPromptFrame): PlannedRequest {
    let text = this.conversation(index, index + 1, MIN_KEPT_BLOCK_CHARS);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const prompt = frame.before + text + frame.after;
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return { prompt, end: index + 1, tokens, exact: true };
      const excess = tokens - this.limit;
      text = fitTextToTokens(text, Math.max(0, this.counter.count(text) - excess - this.markerTokens), this.counter);
    }
    // unreachable in practice (the loop above shrinks the text each time); an empty
    // conversation always fits, since the carried summary takes at most half the room
    const prompt = frame.before + frame.after;
    return { prompt, end: index + 1, tokens: this.counter.count(prompt), exact: true };
  }
}

/** Plans with any counter: every prompt is counted whole before it is sent. */
class CountingPlanner extends RequestPlanner {
  private readonly rendered: readonly (readonly RenderedPart[])[];
  private readonly separatorTokens: number;
  private readonly lineBreakTokens: number;
  private partTokens: number[][] | undefined;

  constructor(counter: TokenCounter, limit: number, maxWords: number, messages: readonly Message[]) {
    super(counter, limit, maxWords, messages);
    this.rendered = renderMessageParts(messages);
    this.separatorTokens = counter.count(MESSAGE_SEPARATOR);
    this.lineBreakTokens = counter.count('\n');
  }

  protected partsOf(index: number): readonly RenderedPart[] {
    return this.rendered[index] ?? [];
  }

  /** Tokens of every rendered part, counted once per run. */
  private tokensOfParts(): number[][] {
    this.partTokens ??= this.rendered.map((parts) => parts.map((part) => this.counter.count(part.text)));
    return this.partTokens;
  }

  planSingleRequest(): PlannedRequest | undefined {
    const partTokens = this.tokensOfParts();
    let fixedTokens = this.templateTokens;
    const cuttable: { length: number; tokens: number }[] = [];
    let longest = 0;
    this.rendered.forEach((parts, index) => {
      fixedTokens += this.separatorTokens * parts.length; // joins between parts and messages
      parts.forEach((part, position) => {
        const tokens = partTokens[index]?.[position] ?? 0;
        if (part.cuttable) {
          cuttable.push({ length: part.text.length, tokens });
          longest = Math.max(longest, part.text.length);
        } else {
          fixedTokens += tokens;
        }
      });
    });
    // estimated prompt size when cuttable parts keep at most `keep` chars: a cut part keeps
    // its share of tokens, plus the marker
    const estimate = (keep: number): number => {
      let total = fixedTokens;
      for (const part of cuttable) {
        total += part.length <= keep ? part.tokens : Math.ceil((part.tokens * keep) / part.length) + this.markerTokens;
      }
      return total;
    };

    const frame = buildSummaryPromptFrame({ maxWords: this.maxWords });
    let target = this.limit;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const keep = estimate(longest) <= target ? Number.POSITIVE_INFINITY : findLongestKeep(estimate, target, longest);
      if (keep === undefined) return undefined;
      const prompt = frame.before + this.conversation(0, this.rendered.length, keep) + frame.after;
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return { prompt, end: this.rendered.length, tokens, exact: true };
      // the estimate was optimistic (token boundaries, cut parts denser than average): aim lower
      target -= tokens - this.limit + this.markerTokens;
    }
    return undefined;
  }

  /** Estimated tokens of message `index` with cuttable parts cut to {@link MIN_KEPT_BLOCK_CHARS}. */
  private pieceTokens(index: number): number {
    const parts = this.rendered[index] ?? [];
    const partTokens = this.tokensOfParts()[index] ?? [];
    let total = this.lineBreakTokens * Math.max(0, parts.length - 1);
    parts.forEach((part, position) => {
      total +=
        part.cuttable && part.text.length > MIN_KEPT_BLOCK_CHARS
          ? this.counter.count(cutTextInMiddle(part.text, MIN_KEPT_BLOCK_CHARS))
          : (partTokens[position] ?? 0);
    });
    return total;
  }

  planChunk(start: number, previousSummary: string | undefined): PlannedRequest {
    const frame = this.chunkFrame(previousSummary);
    const budget = this.limit - this.counter.count(frame.before + frame.after);

    const pieceTokens: number[] = [];
    let end = start;
    let used = 0;
    while (end < this.rendered.length) {
      const tokens = this.pieceTokens(end);
      const cost = tokens + (end > start ? this.separatorTokens : 0);
      if (end > start && used + cost > budget) break;
      pieceTokens.push(tokens);
      used += cost;
      end += 1;
      if (used > budget) break; // a first message too large on its own is cut below
    }

    for (let attempt = 0; attempt < 8; attempt += 1) {
      const prompt = frame.before + this.conversation(start, end, MIN_KEPT_BLOCK_CHARS) + frame.after;
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return { prompt, end, tokens, exact: true };
      if (end - start === 1) break;
      // drop trailing messages worth at least the excess; they open the next chunk
      const excess = tokens - this.limit;
      let dropped = 0;
      while (end - start > 1 && dropped < excess) {
        dropped += (pieceTokens.pop() ?? 0) + this.separatorTokens;
        end -= 1;
      }
    }
    return this.planOversizedChunk(start, frame);
  }
}

/**
 * How one rendered message is sized by {@link PartsPlanner}. Its rendering followed by the
 * separator after it counts `known + (tokens of fragments) + endBlank` tokens, or
 * `... + endBreak` when it is the last message of the conversation.
 */
interface MessageSize {
  /** Exact tokens of the rendering before its end segment, fragments excluded. */
  known: number;
  /**
   * Pieces of the rendering whose tokens are not in `known` (header pieces with an index or an
   * id), joined: each starts with a character that splits from whatever comes before it, so the
   * joined text counts their sum. Counted in batches.
   */
  fragments: string;
  /** How many pieces `fragments` joins (each is at least one token). */
  fragmentCount: number;
  /** Tokens of `fragments` once counted for this message alone. */
  fragmentTokens: number | undefined;
  /** UTF-8 bytes of `fragments`: o200k_base never counts more tokens than bytes. */
  fragmentBytes: number;
  /** Tokens of the end segment followed by a blank line (another message follows). */
  endBlank: number;
  /** Tokens of the end segment followed by a line break (the conversation ends). */
  endBreak: number;
  /** Characters of the rendering, for the estimates of cutting. */
  chars: number;
  /** Length of the longest cuttable part (0 when none): the message is cut below it. */
  longestCuttable: number;
}

/** What {@link PartsPlanner} gathers while sizing a message's glue. */
interface GluedSize {
  known: number;
  fragments: string;
  fragmentCount: number;
  fragmentBytes: number;
}

/** Texts longer than this are counted without being remembered. */
const MEMO_MAX_CHARS = 256;

/**
 * A header piece without digits seen this many times is counted on its own and remembered (an
 * id appears twice); a piece with digits (an index, an id) is always batched.
 */
const COUNT_ALONE_AFTER = 3;
const HAS_DIGIT = /[0-9]/;

/**
 * Plans with an o200k_base counter: a prompt's count is the sum of the counts of its parts
 * when they are cut where a pre-tokenized piece must end ({@link isPieceBoundary}). Every
 * message starts after a line break with `[`, so the prompt is the sum of its frame and of its
 * messages; a message is the count `countTokens` cached for its texts, less the few characters
 * at their edges (counted on their own and remembered: `.`, `"}`, `\n` recur), plus its
 * headers (`[3] user:`, `[tool_use bash id=...]`), counted in one batch per chunk. While a
 * chunk is being filled, headers are bounded by their UTF-8 bytes; the chunk is then counted
 * exactly and filled further. The prompt is never tokenized whole except on the cutting paths.
 */
class PartsPlanner extends RequestPlanner {
  private readonly render: (index: number) => RenderedPart[];
  private readonly memo = new Map<string, number>();
  /** How often a header piece without digits went to a batch: after {@link COUNT_ALONE_AFTER} times it is counted alone. */
  private readonly seen = new Map<string, number>();
  private readonly fullSizes: (MessageSize | undefined)[] = [];
  private readonly floorSizes = new Map<number, MessageSize>();

  constructor(
    counter: TokenCounter,
    limit: number,
    maxWords: number,
    messages: readonly Message[],
  ) {
    super(counter, limit, maxWords, messages);
    this.render = createMessagePartsRenderer(messages);
  }

  protected partsOf(index: number): readonly RenderedPart[] {
    return this.render(index);
  }

  planSingleRequest(): PlannedRequest | undefined {
    const frame = buildSummaryPromptFrame({ maxWords: this.maxWords });
    const count = this.messages.length;
    if (count === 0) {
      // the template alone fits: the constructor checked the limit against it
      return { prompt: frame.before + frame.after, end: 0, tokens: this.templateTokens, exact: true };
    }
    const sizes = this.messages.map((_, index) => this.sizeAt(index, Number.POSITIVE_INFINITY));
    let fixed = this.frameTokens(frame);
    let lowest = 0;
    let highest = 0;
    sizes.forEach((size, index) => {
      fixed += size.known + (index === count - 1 ? size.endBreak : size.endBlank);
      lowest += size.fragmentTokens ?? size.fragmentCount; // a fragment is at least one token
      highest += size.fragmentTokens ?? size.fragmentBytes;
    });
    const whole = (tokens: number, exact: boolean): PlannedRequest => ({
      prompt: frame.before + this.conversation(0, count, Number.POSITIVE_INFINITY) + frame.after,
      end: count,
      tokens,
      exact,
    });
    if (fixed + highest <= this.limit) return whole(fixed + highest, lowest === highest);
    if (fixed + lowest <= this.limit) {
      const tokens = fixed + this.countFragments(sizes);
      if (tokens <= this.limit) return whole(tokens, true);
    }
    return this.planCutRequest(frame, sizes);
  }

  /** Rest in one request with its cuttable parts cut in the middle, when that fits. */
  private planCutRequest(frame: SummaryPromptFrame, sizes: readonly MessageSize[]): PlannedRequest | undefined {
    const frameTokens = this.frameTokens(frame);
    // estimates: a cuttable part takes its message's tokens per char
    let fixedTokens = frameTokens;
    const cuttable: { length: number; tokens: number }[] = [];
    let longest = 0;
    sizes.forEach((size, index) => {
      const tokens = size.known + (size.fragmentTokens ?? size.fragmentBytes / 3) + size.endBlank;
      const density = tokens / Math.max(1, size.chars);
      fixedTokens += tokens;
      for (const part of this.partsOf(index)) {
        if (!part.cuttable) continue;
        const partTokens = part.text.length * density;
        cuttable.push({ length: part.text.length, tokens: partTokens });
        fixedTokens -= partTokens;
        longest = Math.max(longest, part.text.length);
      }
    });
    if (longest <= MIN_KEPT_BLOCK_CHARS) return undefined; // nothing to cut: Rest whole did not fit
    const estimate = (keep: number): number => {
      let total = fixedTokens;
      for (const part of cuttable) {
        total += part.length <= keep ? part.tokens : Math.ceil((part.tokens * keep) / part.length) + this.markerTokens;
      }
      return total;
    };

    const count = this.messages.length;
    let target = this.limit;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      // Rest whole does not fit, so some part must be cut
      const keep = findLongestKeep(estimate, target, longest);
      if (keep === undefined) return undefined;
      const cutSizes = this.messages.map((_, index) => this.sizeAt(index, keep));
      let tokens = frameTokens + this.countFragments(cutSizes);
      cutSizes.forEach((size, index) => {
        tokens += size.known + (index === count - 1 ? size.endBreak : size.endBlank);
      });
      if (tokens <= this.limit) return { prompt: frame.before + this.conversation(0, count, keep) + frame.after, end: count, tokens, exact: true };
      target -= tokens - this.limit + this.markerTokens;
    }
    return undefined;
  }

  planChunk(start: number, previousSummary: string | undefined): PlannedRequest {
    const frame = this.chunkFrame(previousSummary);
    const frameTokens = this.frameTokens(frame);
    const budget = this.limit - frameTokens;
    const count = this.messages.length;
    // body: tokens of messages [start, end) and of the blank lines between them, the fragments
    // of `pending` bounded by their bytes; the chunk counts body + endBreak of its last message
    let end = start;
    let body = 0;
    let pending: MessageSize[] = [];
    let pendingBytes = 0;
    for (;;) {
      while (end < count) {
        const size = this.sizeAt(end, MIN_KEPT_BLOCK_CHARS);
        const join = end > start ? this.sizeAt(end - 1, MIN_KEPT_BLOCK_CHARS).endBlank : 0;
        const add = join + size.known + (size.fragmentTokens ?? size.fragmentBytes);
        if (body + add + size.endBreak > budget) break;
        body += add;
        end += 1;
        if (size.fragmentTokens === undefined) {
          pending.push(size);
          pendingBytes += size.fragmentBytes;
        }
      }
      if (pending.length > 0) {
        // count the bounded fragments exactly, then fill the room freed
        body += this.countFragments(pending) - pendingBytes;
        pending = [];
        pendingBytes = 0;
        continue;
      }
      const next = end < count ? this.sizeAt(end, MIN_KEPT_BLOCK_CHARS) : undefined;
      if (next !== undefined && next.fragmentTokens === undefined) {
        this.countFragments([next]); // its exact count may fit where its bound did not
        continue;
      }
      break;
    }
    if (end === start) return this.planOversizedChunk(start, frame);
    const tokens = frameTokens + body + this.sizeAt(end - 1, MIN_KEPT_BLOCK_CHARS).endBreak;
    // chunks go in order: the sizes of these messages are not needed again
    for (let index = start; index < end; index += 1) {
      this.fullSizes[index] = undefined;
      this.floorSizes.delete(index);
    }
    return { prompt: frame.before + this.conversation(start, end, MIN_KEPT_BLOCK_CHARS) + frame.after, end, tokens, exact: true };
  }

  /** Tokens of a frame around a non-empty conversation (which starts with `[` and ends with `\n`). */
  private frameTokens(frame: SummaryPromptFrame): number {
    return this.counter.count(frame.before) + this.counter.count(frame.after.slice(1));
  }

  /** Exact tokens of the fragments of `sizes`, counted in one batch (a message alone keeps its count). */
  private countFragments(sizes: readonly MessageSize[]): number {
    let total = 0;
    const batch: string[] = [];
    const uncounted: MessageSize[] = [];
    for (const size of sizes) {
      if (size.fragmentTokens !== undefined) {
        total += size.fragmentTokens;
      } else {
        uncounted.push(size);
        batch.push(size.fragments);
      }
    }
    // every fragment starts with a character that is neither whitespace, `/`, a letter, a mark,
    // a digit nor `'`, and ends with a line break, a letter or a digit, so joined they split
    // where they meet: the batch counts the sum of their counts
    const batchTokens = batch.length === 0 ? 0 : this.counter.count(batch.join(''));
    const [only] = uncounted;
    if (uncounted.length === 1 && only !== undefined) only.fragmentTokens = batchTokens;
    return total + batchTokens;
  }

  /** The size of message `index` with cuttable parts cut to `keep` chars. */
  private sizeAt(index: number, keep: number): MessageSize {
    let size = this.fullSizes[index];
    if (size === undefined) {
      const parts = this.partsOf(index);
      size = this.sizeFromParts(index, parts) ?? this.sizeFromText(joinMessageParts(parts, Number.POSITIVE_INFINITY), parts);
      this.fullSizes[index] = size;
    }
    if (size.longestCuttable <= keep) return size;
    if (keep !== MIN_KEPT_BLOCK_CHARS) return this.sizeFromText(joinMessageParts(this.partsOf(index), keep), []);
    let floor = this.floorSizes.get(index);
    if (floor === undefined) {
      floor = this.sizeFromText(joinMessageParts(this.partsOf(index), keep), []);
      this.floorSizes.set(index, floor);
    }
    return floor;
  }

  /**
   * Sizes a rendered message by tokenizing it (a cut message, or one whose texts do not match
   * its counts); `parts` give its longest cuttable part.
   */
  private sizeFromText(text: string, parts: readonly RenderedPart[]): MessageSize {
    // the text starts with `[` after a line break: 0 is a boundary
    const boundary = findLastBoundary(text) ?? 0;
    const ending = text.slice(boundary);
    return {
      known: boundary === 0 ? 0 : this.counter.count(text.slice(0, boundary)),
      fragments: '',
      fragmentCount: 0,
      fragmentTokens: 0,
      fragmentBytes: 0,
      endBlank: this.countText(`${ending}\n\n`),
      endBreak: this.countText(`${ending}\n`),
      chars: text.length,
      longestCuttable: longestCuttable(parts),
    };
  }

  /**
   * Sizes message `index` from the tokens `countTokens` cached for its texts, without
   * tokenizing them again; `undefined` when its rendering does not carry them (it is then
   * tokenized).
   */
  private sizeFromParts(index: number, parts: readonly RenderedPart[]): MessageSize | undefined {
    const message = this.messages[index];
    if (message === undefined) return undefined;
    const leaves: string[] = [];
    for (const part of parts) {
      if (part.pieces === undefined) leaves.push(part.text);
      else leaves.push(...part.pieces);
    }
    const texts: string[] = [];
    let known: number;
    try {
      // the sum of the counts of `texts` (countMessageTokens is cached per message object)
      known = countMessageTokens(message, this.counter) - visitCountedTexts(message, pushTo(texts));
    } catch {
      return undefined; // an input JSON.stringify rejects (cyclic, BigInt): the rendering says so
    }

    // pair each leaf with the counted text it equals, in order; a counted text left unpaired
    // (a tool name, inside a header) is taken out of the sum
    const paired: boolean[] = [];
    let next = 0;
    for (const leaf of leaves) {
      if (leaf !== '' && texts[next] === leaf) {
        paired.push(true);
        next += 1;
      } else if (leaf !== '' && texts[next + 1] === leaf) {
        known -= this.countText(texts[next] ?? '');
        paired.push(true);
        next += 2;
      } else {
        paired.push(false);
      }
    }
    for (; next < texts.length; next += 1) known -= this.countText(texts[next] ?? '');

    // The rendering is its leaves joined by line breaks, and a line break follows the last one.
    // A paired leaf is kept out of the counting except its edges (before its first boundary and
    // after its last one); the rest ("glue": headers, edges, unpaired leaves) is counted.
    const glued: GluedSize = { known, fragments: '', fragmentCount: 0, fragmentBytes: 0 };
    let glue = '';
    for (let position = 0; position < leaves.length; position += 1) {
      const leaf = leaves[position] ?? '';
      const joiner = position === 0 ? '' : '\n';
      const first = paired[position] === true ? findFirstBoundary(leaf) : undefined;
      const last = first === undefined ? undefined : findLastBoundary(leaf);
      if (first === undefined || last === undefined || last < first) {
        if (paired[position] === true) glued.known -= this.countText(leaf);
        glue += joiner + leaf;
        continue;
      }
      glued.known -= this.countText(leaf.slice(0, first)) + this.countText(leaf.slice(last));
      this.addGlue(glue + joiner + leaf.slice(0, first), glued);
      glue = leaf.slice(last);
    }
    // the end segment: the glue after the last `[` opening a line, followed by the separator
    const endStart = findLastLineBracket(glue);
    if (endStart > 0) {
      this.addGlue(glue.slice(0, endStart), glued);
      glue = glue.slice(endStart);
    }
    let chars = Math.max(0, leaves.length - 1);
    for (const leaf of leaves) chars += leaf.length;
    return {
      known: glued.known,
      fragments: glued.fragments,
      fragmentCount: glued.fragmentCount,
      fragmentTokens: glued.fragmentCount === 0 ? 0 : undefined,
      fragmentBytes: glued.fragmentBytes,
      endBlank: this.countText(`${glue}\n\n`),
      endBreak: this.countText(`${glue}\n`),
      chars,
      longestCuttable: longestCuttable(parts),
    };
  }

  /**
   * Adds glue that runs from a boundary to a boundary: the text before its first `[` opening a
   * line is counted (remembered: `.\n`, `"}\n` recur); from there on, headers are cut into
   * pieces that may be batched. Recurring pieces (`[tool`, `_result bash id`, `] user:\n`) are
   * counted once and remembered; the others (indexes, ids) go to the batch.
   */
  private addGlue(glue: string, size: GluedSize): void {
    const headers = glue.charCodeAt(0) === LEFT_BRACKET ? 0 : findLineBracket(glue, 1);
    if (headers === -1) {
      size.known += this.countText(glue);
      return;
    }
    size.known += this.countText(glue.slice(0, headers));
    let from = headers;
    for (let index = headers + 1; index <= glue.length; index += 1) {
      if (index < glue.length && !(startsFragment(glue.codePointAt(index) ?? 0) && isPieceBoundary(glue, index))) continue;
      const piece = glue.slice(from, index);
      from = index;
      const remembered = this.memo.get(piece);
      if (remembered !== undefined) {
        size.known += remembered;
        continue;
      }
      if (!HAS_DIGIT.test(piece) && piece.length <= MEMO_MAX_CHARS) {
        const seen = (this.seen.get(piece) ?? 0) + 1;
        if (seen >= COUNT_ALONE_AFTER) {
          size.known += this.countText(piece);
          this.seen.delete(piece);
          continue;
        }
        this.seen.set(piece, seen);
      }
      size.fragments += piece;
      size.fragmentCount += 1;
      size.fragmentBytes += utf8Length(piece);
    }
  }

  /** Tokens of `text`, remembered for short texts (edges and separators recur). */
  private countText(text: string): number {
    if (text === '') return 0;
    if (text.length > MEMO_MAX_CHARS) return this.counter.count(text);
    let tokens = this.memo.get(text);
    if (tokens === undefined) {
      tokens = this.counter.count(text);
      this.memo.set(text, tokens);
    }
    return tokens;
  }
}

const LEFT_BRACKET = 0x5b;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SLASH = 0x2f;
const APOSTROPHE = 0x27;
const LETTER_OR_NUMBER_PATTERN = /^[\p{L}\p{N}]$/u;
const WORD_CONTINUATION_PATTERN = /^[\p{L}\p{M}\p{N}]$/u;
const WHITESPACE_PATTERN = /^\s$/u;

// character classes, as o200k_base's pattern sees them
const LETTER_OR_NUMBER = 1; // \p{L} or \p{N}
const CONTINUES_WORD = 2; // may continue a letter or digit piece: \p{L}, \p{M}, \p{N}, or ' (contractions)
const WHITESPACE = 4; // \s
const SLASH_CLASS = 8; // `/`, which may follow line breaks in a punctuation piece

let asciiClasses: Uint8Array | undefined;

function classifyCodePoint(code: number): number {
  const character = String.fromCodePoint(code);
  let classes = 0;
  if (LETTER_OR_NUMBER_PATTERN.test(character)) classes |= LETTER_OR_NUMBER | CONTINUES_WORD;
  if (WORD_CONTINUATION_PATTERN.test(character) || code === APOSTROPHE) classes |= CONTINUES_WORD;
  if (WHITESPACE_PATTERN.test(character)) classes |= WHITESPACE;
  if (code === SLASH) classes |= SLASH_CLASS;
  return classes;
}

function classOf(code: number): number {
  if (code >= 0x80) return classifyCodePoint(code);
  asciiClasses ??= Uint8Array.from({ length: 0x80 }, (_, ascii) => classifyCodePoint(ascii));
  return asciiClasses[code] ?? 0;
}

function isLetterOrNumber(code: number): boolean {
  return (classOf(code) & LETTER_OR_NUMBER) !== 0;
}

/** Whether the code point may continue a letter or digit piece of o200k_base (or start a contraction). */
function continuesWord(code: number): boolean {
  return (classOf(code) & CONTINUES_WORD) !== 0;
}

/** Whether a piece of o200k_base must start at this code point when it follows a line break. */
function opensLine(code: number): boolean {
  return (classOf(code) & (WHITESPACE | SLASH_CLASS)) === 0;
}

/**
 * Whether a fragment may start with this code point: it then follows any fragment (which ends
 * with a line break, a letter or a digit) at a boundary: not whitespace, `/`, a letter, a mark,
 * a digit nor `'`.
 */
function startsFragment(code: number): boolean {
  return (classOf(code) & (WHITESPACE | SLASH_CLASS | CONTINUES_WORD)) === 0;
}

/** The code point that ends at `index` (a whole surrogate pair, or a lone code unit). */
function codePointBefore(text: string, index: number): number {
  const low = text.charCodeAt(index - 1);
  if (isLowSurrogate(low) && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/**
 * Whether o200k_base's pre-tokenizer always ends a piece at `index` (0 < index < length),
 * whatever comes before and after: after a line break (CR or LF) followed by a character that
 * is neither whitespace nor `/`, or after a letter or digit followed by a character that is
 * neither a letter, a mark, a digit nor `'`. None of its patterns can run across such a point,
 * so the count of a text is the sum of the counts of its parts cut there.
 */
function isPieceBoundary(text: string, index: number): boolean {
  const previous = text.charCodeAt(index - 1);
  const next = text.codePointAt(index) ?? 0;
  if (previous === LINE_FEED || previous === CARRIAGE_RETURN) return opensLine(next);
  return isLetterOrNumber(codePointBefore(text, index)) && !continuesWord(next);
}

/** The first boundary of a text that follows a line break: 0, or inside it; `undefined` when none. */
function findFirstBoundary(text: string): number | undefined {
  if (text === '') return undefined;
  if (opensLine(text.codePointAt(0) ?? 0)) return 0;
  for (let index = 1; index < text.length; index += 1) {
    if (isPieceBoundary(text, index)) return index;
  }
  return undefined;
}

/** The last boundary of a text that a line break follows: its end, or inside it, or 0; `undefined` when none. */
function findLastBoundary(text: string): number | undefined {
  if (text === '') return undefined;
  if (isLetterOrNumber(codePointBefore(text, text.length))) return text.length;
  for (let index = text.length - 1; index > 0; index -= 1) {
    if (isPieceBoundary(text, index)) return index;
  }
  return opensLine(text.codePointAt(0) ?? 0) ? 0 : undefined;
}

function longestCuttable(parts: readonly RenderedPart[]): number {
  let longest = 0;
  for (const part of parts) if (part.cuttable) longest = Math.max(longest, part.text.length);
  return longest;
}

function pushTo(texts: string[]): (text: string) => void {
  return (text) => {
    texts.push(text);
  };
}

/** Index of the first `[` at or after `from` (>= 1) that opens a line; -1 when none. */
function findLineBracket(text: string, from: number): number {
  for (let at = text.indexOf('[', from); at !== -1; at = text.indexOf('[', at + 1)) {
    const previous = text.charCodeAt(at - 1);
    if (previous === LINE_FEED || previous === CARRIAGE_RETURN) return at;
  }
  return -1;
}

/** Index of the last `[` that opens a line (after position 0); -1 when none. */
function findLastLineBracket(text: string): number {
  for (let at = text.lastIndexOf('['); at > 0; at = text.lastIndexOf('[', at - 1)) {
    const previous = text.charCodeAt(at - 1);
    if (previous === LINE_FEED || previous === CARRIAGE_RETURN) return at;
  }
  return -1;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Bytes of `text` in UTF-8 (a lone surrogate is written as U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 2; // a pair: 4 bytes for 2 units
      index += 1;
    } else {
      bytes += 2; // 3 bytes for 1 unit, a lone surrogate included
    }
  }
  return bytes;
}

/** Largest keep length in [MIN_KEPT_BLOCK_CHARS, longest) whose estimate fits `target`. */
function findLongestKeep(estimate: (keep: number) => number, target: number, longest: number): number | undefined {
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
