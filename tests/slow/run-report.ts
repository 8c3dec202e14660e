/**
 * Prints what a pair of runs (straight to the model, through the proxy) did, for the person
 * running the slow suite: turns, the bytes the model received, offloads, compactions.
 */
import { totalBytes, type AgentRun } from './agent-run.js';

function countActions(run: AgentRun, type: string): number {
  return run.events.reduce((sum, event) => sum + event.actions.filter((action) => action.type === type).length, 0);
}

/** Writes the comparison to stdout. */
export function reportRun(agent: string, direct: AgentRun, proxied: AgentRun): void {
  const summaries = new Set(
    proxied.observations.map((observation) => observation.summaryHash).filter((hash) => hash !== undefined),
  );
  const firstCompacted = proxied.observations.findIndex((observation) => observation.summaryHash !== undefined);
  const lines = [
    `${agent}: ${proxied.observations.length} main-loop requests through the proxy (${proxied.sideRequests} side requests), ${direct.observations.length} without`,
    `  bytes the model received: ${totalBytes(direct).toLocaleString('en-US')} without the proxy, ${totalBytes(proxied).toLocaleString('en-US')} through it`,
    `  largest request: ${Math.max(...direct.observations.map((o) => o.bytes)).toLocaleString('en-US')} bytes without, ${Math.max(...proxied.observations.map((o) => o.bytes)).toLocaleString('en-US')} through`,
    `  offload actions: ${countActions(proxied, 'direct-offload')} direct, ${countActions(proxied, 'batch-offload')} batch; compactions: ${countActions(proxied, 'compact')} (${summaries.size} distinct summaries seen, first at request ${firstCompacted})`,
    `  per request (bytes): ${proxied.observations.map((o) => o.bytes).join(' ')}`,
  ];
  if (proxied.warnings.length > 0) lines.push(`  proxy warnings: ${proxied.warnings.join(' | ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
