/**
 * Sizing the LLM summarizer's input. Every prompt is built and counted before it is sent, so
 * its size is what the {@link TokenCounter} says of its text, whatever the counter:
 * - any counter: each prompt is counted whole. Where to cut (how many messages a chunk takes,
 *   how long a cut tool result stays) is chosen from estimates: the per-message counts that
 *   `countTokens` caches (free in an agent loop that counted its history), scaled by how the
 *   last prompt counted compared with its estimate. A wrong estimate costs one more count,
 *   never an oversized request.
 * - an o200k_base counter (`tokenCounterEncoding: 'o200k_base'`, the package's default counter):
 *   the prompt is counted piece by piece, each rendered message with the line breaks after it.
 *   Every piece ends with a line break and the next starts with `[` (a message's header) or `<`
 *   (the closing tag), where o200k_base always ends a pre-token, so the pieces' counts add up
 *   to the prompt's count (the default counter splits long texts at the same kind of points).
 *   Each message is counted once, chunks are filled exactly, and no prompt is tokenized as one
 *   string: V8 stores a text holding any character above U+00FF with two bytes per character,
 *   and tokenizing such a text takes about twice as long, while most messages alone are ASCII.
 *
 * How Rest is made to fit `inputMaxTokens` (the prompt's instructions included):
 * 1. Rest whole, when it fits.
 * 2. Else the cuttable parts (tool results, tool inputs, thinking) are cut in the middle to the
 *    longest length that lets Rest fit in one request, with a marker such as
 *    `[... 41,233 chars cut ...]`, but never below {@link MIN_KEPT_BLOCK_CHARS}.
 * 3. Else Rest (cut to that floor) is sent in sequential chunks of whole messages: each chunk's
 *    prompt carries the summary so far. A single message too large for a request on its own is
 *    cut in the middle.
 */
import { InvalidOptionError } from '../../errors.js';
import type { TokenCounter } from '../../ports.js';
import {
  CHARS_COUNTED_BETWEEN_YIELDS,
  countMessageTokens,
  countTextYielding,
  type YieldingCount,
} from '../../text/tokens.js';
import type { Message } from '../../types.js';
import {
  buildSummaryPrompt,
  buildSummaryPromptFrame,
  createMessagePartsRenderer,
  cutTextInMiddle,
  joinMessageParts,
  MESSAGE_SEPARATOR,
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

const minimumsByCounter = new WeakMap<TokenCounter, Map<number, number>>();

/**
 * The smallest `inputMaxTokens` (compaction's `summaryInputMaxTokens`) that a summary of
 * `maxWords` words can work with: the summary prompt's instructions (the prompt with an empty
 * conversation) as `tokenCounter` counts them, plus 1,000 tokens of conversation.
 * Remembered per counter and `maxWords` (counters are treated as pure, as `countTokens` treats
 * them), so the check `compactMessages` makes at each call costs one lookup.
 *
 * @example
 * ```ts
 * computeMinSummaryInputTokens(1200, defaultTokenCounter); // 1430 with the current prompt
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
 * - `'unknown'`: any counter (each prompt is counted whole);
 * - `'o200k_base'`: the o200k_base encoding (the package's default counter), whose counts add
 *   up where its pre-tokenizer always ends a pre-token (prompts are counted message by message).
 */
export type TokenCounterEncoding = 'unknown' | 'o200k_base';

/** The marker of a cut, with a figure as large as any cut of a real history: what a cut adds. */
const WIDEST_MARKER = '\n[... 9,999,999 chars cut ...]\n';
const MARKER_CHARS = WIDEST_MARKER.length;
/** With estimates, chunks are filled to this share of the room, so a slightly low estimate rarely costs a second count. */
const ESTIMATED_FILL_SHARE = 0.97;
/** A chunk that fits but uses less than this share of the limit is grown once, with the corrected estimate. */
const GROW_BELOW_SHARE = 0.9;
/** With estimates, Rest is counted whole only when its estimate is below this many times the room. */
const WHOLE_COUNT_SLACK = 1.25;
/** Prompts counted for one request before settling for what fits (or halving, for a chunk). */
const MAX_ATTEMPTS = 4;

/** One request planned by a {@link RequestPlanner}. */
export interface PlannedRequest {
  prompt: string;
  /** Index after the last message the prompt carries. */
  end: number;
  /** The prompt's tokens, as the counter counts its text. */
  tokens: number;
}

/** Options of {@link createRequestPlanner}. */
export interface CreateRequestPlannerOptions {
  tokenCounter: TokenCounter;
  /** What the counter is known to be. @default 'unknown' */
  tokenCounterEncoding?: TokenCounterEncoding | undefined;
  /** Largest prompt, in tokens. */
  inputMaxTokens: number;
  /** Word budget of the summary. */
  maxWords: number;
  /**
   * Whether the planner is used through its yielding methods: then it counts no long text when
   * it is created (the first yielding plan counts them, between yields).
   * @default false
   */
  deferLongCounts?: boolean | undefined;
}

/** Plans the requests of one summary run (see the module comment). */
export interface RequestPlanner {
  /**
   * The prompt of a single request holding all of Rest, with cuttable parts cut as little as
   * needed; `undefined` when even cutting them to {@link MIN_KEPT_BLOCK_CHARS} is not enough.
   */
  planSingleRequest(): PlannedRequest | undefined;
  /**
   * The prompt for the chunk of messages that starts at `start`, carrying `previousSummary`.
   * Takes at least one message (cut in the middle when it is too large on its own), so every
   * call makes progress.
   */
  planChunk(start: number, previousSummary: string | undefined): PlannedRequest;
  /**
   * {@link planSingleRequest}, with every text longer than `CHARS_COUNTED_BETWEEN_YIELDS` counted
   * first through `countTextYielding` (yielding to the event loop between parts), so the
   * synchronous planning only looks its counts up: a 1 MiB message never holds the loop while
   * it is counted. The plan is the one {@link planSingleRequest} makes (for the default counter,
   * whose counts in parts equal its counts whole).
   */
  planSingleRequestYielding(state: YieldingCount): Promise<PlannedRequest | undefined>;
  /** {@link planChunk}, with long texts counted first as {@link planSingleRequestYielding} counts them. */
  planChunkYielding(start: number, previousSummary: string | undefined, state: YieldingCount): Promise<PlannedRequest>;
}

/**
 * Sizes the requests of one summary run over `messages` (the summarizer's planning without its
 * LLM calls).
 *
 * @throws {@link InvalidOptionError} when `inputMaxTokens` leaves less than
 * {@link MIN_SUMMARY_CONVERSATION_TOKENS} tokens for the conversation.
 */
export function createRequestPlanner(
  messages: readonly Message[],
  options: CreateRequestPlannerOptions,
): RequestPlanner {
  return new CountingPlanner(messages, options);
}

/** What the planner knows of one rendered message. */
interface MessageLayout {
  /** Characters of the rendering. */
  chars: number;
  /** Characters that are never cut: headers, user and assistant text, line breaks. */
  fixedChars: number;
  /** Lengths of the cuttable parts. */
  cuttableLengths: readonly number[];
  /** Tokens of the rendering followed by a blank line: counted by piece, else estimated. */
  tokens: number;
  /** By piece: the same, cut to {@link MIN_KEPT_BLOCK_CHARS}, once counted. */
  floorTokens?: number;
}

class CountingPlanner implements RequestPlanner {
  /** The caller's counter: per-message counts and prompt minimums are cached for it. */
  private readonly callerCounter: TokenCounter;
  /** The caller's counter, each distinct text counted once. */
  private readonly counter: RememberingCounter;
  private readonly limit: number;
  private readonly maxWords: number;
  private readonly byPiece: boolean;
  private readonly render: (index: number) => RenderedPart[];
  private layouts: readonly MessageLayout[];
  /** The messages, laid out again once their long texts are counted (yielding). */
  private readonly messages: readonly Message[];
  /** Whether a layout holds a count deferred by {@link planYielding} (a 0 for now). */
  private layoutsDeferred = false;
  /** Tokens of the prompt with an empty conversation. */
  private readonly templateTokens: number;
  /** With estimates: counted tokens per estimated token, from the last prompt counted. */
  private ratio = 1;

  constructor(messages: readonly Message[], options: CreateRequestPlannerOptions) {
    this.callerCounter = options.tokenCounter;
    this.counter = rememberCounts(options.tokenCounter);
    this.limit = options.inputMaxTokens;
    this.maxWords = options.maxWords;
    this.byPiece = options.tokenCounterEncoding === 'o200k_base';
    const minimum = computeMinSummaryInputTokens(this.maxWords, this.callerCounter);
    this.templateTokens = minimum - MIN_SUMMARY_CONVERSATION_TOKENS;
    if (this.limit < minimum) {
      throw new InvalidOptionError(
        `inputMaxTokens must be at least ${minimum} (a ${this.maxWords}-word summary prompt takes ${this.templateTokens} tokens, plus room for the conversation), got ${this.limit}`,
      );
    }
    this.render = createMessagePartsRenderer(messages);
    this.messages = messages;
    // yielding, the long messages are counted by the first plan, between yields
    this.counter.deferLongTexts = options.deferLongCounts === true;
    this.layouts = messages.map((message, index) => this.layOutMessage(index, message));
    this.counter.deferLongTexts = false;
    this.counter.missed.clear();
  }

  /** Lays the messages out again when a count was deferred (their long texts are counted by now, or deferred again). */
  private ensureLayouts(): void {
    if (!this.layoutsDeferred) return;
    this.layoutsDeferred = false;
    this.layouts = this.messages.map((message, index) => this.layOutMessage(index, message));
  }

  planSingleRequestYielding(state: YieldingCount): Promise<PlannedRequest | undefined> {
    return this.planYielding(() => this.planSingleRequest(), state);
  }

  planChunkYielding(start: number, previousSummary: string | undefined, state: YieldingCount): Promise<PlannedRequest> {
    return this.planYielding(() => this.planChunk(start, previousSummary), state);
  }

  /**
   * Runs `plan` with long uncounted texts deferred; while a pass deferred any, it counts them
   * (yielding), puts the planner's state back as it was, and plans again. Each pass counts only
   * texts that a pass before it did not, so it ends; usually after two passes.
   */
  private async planYielding<T>(plan: () => T, state: YieldingCount): Promise<T> {
    const ratio = this.ratio;
    for (;;) {
      this.counter.deferLongTexts = true;
      let result: T;
      try {
        result = plan();
      } finally {
        this.counter.deferLongTexts = false;
      }
      const missed = [...this.counter.missed];
      this.counter.missed.clear();
      if (missed.length === 0) return result;
      this.ratio = ratio;
      for (const text of missed) {
        this.counter.counts.set(text, await countTextYielding(this.callerCounter, text, state));
      }
    }
  }

  planSingleRequest(): PlannedRequest | undefined {
    this.ensureLayouts();
    const count = this.layouts.length;
    const frame = buildSummaryPromptFrame({ maxWords: this.maxWords });
    if (count === 0) return { prompt: frame.before + frame.after, end: 0, tokens: this.templateTokens };
    const frameTokens = this.byPiece ? this.countFrame(frame) : this.templateTokens;
    const room = this.limit - frameTokens;
    // with estimates, a Rest clearly too large is not counted whole: that would be a wasted count
    if (this.byPiece || this.ratio * this.estimate(0, count, Number.POSITIVE_INFINITY) <= room * WHOLE_COUNT_SLACK) {
      const whole = this.countRequest(frame, frameTokens, 0, count, Number.POSITIVE_INFINITY);
      if (whole.tokens <= this.limit) return whole;
    }
    let longest = 0;
    for (const layout of this.layouts) for (const length of layout.cuttableLengths) longest = Math.max(longest, length);
    if (longest <= MIN_KEPT_BLOCK_CHARS) return undefined; // nothing left to cut
    let target = room;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const keep = this.findLongestKeep(target, longest);
      if (keep === undefined) return undefined;
      const request = this.countRequest(frame, frameTokens, 0, count, keep);
      if (request.tokens <= this.limit) return request;
      // a cut message keeps fewer or more tokens than its share of characters: aim lower
      if (attempt > 0 || this.byPiece) target -= request.tokens - this.limit;
    }
    return undefined;
  }

  planChunk(start: number, previousSummary: string | undefined): PlannedRequest {
    this.ensureLayouts();
    const frame = this.chunkFrame(previousSummary);
    const frameTokens = this.countFrame(frame);
    const target = (this.limit - frameTokens) * (this.byPiece ? 1 : ESTIMATED_FILL_SHARE);
    let end = this.fill(start, target);
    let fitted: PlannedRequest | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const request = this.countRequest(frame, frameTokens, start, end, MIN_KEPT_BLOCK_CHARS);
      if (request.tokens <= this.limit) {
        if (request.tokens >= this.limit * GROW_BELOW_SHARE || fitted !== undefined) return request;
        fitted = request;
        const grown = this.fill(start, target); // with the estimate corrected by this count
        if (grown <= end) return request;
        end = grown;
      } else {
        if (fitted !== undefined) return fitted;
        if (end - start === 1) return this.planOversizedChunk(start, frame);
        end = Math.min(end - 1, this.fill(start, target));
      }
    }
    // the estimates kept missing: halve until the chunk fits
    while (end - start > 1) {
      end = start + Math.floor((end - start) / 2);
      const request = this.countRequest(frame, frameTokens, start, end, MIN_KEPT_BLOCK_CHARS);
      if (request.tokens <= this.limit) return request;
    }
    return this.planOversizedChunk(start, frame);
  }

  private layOutMessage(index: number, message: Message): MessageLayout {
    const parts = this.render(index);
    let fixedChars = Math.max(0, parts.length - 1); // the line breaks between parts
    const cuttableLengths: number[] = [];
    for (const part of parts) {
      if (part.cuttable) cuttableLengths.push(part.text.length);
      else fixedChars += part.text.length;
    }
    const chars = fixedChars + cuttableLengths.reduce((sum, length) => sum + length, 0);
    const missedBefore = this.counter.missed.size;
    const tokens = this.byPiece
      ? this.counter.count(joinMessageParts(parts, Number.POSITIVE_INFINITY) + MESSAGE_SEPARATOR)
      : estimateMessageTokens(message, chars, this.callerCounter);
    if (this.counter.missed.size > missedBefore) this.layoutsDeferred = true;
    return { chars, fixedChars, cuttableLengths, tokens };
  }

  /**
   * Builds the prompt of messages `start` to `end` (at least one) and counts it; with estimates,
   * corrects them by the count. `frameTokens`: {@link countFrame} of `frame`. By piece, a prompt
   * over the limit is not built (its `prompt` is empty: callers never send one).
   */
  private countRequest(
    frame: SummaryPromptFrame,
    frameTokens: number,
    start: number,
    end: number,
    keep: number,
  ): PlannedRequest {
    if (this.byPiece) {
      // the last message is followed by one line break (and `</conversation>`), not a blank line
      let tokens = frameTokens + this.counter.count(`${joinMessageParts(this.render(end - 1), keep)}\n`);
      for (let index = start; index < end - 1; index += 1) tokens += this.countPiece(index, keep);
      const prompt = tokens <= this.limit ? frame.before + this.conversation(start, end, keep) + frame.after : '';
      return { prompt, end, tokens };
    }
    const prompt = frame.before + this.conversation(start, end, keep) + frame.after;
    const tokens = this.counter.count(prompt);
    const estimated = this.estimate(start, end, keep);
    if (estimated > 0 && tokens > frameTokens) this.ratio = (tokens - frameTokens) / estimated;
    return { prompt, end, tokens };
  }

  /** Tokens of the frame around a conversation (by piece: `before`, and `after` from `</conversation>` on). */
  private countFrame(frame: SummaryPromptFrame): number {
    if (this.byPiece) return this.counter.count(frame.before) + this.counter.count(frame.after.slice(1));
    return this.counter.count(frame.before + frame.after);
  }

  /** By piece: tokens of message `index` cut to `keep` chars, followed by a blank line. */
  private countPiece(index: number, keep: number): number {
    const layout = this.layouts[index];
    if (layout === undefined) return 0;
    if (!isCutAt(layout, keep)) return layout.tokens;
    if (keep !== MIN_KEPT_BLOCK_CHARS)
      return this.counter.count(joinMessageParts(this.render(index), keep) + MESSAGE_SEPARATOR);
    if (layout.floorTokens !== undefined) return layout.floorTokens;
    const missedBefore = this.counter.missed.size;
    const floorTokens = this.counter.count(joinMessageParts(this.render(index), keep) + MESSAGE_SEPARATOR);
    if (this.counter.missed.size === missedBefore) layout.floorTokens = floorTokens; // not a deferred 0
    return floorTokens;
  }

  /** Estimated tokens of messages `start` to `end` with cuttable parts cut to `keep` chars (before the correction). */
  private estimate(start: number, end: number, keep: number): number {
    let total = 0;
    for (let index = start; index < end; index += 1) total += this.estimateMessage(index, keep);
    return total;
  }

  /** A cut message keeps the tokens of the characters it keeps, at its own tokens per character (by piece, the floor is counted). */
  private estimateMessage(index: number, keep: number): number {
    const layout = this.layouts[index];
    if (layout === undefined) return 0;
    if (!isCutAt(layout, keep)) return layout.tokens;
    if (this.byPiece && keep === MIN_KEPT_BLOCK_CHARS) return this.countPiece(index, keep);
    return (layout.tokens * keptChars(layout, keep)) / Math.max(1, layout.chars);
  }

  /** The end of a chunk from `start` whose corrected estimate stays within `target`; at least one message. */
  private fill(start: number, target: number): number {
    let end = start;
    let used = 0;
    while (end < this.layouts.length) {
      const tokens = this.ratio * this.estimateMessage(end, MIN_KEPT_BLOCK_CHARS);
      if (end > start && used + tokens > target) break;
      used += tokens;
      end += 1;
    }
    return end;
  }

  /** Largest keep length in [MIN_KEPT_BLOCK_CHARS, longest) whose corrected estimate of Rest fits `target`. */
  private findLongestKeep(target: number, longest: number): number | undefined {
    const fits = (keep: number): boolean => this.ratio * this.estimate(0, this.layouts.length, keep) <= target;
    if (!fits(MIN_KEPT_BLOCK_CHARS)) return undefined;
    let low = MIN_KEPT_BLOCK_CHARS; // fits
    let high = longest; // Rest whole did not fit
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle;
    }
    return low;
  }

  /** The frame of a chunk's prompt: the summary so far takes at most half the room left by the instructions. */
  private chunkFrame(previousSummary: string | undefined): SummaryPromptFrame {
    if (previousSummary === undefined) return buildSummaryPromptFrame({ maxWords: this.maxWords });
    const carried = fitTextToTokens(previousSummary, Math.floor((this.limit - this.templateTokens) / 2), this.counter);
    return buildSummaryPromptFrame({ maxWords: this.maxWords, previousSummary: carried });
  }

  /** Messages `start` to `end` (excluded) as the prompt's conversation, cuttable parts cut to `keep` chars. */
  private conversation(start: number, end: number, keep: number): string {
    const texts: string[] = [];
    for (let index = start; index < end; index += 1) texts.push(joinMessageParts(this.render(index), keep));
    return texts.join(MESSAGE_SEPARATOR);
  }

  /** A chunk of the single message `index`, too large for a request: cut in the middle until the prompt fits. */
  private planOversizedChunk(index: number, frame: SummaryPromptFrame): PlannedRequest {
    const marker = this.counter.count(WIDEST_MARKER);
    let text = this.conversation(index, index + 1, MIN_KEPT_BLOCK_CHARS);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const prompt = frame.before + text + frame.after;
      const tokens = this.counter.count(prompt);
      if (tokens <= this.limit) return { prompt, end: index + 1, tokens };
      text = fitTextToTokens(
        text,
        Math.max(0, this.counter.count(text) - (tokens - this.limit) - marker),
        this.counter,
      );
    }
    // unreachable in practice (each pass shrinks the text); an empty conversation always fits,
    // since the carried summary takes at most half the room
    const prompt = frame.before + frame.after;
    return { prompt, end: index + 1, tokens: this.counter.count(prompt) };
  }
}

/**
 * `counter`, counting each distinct text once for one planner: a message the summary prompt
 * cannot cut (a user's text) comes back whole in every attempt, and a megabyte counted again is
 * most of a second. The texts are the planner's own, alive while it plans. While
 * `deferLongTexts` is on, a long text not yet counted is not counted: it is noted in `missed`
 * and counts 0 for now, so a planning pass can collect what it needs and the caller can count
 * it without holding the event loop.
 */
interface RememberingCounter extends TokenCounter {
  counts: Map<string, number>;
  missed: Set<string>;
  deferLongTexts: boolean;
}

function rememberCounts(counter: TokenCounter): RememberingCounter {
  const remembering: RememberingCounter = {
    counts: new Map<string, number>(),
    missed: new Set<string>(),
    deferLongTexts: false,
    count(text) {
      let tokens = remembering.counts.get(text);
      if (tokens === undefined) {
        if (remembering.deferLongTexts && text.length > CHARS_COUNTED_BETWEEN_YIELDS) {
          remembering.missed.add(text);
          return 0;
        }
        tokens = counter.count(text);
        remembering.counts.set(text, tokens);
      }
      return tokens;
    },
  };
  return remembering;
}

function isCutAt(layout: MessageLayout, keep: number): boolean {
  return layout.cuttableLengths.some((length) => length > keep);
}

/** Characters of a rendered message once its cuttable parts are cut to `keep` chars (about: the marker's figure varies). */
function keptChars(layout: MessageLayout, keep: number): number {
  let chars = layout.fixedChars;
  for (const length of layout.cuttableLengths) chars += length > keep ? keep + MARKER_CHARS : length;
  return chars;
}

/**
 * The message's count as `countTokens` caches it: the same texts the rendering carries, without
 * its headers (the correction ratio absorbs them). A message it cannot count (malformed, an
 * input `JSON.stringify` rejects) is estimated at four characters per token.
 */
function estimateMessageTokens(message: Message, chars: number, counter: TokenCounter): number {
  try {
    return countMessageTokens(message, counter);
  } catch {
    return Math.ceil(chars / 4);
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
