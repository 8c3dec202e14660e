/**
 * The proxy's Prometheus metrics, in the text format `prom-client` writes. The library is loaded
 * when the handler is created, without waiting for it (it takes tens of milliseconds to load):
 * what happens before it is ready is queued and applied once it is, so every request counts.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import type * as PromClient from 'prom-client';
import type { ContextAction } from '../core/manage/types.js';

/** The added latency histogram's buckets, in seconds: a proxy adds milliseconds, a compaction seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface MetricSet {
  registry: Registry;
  requests: Counter<'route' | 'outcome'>;
  tokensBefore: Counter<'route'>;
  tokensAfter: Counter<'route'>;
  bytesBefore: Counter<'route'>;
  bytesAfter: Counter<'route'>;
  offloads: Counter<'route'>;
  compactions: Counter<'route'>;
  failOpen: Counter<'route'>;
  reads: Counter<'route'>;
  latency: Histogram<'route'>;
}

/** What the proxy reports to its metrics. */
export interface ProxyMetrics {
  /** A request handled: `route` is a managed path or `other`; `outcome` a managed outcome, `passed-through`, `refused` or `unauthorized`. */
  countRequest(route: string, outcome: string): void;
  /** A managed request's sizes and steps. */
  countManaged(
    route: string,
    figures: { tokensBefore: number; tokensAfter: number; bytesBefore: number; bytesAfter: number },
    actions: readonly ContextAction[],
    failedOpen: boolean,
  ): void;
  /** Calls of the read tool the proxy answered itself (`readTool: 'proxy'`) for one request. */
  countReads(route: string, calls: number): void;
  /** The time the proxy spent on a managed request before sending it on, in seconds. */
  observeLatency(route: string, seconds: number): void;
  /** The metrics in Prometheus text format, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

function createMetricSet(client: typeof PromClient): MetricSet {
  const registry = new client.Registry();
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> =>
    new client.Counter({ name, help, labelNames, registers });
  return {
    registry,
    requests: counter('agent_context_requests_total', 'Requests the proxy handled, by route and outcome.', [
      'route',
      'outcome',
    ]),
    tokensBefore: counter(
      'agent_context_tokens_before_total',
      'Estimated input tokens of managed requests as the client sent them.',
      ['route'],
    ),
    tokensAfter: counter(
      'agent_context_tokens_after_total',
      'Estimated input tokens of managed requests as sent upstream.',
      ['route'],
    ),
    bytesBefore: counter('agent_context_bytes_before_total', 'Request body bytes received on managed routes.', [
      'route',
    ]),
    bytesAfter: counter('agent_context_bytes_after_total', 'Request body bytes sent upstream on managed routes.', [
      'route',
    ]),
    offloads: counter('agent_context_offloads_total', 'Tool results (and inputs) offloaded to the store.', ['route']),
    compactions: counter('agent_context_compactions_total', 'Compactions of a history into a summary.', ['route']),
    failOpen: counter(
      'agent_context_fail_open_total',
      'Managed requests sent on unchanged because the context manager failed.',
      ['route'],
    ),
    reads: counter(
      'agent_context_reads_total',
      'Calls of read_offloaded the proxy answered itself (--read-tool proxy).',
      ['route'],
    ),
    latency: new client.Histogram({
      name: 'agent_context_added_latency_seconds',
      help: 'Time the proxy spent on a managed request before sending it upstream.',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
}

/** Creates the metrics; `load` imports `prom-client` (a test may hand a failing one). */
export function createProxyMetrics(load: () => Promise<typeof PromClient> = () => import('prom-client')): ProxyMetrics {
  let metrics: MetricSet | undefined;
  let pending: ((set: MetricSet) => void)[] | undefined = [];
  const ready = load().then(
    (client) => {
      const set = createMetricSet(client);
      metrics = set;
      for (const apply of pending ?? []) apply(set);
      pending = undefined;
      return set;
    },
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  // a failed load is reported at a scrape, not as an unhandled rejection
  ready.catch(() => undefined);
  const apply = (change: (set: MetricSet) => void): void => {
    if (metrics !== undefined) change(metrics);
    else pending?.push(change);
  };
  return {
    countRequest(route, outcome) {
      apply((set) => set.requests.inc({ route, outcome }));
    },
    countManaged(route, figures, actions, failedOpen) {
      let offloads = 0;
      let compactions = 0;
      for (const action of actions) {
        if (action.type === 'direct-offload' || action.type === 'batch-offload' || action.type === 'input-offload')
          offloads += action.toolCallIds.length;
        else if (action.type === 'compact') compactions += 1;
      }
      apply((set) => {
        set.tokensBefore.inc({ route }, figures.tokensBefore);
        set.tokensAfter.inc({ route }, figures.tokensAfter);
        set.bytesBefore.inc({ route }, figures.bytesBefore);
        set.bytesAfter.inc({ route }, figures.bytesAfter);
        if (offloads > 0) set.offloads.inc({ route }, offloads);
        if (compactions > 0) set.compactions.inc({ route }, compactions);
        if (failedOpen) set.failOpen.inc({ route });
      });
    },
    countReads(route, calls) {
      if (calls > 0) apply((set) => set.reads.inc({ route }, calls));
    },
    observeLatency(route, seconds) {
      apply((set) => set.latency.observe({ route }, seconds));
    },
    async scrape() {
      const set = await ready;
      return { contentType: set.registry.contentType, text: await set.registry.metrics() };
    },
  };
}
