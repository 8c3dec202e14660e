/**
 * The usage of an answer, read off it on the side as it streams to the client, and recorded for
 * the session's next request: that request, to this process or another, anchors its count on it.
 */
import type { IncomingMessage } from 'node:http';
import type { ResponseObserver } from './forward.js';
import { toLastUsage, type ProxyRoute } from './routes.js';
import { createUsageTap } from './usage-tap.js';
import type { HistoryFingerprints, UsageRecords } from './usage-records.js';

/** What the answer's figure is recorded against: the history prepared, its session and credential. */
interface ObservedRequest {
  sessionKey: string;
  event: { sessionId?: string | undefined };
  /** The history items sent, when the answer's usage can describe the next history's first items. */
  usageMessageCount: number | undefined;
  history: HistoryFingerprints['whole'];
}

/** The request whose answer is observed, and where its figure goes. */
export interface UsageObserverOptions {
  route: ProxyRoute;
  /** `undefined` when the request went on unprepared: nothing is recorded. */
  prepared: ObservedRequest | undefined;
  usages: UsageRecords;
  /** Figures being read and recorded, by session and credential: the session's next request waits for its own. */
  readingUsage: Map<string, Promise<void>>;
}

/** The observer of an upstream answer: `undefined` for an answer that records nothing (a failure, a request not prepared). */
export function createUsageObserver(
  options: UsageObserverOptions,
): (upstreamResponse: Pick<IncomingMessage, 'statusCode' | 'headers'>) => ResponseObserver | undefined {
  const { route, prepared, usages, readingUsage } = options;
  return (upstreamResponse) => {
    const status = upstreamResponse.statusCode ?? 0;
    const sessionKey = prepared?.sessionKey;
    const sessionId = prepared?.event.sessionId;
    const messageCount = prepared?.usageMessageCount;
    const history = prepared?.history;
    if (
      sessionKey === undefined ||
      sessionId === undefined ||
      messageCount === undefined ||
      history === undefined ||
      status < 200 ||
      status >= 300
    )
      return undefined;
    const tap = createUsageTap(
      route,
      upstreamResponse.headers['content-type'],
      upstreamResponse.headers['content-encoding'],
    );
    return {
      chunk: (chunk) => tap.write(chunk),
      end() {
        // the answer's last bytes wait for its figure to be recorded: the client's next request,
        // to this process or another, finds it (an inflated body takes a few ms)
        const read = tap.end().then(async (figures) => {
          if (figures !== undefined)
            await usages.record(sessionId, sessionKey, history, toLastUsage(route.provider, figures, messageCount));
          if (readingUsage.get(sessionKey) === read) readingUsage.delete(sessionKey);
        });
        readingUsage.set(sessionKey, read);
        return read;
      },
    };
  };
}
