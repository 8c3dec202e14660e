/**
 * What a proxy did for each session, as figures a person can check: requests, tokens and the
 * estimated input cost with prompt caching, sent and as the client would have sent them
 * unmanaged, offloads, compactions, the last warning; and per session its requests in order,
 * its summaries, archives and offloaded results. In memory and bounded (the least recently
 * active sessions are forgotten, and a session keeps its latest requests only), fed once per
 * request with figures the caller already has: recording never tokenizes or reads the store.
 */
import { COMPRESSED_CONVERSATION_PREFIX } from '../compact/assemble.js';
import { estimateCachedInputCost, type CacheRatios, type CostModel } from './cost-model.js';
import { describeError } from '../errors.js';
import type { ContextAction } from '../manage/types.js';
import type { Message } from '../types.js';

/** Requests and offload steps a session keeps in its detail: its latest ones. */
export const SESSION_DETAIL_KEPT = 500;

/** Summaries a session keeps with their text (a few kilobytes each): its latest ones. */
export const SESSION_SUMMARIES_KEPT = 20;

/** One session's totals, as `/_agent-context/api/sessions` lists them. */
interface SessionSummary {
  id: string;
  /** Requests recorded (managed model requests only). */
  requests: number;
  /** Estimated input tokens sent upstream, over all requests (the system prompt and tools included). */
  tokensSent: number;
  /** The same as the client would have sent them without the proxy. */
  tokensUnmanaged: number;
  /** Estimated input cost in US dollars with prompt caching, of what was sent and of the unmanaged requests. */
  costSent: number;
  costUnmanaged: number;
  /** Tool results (and inputs) offloaded. */
  offloads: number;
  compactions: number;
  /** ISO 8601 time of the last request. */
  lastActivity: string;
  /** The last thing that went wrong or held the history back, or `null`. */
  lastWarning: string | null;
}

/** One request of a session's detail. */
interface SessionRequestRecord {
  /** ISO 8601 time the request was prepared. */
  time: string;
  route: string;
  outcome: string;
  messagesIn: number;
  messagesOut: number;
  /** Estimated input tokens as the client sent them, and as they went upstream. */
  tokensBefore: number;
  tokensAfter: number;
  bytesIn: number;
  bytesOut: number;
  costSent: number;
  costUnmanaged: number;
  /** What the context manager did, one short line per step. */
  actions: string[];
}

/** A summary a compaction wrote, with the archive of what it replaced. */
interface SessionSummaryRecord {
  time: string;
  text: string;
  /** The archive's reference, when one was written. */
  archive: string | null;
  /** Estimated tokens before and after the compaction. */
  tokensBefore: number;
  tokensAfter: number;
}

/** Results offloaded in one step. */
interface SessionOffloadRecord {
  time: string;
  /** `direct-offload`, `batch-offload` or `input-offload`. */
  type: string;
  toolCallIds: string[];
  /** The reference text now in the history, one per result (or input field). */
  references: string[];
  /** Characters the step removed from the history, all its results together. */
  freedChars: number;
}

/** One session's totals with its latest requests, summaries, archives and offloads. */
export interface SessionDetail extends SessionSummary {
  requestLog: SessionRequestRecord[];
  summaries: SessionSummaryRecord[];
  archives: { time: string; reference: string; tokensBefore: number }[];
  offloaded: SessionOffloadRecord[];
}

/** One prepared request, as the recorder takes it. */
export interface RecordedRequest {
  sessionId: string;
  /** Milliseconds since the epoch. */
  time: number;
  route: string;
  outcome: string;
  messagesIn: number;
  messagesOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Estimated input tokens sent, and as the client would have sent them. */
  tokensSent: number;
  tokensUnmanaged: number;
  /** The history sent and the client's: only compared with the session's previous ones, by object. */
  sent: readonly Message[];
  unmanaged: readonly Message[];
  actions: readonly ContextAction[];
  /** A warning the request raised, when it raised one. */
  warning?: string | undefined;
  /** How the request's provider prices its input (the proxy's route and the request's `model`); the options' prices when absent. */
  costModel?: CostModel | undefined;
}

/** Options of {@link createSessionStatistics}. */
export interface SessionStatisticsOptions {
  /** Sessions kept; past it the least recently active is forgotten. */
  maxSessions: number;
  /** US dollars per million input tokens, for a request without its own {@link RecordedRequest.costModel}. */
  pricePerMTok: number;
  /** Cache prices for a request without its own {@link RecordedRequest.costModel}. */
  cacheRatios: CacheRatios;
}

/** The recorder. */
export interface SessionStatistics {
  record(request: RecordedRequest): void;
  /** Every session kept, the most recently active first. */
  list(): SessionSummary[];
  /** One session with its detail, or `undefined`. */
  get(id: string): SessionDetail | undefined;
}

interface SessionState {
  summary: SessionSummary;
  /** The previous request's histories as message ids (holding ids, not messages, keeps memory small). */
  lastSent: readonly number[];
  lastUnmanaged: readonly number[];
  lastTokensSent: number;
  lastTokensUnmanaged: number;
  requestLog: SessionRequestRecord[];
  summaries: SessionSummaryRecord[];
  archives: { time: string; reference: string; tokensBefore: number }[];
  offloaded: SessionOffloadRecord[];
}

/** Appends `item`, dropping the oldest past `kept` (by default {@link SESSION_DETAIL_KEPT}). */
function pushBounded<T>(list: T[], item: T, kept = SESSION_DETAIL_KEPT): void {
  list.push(item);
  if (list.length > kept) list.splice(0, list.length - kept);
}

/**
 * Tokens read from the prompt cache: the previous request's tokens when its whole history is a
 * prefix of this one's, else the share of them before the first message that changed (by
 * message count: the cache breaks there, and everything after is written again).
 */
function cacheReadTokens(previous: readonly number[], current: readonly number[], previousTokens: number): number {
  if (previous.length === 0) return 0;
  // the proxy hands a message it met before on as the same object: comparing objects (their ids) is enough
  const end = Math.min(previous.length, current.length);
  let shared = 0;
  while (shared < end && previous[shared] === current[shared]) shared += 1;
  return shared === previous.length ? previousTokens : Math.floor((previousTokens * shared) / previous.length);
}

/** The summary text of a compacted history: the text after `[Conversation compressed]`. */
function findSummaryText(messages: readonly Message[]): string | undefined {
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const content = message.content;
    const text =
      typeof content === 'string'
        ? content
        : content.length > 0 && content[0]?.type === 'text'
          ? (content[0] as { text: string }).text
          : undefined;
    if (typeof text === 'string' && text.startsWith(COMPRESSED_CONVERSATION_PREFIX))
      return text.slice(COMPRESSED_CONVERSATION_PREFIX.length);
  }
  return undefined;
}

/** One short line per step of the context manager. */
function describeAction(action: ContextAction): string {
  switch (action.type) {
    case 'direct-offload':
    case 'batch-offload':
    case 'input-offload':
      return `${action.type}: ${action.toolCallIds.length} (${action.freedChars} chars freed)`;
    case 'compact':
      return `compact: ${action.tokensBefore} -> ${action.tokensAfter} tokens (${action.summarizer})`;
    case 'compact-skipped':
      return `compact-skipped: ${action.reason}`;
    case 'usage-ignored':
      return `usage-ignored: ${action.reason}`;
    case 'records-unavailable':
      return `records-unavailable: ${describeError(action.error).slice(0, 200)}`;
    case 'overhead-over-trigger':
      return `overhead-over-trigger: ${action.overheadTokens} tokens of ${action.triggerTokens}`;
    case 'writes-deferred':
      return `writes-deferred: ${action.toolCallIds.length}`;
  }
}

/** Creates a {@link SessionStatistics}. */
export function createSessionStatistics(options: SessionStatisticsOptions): SessionStatistics {
  // least recently active first: Map keeps insertion order, and a request moves its session last
  const order = new Map<string, SessionState>();
  // a message object's id: equal ids are the same object, and the map keeps no message alive
  const ids = new WeakMap<Message, number>();
  let lastId = 0;
  const idsOf = (messages: readonly Message[]): number[] =>
    messages.map((message) => {
      let id = ids.get(message);
      if (id === undefined) ids.set(message, (id = ++lastId));
      return id;
    });
  const cost = (tokens: number, read: number, model: CostModel | undefined): number =>
    model === undefined
      ? estimateCachedInputCost(tokens, read, options.pricePerMTok, options.cacheRatios)
      : estimateCachedInputCost(tokens, read, model.inputPricePerMTok, model);

  return {
    record(request) {
      let state = order.get(request.sessionId);
      if (state === undefined) {
        state = {
          summary: {
            id: request.sessionId,
            requests: 0,
            tokensSent: 0,
            tokensUnmanaged: 0,
            costSent: 0,
            costUnmanaged: 0,
            offloads: 0,
            compactions: 0,
            lastActivity: '',
            lastWarning: null,
          },
          lastSent: [],
          lastUnmanaged: [],
          lastTokensSent: 0,
          lastTokensUnmanaged: 0,
          requestLog: [],
          summaries: [],
          archives: [],
          offloaded: [],
        };
      }
      order.delete(request.sessionId);
      order.set(request.sessionId, state);
      while (order.size > options.maxSessions) order.delete(order.keys().next().value as string);

      const time = new Date(request.time).toISOString();
      const sent = idsOf(request.sent);
      const unmanaged = idsOf(request.unmanaged);
      const costSent = cost(
        request.tokensSent,
        cacheReadTokens(state.lastSent, sent, state.lastTokensSent),
        request.costModel,
      );
      const costUnmanaged = cost(
        request.tokensUnmanaged,
        cacheReadTokens(state.lastUnmanaged, unmanaged, state.lastTokensUnmanaged),
        request.costModel,
      );
      state.lastSent = sent;
      state.lastUnmanaged = unmanaged;
      state.lastTokensSent = request.tokensSent;
      state.lastTokensUnmanaged = request.tokensUnmanaged;

      const summary = state.summary;
      summary.requests += 1;
      summary.tokensSent += request.tokensSent;
      summary.tokensUnmanaged += request.tokensUnmanaged;
      summary.costSent += costSent;
      summary.costUnmanaged += costUnmanaged;
      summary.lastActivity = time;
      if (request.warning !== undefined) summary.lastWarning = `${time} ${request.warning}`;

      for (const action of request.actions) {
        if (action.type === 'direct-offload' || action.type === 'batch-offload' || action.type === 'input-offload') {
          summary.offloads += action.toolCallIds.length;
          pushBounded(state.offloaded, {
            time,
            type: action.type,
            toolCallIds: [...action.toolCallIds],
            references: [...action.references],
            freedChars: action.freedChars,
          });
        } else if (action.type === 'compact') {
          summary.compactions += 1;
          const archive = action.archiveReference ?? null;
          if (archive !== null)
            pushBounded(state.archives, { time, reference: archive, tokensBefore: action.tokensBefore });
          pushBounded(
            state.summaries,
            {
              time,
              text: findSummaryText(request.sent) ?? '',
              archive,
              tokensBefore: action.tokensBefore,
              tokensAfter: action.tokensAfter,
            },
            SESSION_SUMMARIES_KEPT,
          );
        }
      }
      pushBounded(state.requestLog, {
        time,
        route: request.route,
        outcome: request.outcome,
        messagesIn: request.messagesIn,
        messagesOut: request.messagesOut,
        tokensBefore: request.tokensUnmanaged,
        tokensAfter: request.tokensSent,
        bytesIn: request.bytesIn,
        bytesOut: request.bytesOut,
        costSent,
        costUnmanaged,
        actions: request.actions.map(describeAction),
      });
    },
    list() {
      const list: SessionSummary[] = [];
      for (const state of order.values()) list.push({ ...state.summary });
      return list.reverse();
    },
    get(id) {
      const state = order.get(id);
      if (state === undefined) return undefined;
      return {
        ...state.summary,
        requestLog: state.requestLog.slice(),
        summaries: state.summaries.slice(),
        archives: state.archives.slice(),
        offloaded: state.offloaded.slice(),
      };
    },
  };
}
