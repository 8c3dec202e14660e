/**
 * The proxy's per-session figures and metrics: each managed request's event, recorded once its
 * answer is out (reading the manager's token estimate may tokenize the messages it just wrote,
 * and no answer should wait for that).
 */
import {
  DEFAULT_CACHE_READ_RATIO,
  DEFAULT_CACHE_WRITE_RATIO,
  DEFAULT_PRICE_PER_MTOK,
  type CostModel,
} from '../core/cost/cost-model.js';
import { describeError } from '../core/errors.js';
import { createSessionStatistics, type SessionStatistics } from '../core/cost/session-statistics.js';
import type { Logger } from '../core/ports.js';
import type { Message } from '../core/types.js';
import type { ProxyMetrics } from './metrics.js';
import type { ProxyRequestEvent } from './proxy-options.js';

/** Records requests into a {@link SessionStatistics}. */
export interface ProxyStatistics {
  readonly sessions: SessionStatistics;
  /**
   * Records `event`, prepared at `time` (milliseconds since the epoch), with the histories sent
   * and received. Called once the answer is out: reading the manager's token estimate may
   * tokenize the messages it just wrote, and no answer should wait for that.
   */
  record(
    event: ProxyRequestEvent,
    sent: readonly Message[],
    unmanaged: readonly Message[],
    time: number,
    costModel?: CostModel,
  ): void;
}

/** What went wrong or held the history back in one request, for a session's `lastWarning`. */
function describeWarning(event: ProxyRequestEvent): string | undefined {
  if (event.outcome === 'fail-open')
    return `the context manager failed (${describeError(event.error).slice(0, 200)}); the request was sent unchanged`;
  const skipped = event.actions.find((action) => action.type === 'compact-skipped');
  const deferred = event.actions.find((action) => action.type === 'writes-deferred');
  const parts: string[] = [];
  if (event.outcome === 'over-window') parts.push('the history is still over the window');
  if (skipped !== undefined) parts.push(`compaction skipped (${skipped.reason})`);
  if (deferred !== undefined) parts.push(`the store refused ${deferred.toolCallIds.length} offload(s)`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** Per-session figures of at most `maxSessions` sessions; each request's figures are also counted in `metrics`. */
export function createProxyStatistics(maxSessions: number, metrics: ProxyMetrics, logger: Logger): ProxyStatistics {
  const sessions = createSessionStatistics({
    maxSessions,
    pricePerMTok: DEFAULT_PRICE_PER_MTOK,
    cacheRatios: { readRatio: DEFAULT_CACHE_READ_RATIO, writeRatio: DEFAULT_CACHE_WRITE_RATIO },
  });
  return {
    sessions,
    record(event, sent, unmanaged, time, costModel) {
      metrics.countRequest(event.route, event.outcome);
      // the figures are a view of the proxy's work: a fault in them never reaches a request or the process
      try {
        recordNow(event, sent, unmanaged, event.sessionId, time, costModel);
      } catch (error) {
        logger.warn(`agent-context proxy: a request's figures could not be recorded (${describeError(error)})`);
      }
    },
  };

  function recordNow(
    event: ProxyRequestEvent,
    sent: readonly Message[],
    unmanaged: readonly Message[],
    sessionId: string | undefined,
    time: number,
    costModel: CostModel | undefined,
  ): void {
    const tokensSent = event.stats?.tokensAfter ?? 0;
    // the client's body against the one sent: what the manager removed, in the sent tokens' terms
    const tokensUnmanaged = event.bytesOut > 0 ? Math.round((tokensSent * event.bytesIn) / event.bytesOut) : tokensSent;
    metrics.countManaged(
      event.route,
      {
        tokensBefore: tokensUnmanaged,
        tokensAfter: tokensSent,
        bytesBefore: event.bytesIn,
        bytesAfter: event.bytesOut,
      },
      event.actions,
      event.outcome === 'fail-open',
    );
    if (sessionId === undefined) return;
    sessions.record({
      sessionId,
      time,
      route: event.route,
      outcome: event.outcome,
      messagesIn: event.messagesIn,
      messagesOut: event.messagesOut,
      bytesIn: event.bytesIn,
      bytesOut: event.bytesOut,
      tokensSent,
      tokensUnmanaged,
      sent,
      unmanaged,
      actions: event.actions,
      warning: describeWarning(event),
      costModel,
    });
  }
}
