/**
 * The figures of one system's replay of one transcript, all in the package's tokens:
 *
 * - **tokens sent**: every request's messages plus the transcript's tool definitions;
 * - **read-backs**: a tool result the model never saw whole (at the first request after it
 *   arrived, the context held no `tool_result` with its whole text), but that the system's store
 *   holds, is read back by the agent in one more request: that request's context plus, one
 *   after the other, each result read back at that point (a call and its result). A result cut
 *   to a head and tail around its reference was not seen whole: it counts as one read-back of
 *   its whole text (what was left out may be anywhere in it). `agent-context replay` counts
 *   them with the same code (`src/cli/replay/read-backs.ts`);
 * - **cost with caching**: each request, read-backs included, priced against the one before
 *   with a cost model (`src/core/cost/cost-model.ts`; Anthropic's by default): the messages it shares
 *   with it from the start are a cache read (0.1x the input price), the rest a cache write
 *   (1.25x); the tool definitions always come first and always match;
 * - **requests over the window**: requests (read-backs aside) larger than the window;
 * - **prefix changes**: requests (read-backs aside) that do not start with the previous
 *   request's messages, byte for byte;
 * - **results lost**: tool results a request saw whose text is neither in the last request's
 *   context (whole, in its own `tool_result`) nor anywhere in the store;
 * - **eval probes**: `agent-context eval`'s probes of the raw transcript (the task, the latest
 *   request, the edited files, the last file read, the last command, the last error) scored on
 *   the last request's context. Its two other kinds, the archive's reference and the offloaded
 *   references, name this package's own store and are left out: what a store keeps is counted
 *   by results lost.
 */
import { countTokens } from '../../src/api/tokens.js';
import { holdsText, PROBE_KINDS, scoreCompactedContext } from '../../src/cli/replay/eval-score.js';
import { collectEvalSubjects } from '../../src/cli/replay/eval-subjects.js';
import { createPrefixTracker, estimateCachedInputCost } from '../../src/cli/replay/prompt-cache.js';
import {
  groupResultsByRequest,
  holdsWholeResult,
  measureReadBacks,
  type ArrivedResult,
} from '../../src/cli/replay/read-backs.js';
import { findRequestTurns } from '../../src/cli/replay/request-turns.js';
import { selectCostModel, type CostModel } from '../../src/core/cost/cost-model.js';
import type { Message } from '../../src/core/types.js';
import type { SystemRun } from './replay-system.js';
import type { PeerTranscript } from './transcripts.js';

/** The bench's cost model unless a run chooses another: Anthropic's (read 0.1x, write 1.25x, $3 per million input tokens). */
export const BENCH_COST_MODEL: CostModel = selectCostModel({ provider: 'anthropic' });
/** Price of a cache read, as a share of the input price, in {@link BENCH_COST_MODEL}. */
export const CACHE_READ_RATIO = BENCH_COST_MODEL.readRatio;
/** Price of a cache write, as a share of the input price, in {@link BENCH_COST_MODEL}. */
export const CACHE_WRITE_RATIO = BENCH_COST_MODEL.writeRatio;
/** US dollars per million input tokens in {@link BENCH_COST_MODEL}: `agent-context replay`'s default. */
export const PRICE_PER_MTOK = BENCH_COST_MODEL.inputPricePerMTok;

/** A cost model as `measureReadBacks` and `estimateCachedInputCost` take it. */
function priceOf(model: CostModel): { pricePerMTok: number; ratios: CostModel } {
  return { pricePerMTok: model.inputPricePerMTok, ratios: model };
}

/** The eval kinds scored here: all but the store's own (`archive`, `offloaded-result`), which results lost counts. */
const SCORED_PROBE_KINDS = new Set<string>(
  PROBE_KINDS.filter((kind) => kind !== 'archive' && kind !== 'offloaded-result'),
);

/** The figures of one or more replays, added up. */
export interface RunFigures {
  /** Model requests (read-backs aside). */
  requests: number;
  /** Tokens the transcript's own requests sent (everything, every time). */
  unmanagedTokens: number;
  tokensSent: number;
  /** Read-back requests, and the tokens they sent. */
  readBacks: number;
  readBackTokens: number;
  /** Cost with caching, in US dollars, read-backs included. */
  cachedCost: number;
  overWindow: number;
  /** Requests that follow another one, and those whose prefix of it changed. */
  transitions: number;
  prefixChanges: number;
  /** Tool results some request saw, and those lost. */
  results: number;
  lostResults: number;
  probesKept: number;
  probesTotal: number;
}

/** Figures of nothing: the start of a sum. */
export function createEmptyFigures(): RunFigures {
  return {
    requests: 0,
    unmanagedTokens: 0,
    tokensSent: 0,
    readBacks: 0,
    readBackTokens: 0,
    cachedCost: 0,
    overWindow: 0,
    transitions: 0,
    prefixChanges: 0,
    results: 0,
    lostResults: 0,
    probesKept: 0,
    probesTotal: 0,
  };
}

/** `total + figures`, field by field. */
export function addFigures(total: RunFigures, figures: RunFigures): RunFigures {
  const sum = { ...total };
  for (const key of Object.keys(sum) as Array<keyof RunFigures>) sum[key] += figures[key];
  return sum;
}

const messageKeys = new WeakMap<Message, string>();

/** The message's bytes, as a request would carry them. */
function keyOf(message: Message): string {
  let key = messageKeys.get(message);
  if (key === undefined) {
    key = JSON.stringify(message);
    messageKeys.set(message, key);
  }
  return key;
}

function tokensOf(messages: readonly Message[]): number {
  // counts are cached per message object, and add up message by message
  return messages.reduce((sum, message) => sum + countTokens([message]), 0);
}

function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  return (
    prefix.length <= messages.length &&
    prefix.every((message, index) => keyOf(message) === keyOf(messages[index] as Message))
  );
}

/**
 * The cost with caching of `requests` in order, each priced against the one before (as
 * `agent-context replay` prices them); the tool definitions (`fixedTokens`) come first in each
 * and match after the first request.
 */
export function priceWithCaching(
  requests: readonly (readonly Message[])[],
  fixedTokens: number,
  model: CostModel = BENCH_COST_MODEL,
): number {
  const tracker = createPrefixTracker();
  let cost = 0;
  for (const messages of requests) {
    const { cacheReadTokens } = tracker.next(messages, fixedTokens);
    cost += estimateCachedInputCost(fixedTokens + tokensOf(messages), cacheReadTokens, model.inputPricePerMTok, model);
  }
  return cost;
}

/** The figures of `run`, a replay of `transcript` in a `window`-token window, priced with `model`. */
export function measureRun(
  transcript: PeerTranscript,
  run: Pick<SystemRun, 'requests' | 'storedTexts'>,
  window: number,
  model: CostModel = BENCH_COST_MODEL,
): RunFigures {
  const turns = findRequestTurns(transcript.messages);
  const fixed = transcript.toolDefinitionTokens;
  const store = run.storedTexts.join('\n');
  // a store may join a result's text blocks otherwise than the transcript's text does: each block must be there whole
  const stored = (result: ArrivedResult): boolean =>
    store !== '' && result.parts.every((part) => holdsText(store, part));
  const byRequest = groupResultsByRequest(transcript.messages, turns);
  const results = [...byRequest.values()].flat();

  // read-backs: a stored result the first request after its arrival did not hold whole
  let readBacks = 0;
  let readBackTokens = 0;
  let readBackCost = 0;
  run.requests.forEach((messages, request) => {
    const figures = measureReadBacks(messages, (byRequest.get(request) ?? []).filter(stored), fixed, priceOf(model));
    readBacks += figures.requests;
    readBackTokens += figures.tokens;
    readBackCost += figures.cachedCost;
  });

  const last = run.requests.at(-1) ?? [];
  const score = scoreCompactedContext({ ...collectEvalSubjects(transcript.messages), offloadedResults: [] }, last, {
    archiveReference: null,
  });
  const scored = score.kinds.filter((kind) => SCORED_PROBE_KINDS.has(kind.kind));
  const sizes = run.requests.map((messages) => fixed + tokensOf(messages));
  return {
    requests: run.requests.length,
    unmanagedTokens: turns.reduce((sum, end) => sum + fixed + tokensOf(transcript.messages.slice(0, end)), 0),
    tokensSent: sizes.reduce((sum, size) => sum + size, 0),
    readBacks,
    readBackTokens,
    // a request after read-backs shares with the last of them what it shares with its own request
    cachedCost: priceWithCaching(run.requests, fixed, model) + readBackCost,
    overWindow: sizes.filter((size) => size > window).length,
    transitions: Math.max(0, run.requests.length - 1),
    prefixChanges: run.requests.filter(
      (messages, request) => request > 0 && !startsWith(messages, run.requests[request - 1] as Message[]),
    ).length,
    results: results.length,
    lostResults: results.filter((result) => !holdsWholeResult(last, result) && !stored(result)).length,
    probesKept: scored.reduce((sum, kind) => sum + kind.kept, 0),
    probesTotal: scored.reduce((sum, kind) => sum + kind.probes, 0),
  };
}

/**
 * The cost of writing every message of `transcript` to the cache once, as its first request
 * sends it, and reading nothing: what a system that sends every message whole to at least one
 * request cannot go below (each of its requests also reads at least the system prompt). A
 * system below it left some messages out of every request.
 */
export function priceFirstWrites(transcript: PeerTranscript, model: CostModel = BENCH_COST_MODEL): number {
  const tracker = createPrefixTracker();
  let written = 0;
  for (const messages of replayUnmanaged(transcript).requests) {
    const tokens = transcript.toolDefinitionTokens + tokensOf(messages);
    written += tokens - tracker.next(messages, transcript.toolDefinitionTokens).cacheReadTokens;
  }
  return estimateCachedInputCost(written, 0, model.inputPricePerMTok, model);
}

/** The transcript as it is, every request sending everything before its answer. */
export function replayUnmanaged(transcript: PeerTranscript): Pick<SystemRun, 'requests' | 'storedTexts'> {
  return {
    requests: findRequestTurns(transcript.messages).map((end) => transcript.messages.slice(0, end)),
    storedTexts: [],
  };
}
