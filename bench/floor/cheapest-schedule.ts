/**
 * The floor: the cheapest lossless schedule of a transcript with hindsight, over the actions
 * the context manager has, priced with prompt caching. Pure: it works on token counts only.
 *
 * ## The model
 * Request `r` (1..R) sends the messages before the transcript's `r`-th assistant message,
 * `[0, turnEnds[r-1])`, after `fixedTokens` of tool definitions. A schedule may, before a request:
 * - **offload**: replace aged tool results (and large assistant text) by their reference lines
 *   (a message costs `messageTokens[m] - offloadSavings[m]` once offloaded). Only results of earlier requests
 *   (messages before the previous request's end) may go, so the model saw each result whole once
 *   and nothing is read back;
 * - **compact**: replace the messages after the system prompt and before a point `c` by a
 *   summary of `summaryTokens` (the messages stay in the archive: no result is lost). `c` is a
 *   request boundary no later than the previous request's end: the newest turn stays verbatim.
 *   A compaction happens only when the window demands it (no offload fits the request without
 *   it), as the manager compacts only when offloading is not enough: a summary keeps the gist,
 *   not the conversation, and with a free summary and nothing else to pay, compacting before
 *   every request would be "cheapest" (a few hundred tokens written against a history read).
 *
 * A request's cost, in units of uncached input tokens: its longest prefix shared with the
 * previous request is read (`readRatio`), the rest written (`writeRatio`); the first request
 * writes everything. Each request must fit `window` (tool definitions included); when no
 * schedule of the family below can make a request fit (its newest turn alone is too large),
 * that request may take the smallest size any state reaches.
 *
 * ## The family searched, and the search
 * A state is a pair `(c, b)` of request boundaries, `c <= b`: the history before `c` is
 * compacted (none when `c` is the system prompt's end) and every offloadable result before `b`
 * is offloaded ("all results older than k at once"). Within this family the context of a
 * request is fixed by its state, and a request's cost depends only on the states of it and the
 * request before it:
 * - the same state: the previous request is a prefix of this one;
 * - `(c, b0) -> (c, b)`, `b > b0`: an offload; the prefix holds up to the first result that
 *   changed (the first offloadable result at or after `max(b0, c)`);
 * - `(c0, ·) -> (c, ·)`, `c > c0`: a compaction; the prefix is the system prompt alone.
 *
 * A dynamic programme over the requests keeps, for every state, the cheapest cost of the
 * requests so far ending in it. The offload transition's cost is `writeRatio × T(r, c, b) -
 * (writeRatio - readRatio) × shared(c, b0)`, so its best predecessor is a running minimum over
 * `b0`; the compaction's best predecessor is a running minimum over `c0`. Each request costs
 * O(K²) for K candidate boundaries, the whole O(R·K²). Boundaries are every request's end,
 * thinned to at most {@link MAX_BOUNDARIES} evenly spaced ones on long transcripts.
 *
 * The result is the exact optimum of this family (of the thinned family on long transcripts):
 * **the best schedule found by search, not a proven lower bound** over every lossless schedule
 * (one offloading results one by one, out of order, or compacting before the window demands
 * it, may cost less).
 */

/** A transcript as the floor sees it: token counts per message and where each request ends. */
export interface FloorInput {
  /** Tokens of each message (the system prompt first, when there is one). */
  messageTokens: readonly number[];
  /** Tokens an offload of each message saves: its size less its reference line's, 0 for a message that cannot go (or would not get smaller). */
  offloadSavings: readonly number[];
  /** Leading system messages: what every request sends first, and what a compaction keeps. */
  systemEnd: number;
  /** For each request in order, the number of messages it sends (the index of the assistant message that answers it). */
  turnEnds: readonly number[];
  /** Tokens of the tool definitions every request sends first. */
  fixedTokens: number;
  /** Tokens of the summary a compaction puts in place of what it replaces. */
  summaryTokens: number;
  /** The window, in tokens: no request may send more (see the relaxation above). */
  window: number;
  /** Price of a cached token read and of a token written, as shares of the input price. */
  readRatio: number;
  writeRatio: number;
}

/** The floor of one transcript. */
export interface FloorResult {
  /** Cost in units of uncached input tokens. */
  cost: number;
  /** Requests no state of the family could fit in the window (they took the smallest size reachable). */
  requestsOverWindow: number;
  /**
   * Requests whose prefix the cheapest schedule changed (an offload of a result the previous
   * request sent, or a compaction): of the cheapest schedules, one found by the search.
   */
  prefixChanges: number;
}

/** The most candidate boundaries the search keeps: O(R·K²) stays a few seconds on a thousand requests. */
export const MAX_BOUNDARIES = 200;

function prefixSums(values: readonly number[]): Float64Array {
  const sums = new Float64Array(values.length + 1);
  values.forEach((value, index) => (sums[index + 1] = (sums[index] as number) + value));
  return sums;
}

/** The boundaries of the search: the system prompt's end and request ends, at most `max` (evenly thinned, the last kept). */
function chooseBoundaries(systemEnd: number, turnEnds: readonly number[], max: number): number[] {
  const ends = [...new Set(turnEnds.filter((end) => end > systemEnd))].sort((left, right) => left - right);
  if (ends.length + 1 <= max) return [systemEnd, ...ends];
  const kept: number[] = [systemEnd];
  const step = ends.length / (max - 1);
  for (let index = 1; index < max; index += 1) {
    const end = ends[Math.min(ends.length - 1, Math.round(index * step) - 1)] as number;
    if (end !== kept.at(-1)) kept.push(end);
  }
  return kept;
}

/**
 * The cheapest schedule of the family above, with its cost.
 *
 * @example
 * ```ts
 * computeFloor({ messageTokens: [10, 10, 5], offloadSavings: [0, 0, 0], systemEnd: 1, turnEnds: [2],
 *   fixedTokens: 0, summaryTokens: 20, window: 1000, readRatio: 0.1, writeRatio: 1.25 }).cost; // 25
 * ```
 */
export function computeFloor(input: FloorInput, maxBoundaries = MAX_BOUNDARIES): FloorResult {
  const { systemEnd, turnEnds, fixedTokens, summaryTokens, window, readRatio, writeRatio } = input;
  if (turnEnds.length === 0) return { cost: 0, requestsOverWindow: 0, prefixChanges: 0 };
  const full = prefixSums(input.messageTokens);
  const saved = prefixSums(input.offloadSavings);
  const bounds = chooseBoundaries(systemEnd, turnEnds, maxBoundaries);
  const count = bounds.length;
  const base = fixedTokens + (full[systemEnd] as number);
  // the first offloadable message at or after each index (messageTokens.length when none)
  const nextOffloadable = new Int32Array(input.messageTokens.length + 1).fill(input.messageTokens.length);
  for (let index = input.messageTokens.length - 1; index >= 0; index -= 1)
    nextOffloadable[index] = (input.offloadSavings[index] ?? 0) > 0 ? index : (nextOffloadable[index + 1] as number);

  /** Tokens a request sending `[0, end)` sends in state (bounds[i], bounds[j]). */
  const size = (end: number, i: number, j: number): number => {
    const c = bounds[i] as number;
    const b = Math.min(bounds[j] as number, end);
    const kept = (full[end] as number) - (full[c] as number) - ((saved[b] as number) - (saved[c] as number));
    return base + (i > 0 ? summaryTokens : 0) + kept;
  };

  let costs = new Float64Array(count * count).fill(Infinity);
  let next = new Float64Array(count * count);
  // the prefix changes of the cheapest way into each state, beside its cost
  let changes = new Float64Array(count * count);
  let nextChanges = new Float64Array(count * count);
  let requestsOverWindow = 0;
  // before the first request: nothing compacted, nothing offloaded; it writes all it sends
  const firstEnd = turnEnds[0] as number;
  let previousEnd = firstEnd;
  // states usable before request r: boundaries at or before the previous request's end
  let usable = bounds.filter((bound) => bound <= systemEnd).length;
  {
    const tokens = size(firstEnd, 0, 0);
    if (tokens > window) requestsOverWindow += 1;
    costs[0] = writeRatio * tokens;
  }
  for (let request = 1; request < turnEnds.length; request += 1) {
    const end = turnEnds[request] as number;
    while (usable < count && (bounds[usable] as number) <= previousEnd) usable += 1;
    next.fill(Infinity);
    // the cheapest way into a compaction: the best state of any earlier compaction point
    let bestBelow = Infinity;
    let bestBelowChanges = 0;
    let smallest = Infinity;
    for (let i = 0; i < usable; i += 1) {
      const c = bounds[i] as number;
      // the best offload predecessor so far for this c: min over b0 < b of cost - (w - r) × shared
      let bestOffload = Infinity;
      let bestOffloadChanges = 0;
      let rowBest = Infinity;
      let rowBestChanges = 0;
      for (let j = i; j < usable; j += 1) {
        const tokens = size(end, i, j);
        smallest = Math.min(smallest, tokens);
        const here = costs[i * count + j] as number;
        let cost = Infinity;
        let costChanges = 0;
        if (here < Infinity) {
          const previous = size(previousEnd, i, j);
          cost = here + readRatio * previous + writeRatio * (tokens - previous);
          costChanges = changes[i * count + j] as number;
        }
        if (bestOffload < Infinity && bestOffload + writeRatio * tokens < cost)
          [cost, costChanges] = [bestOffload + writeRatio * tokens, bestOffloadChanges];
        if (i > 0 && bestBelow < Infinity && bestBelow + writeRatio * tokens < cost)
          [cost, costChanges] = [bestBelow + writeRatio * tokens, bestBelowChanges];
        next[i * count + j] = cost;
        nextChanges[i * count + j] = costChanges;
        if (here < Infinity) {
          // the prefix an offload from this state keeps: up to its first offloadable result
          const b = Math.max(c, Math.min(bounds[j] as number, previousEnd));
          const changed = Math.min(nextOffloadable[b] as number, previousEnd);
          const shared = size(changed, i, j);
          const viaHere = here - (writeRatio - readRatio) * shared;
          if (viaHere < bestOffload) {
            bestOffload = viaHere;
            // a later state offloads from here; the prefix changes when a result it sent goes
            bestOffloadChanges = (changes[i * count + j] as number) + (changed < previousEnd ? 1 : 0);
          }
          if (here < rowBest) [rowBest, rowBestChanges] = [here, changes[i * count + j] as number];
        }
      }
      // a compaction to a later point reads the system prompt and the tool definitions only; it
      // may leave this point only when no offload keeps the request in the window from here
      const forced = size(end, i, usable - 1) > window;
      if (forced && rowBest < Infinity && rowBest + (readRatio - writeRatio) * base < bestBelow)
        [bestBelow, bestBelowChanges] = [rowBest + (readRatio - writeRatio) * base, rowBestChanges + 1];
    }
    // the window: a state over it is out, unless no state fits
    const limit = smallest > window ? smallest : window;
    if (smallest > window) requestsOverWindow += 1;
    for (let i = 0; i < usable; i += 1)
      for (let j = i; j < usable; j += 1) if (size(end, i, j) > limit) next[i * count + j] = Infinity;
    [costs, next] = [next, costs];
    [changes, nextChanges] = [nextChanges, changes];
    previousEnd = end;
  }
  let cost = Infinity;
  let prefixChanges = 0;
  for (const [index, value] of costs.entries())
    if (value < cost) [cost, prefixChanges] = [value, changes[index] as number];
  return { cost, requestsOverWindow, prefixChanges };
}
