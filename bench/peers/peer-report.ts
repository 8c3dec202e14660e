/**
 * The peer benchmark's report: one markdown table per window (a row per system, the
 * unmanaged transcript first), this package's ratios to each peer, and the goals as bench rows.
 */
import type { BenchRow } from '../report.js';
import type { RunFigures } from './measure-run.js';

/** One system's figures in one window. */
export interface SystemFigures {
  name: string;
  hasStore: boolean;
  /** Whether it is this package's manager (the row the goals are about). */
  isPackage: boolean;
  figures: RunFigures;
  /** Wall time of its replays, in milliseconds. */
  wallMs: number;
}

/** Every system's figures in one window, with the unmanaged transcript's. */
export interface WindowFigures {
  window: number;
  unmanaged: RunFigures;
  systems: SystemFigures[];
}

const count = (value: number): string => value.toLocaleString('en-US');
const percent = (part: number, whole: number): string => `${whole === 0 ? '0.0' : ((100 * part) / whole).toFixed(1)}%`;
const dollars = (value: number): string => `$${value.toFixed(2)}`;
const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}x`;

/** Tokens with read-backs; for a system without a store, the tokens it sent (nothing can be read back). */
function tokensWithReadBacks(system: SystemFigures): number {
  return system.figures.tokensSent + system.figures.readBackTokens;
}

function renderRow(system: SystemFigures, unmanaged: RunFigures): string {
  const { figures } = system;
  const readBacks = system.hasStore
    ? `${percent(tokensWithReadBacks(system), unmanaged.tokensSent)} (+${count(figures.readBacks)} requests)`
    : 'n/a: removed results are gone';
  return [
    system.isPackage ? `**${system.name}**` : system.name,
    percent(figures.tokensSent, unmanaged.tokensSent),
    readBacks,
    `${dollars(figures.cachedCost)} (${percent(figures.cachedCost, unmanaged.cachedCost)})`,
    `${count(figures.overWindow)} of ${count(figures.requests)}`,
    `${count(figures.prefixChanges)} of ${count(figures.transitions)}`,
    `${count(figures.lostResults)} of ${count(figures.results)}`,
    `${count(figures.probesKept)}/${count(figures.probesTotal)} (${percent(figures.probesKept, figures.probesTotal)})`,
  ].join(' | ');
}

/** The table of one window, and this package's ratios to each peer. */
export function renderWindowTable(window: WindowFigures): string {
  const { unmanaged } = window;
  const unmanagedRow = [
    'unmanaged (everything, every request)',
    `100% (${count(unmanaged.tokensSent)} tokens)`,
    '-',
    `${dollars(unmanaged.cachedCost)} (100%)`,
    `${count(unmanaged.overWindow)} of ${count(unmanaged.requests)}`,
    `${count(unmanaged.prefixChanges)} of ${count(unmanaged.transitions)}`,
    `0 of ${count(unmanaged.results)}`,
    `${count(unmanaged.probesKept)}/${count(unmanaged.probesTotal)} (${percent(unmanaged.probesKept, unmanaged.probesTotal)})`,
  ].join(' | ');
  const lines = [
    `### ${count(window.window)}-token window`,
    '',
    '| system | tokens sent (% of unmanaged) | with read-backs | cost with caching | requests over the window | prefix changes | results lost | eval probes |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${unmanagedRow} |`,
    ...window.systems.map((system) => `| ${renderRow(system, unmanaged)} |`),
  ];
  const own = window.systems.find((system) => system.isPackage);
  if (own !== undefined) {
    lines.push('', `This package against each peer (${count(window.window)} tokens; below 1.00x is fewer):`, '');
    for (const peer of window.systems.filter((system) => !system.isPackage)) {
      lines.push(
        `- ${peer.name}: tokens with read-backs ${ratio(tokensWithReadBacks(own), tokensWithReadBacks(peer))}` +
          `${peer.hasStore ? '' : ' (against what it sent)'}, cost with caching ${ratio(own.figures.cachedCost, peer.figures.cachedCost)}`,
      );
    }
  }
  return lines.join('\n');
}

function describeBest(
  peers: readonly SystemFigures[],
  value: (system: SystemFigures) => number,
  format: (value: number) => string,
): string {
  const best = [...peers].sort((left, right) => value(left) - value(right))[0];
  return best === undefined ? 'no peer' : `best peer ${format(value(best))}, ${best.name}`;
}

/** The goals of this package's row in one window, as bench rows (the time is its replays' wall time). */
export function computeGoalRows(window: WindowFigures): BenchRow[] {
  const own = window.systems.find((system) => system.isPackage);
  if (own === undefined) return [];
  const peers = window.systems.filter((system) => !system.isPackage);
  const lossless = peers.filter((system) => system.figures.lostResults === 0);
  const sent = (system: SystemFigures): string => percent(tokensWithReadBacks(system), window.unmanaged.tokensSent);
  const share = (value: number): string => percent(value, window.unmanaged.tokensSent);
  const label = `${count(window.window)}-token window`;
  const fewestChanges = Math.min(...lossless.map((system) => system.figures.prefixChanges));
  const { figures } = own;
  return [
    {
      name: `${label}: tokens sent with read-backs, this package ${sent(own)}`,
      medianMs: own.wallMs,
      extra: describeBest(peers, tokensWithReadBacks, share),
      goal: "below every peer's (a pruner's: what it sent)",
      met: peers.every((peer) => tokensWithReadBacks(own) < tokensWithReadBacks(peer)),
    },
    {
      name: `${label}: results lost ${count(figures.lostResults)}, requests over the window ${count(figures.overWindow)}`,
      medianMs: own.wallMs,
      goal: '0 and 0',
      met: figures.lostResults === 0 && figures.overWindow === 0,
    },
    {
      name: `${label}: prefix changes ${count(figures.prefixChanges)} of ${count(figures.transitions)}`,
      medianMs: own.wallMs,
      extra: lossless.length === 0 ? 'no lossless peer' : `fewest of the lossless peers: ${count(fewestChanges)}`,
      goal: 'no more than the fewest of the lossless peers',
      met: lossless.length === 0 || figures.prefixChanges <= fewestChanges,
    },
    {
      name: `${label}: cost with caching ${dollars(figures.cachedCost)}`,
      medianMs: own.wallMs,
      extra: describeBest(peers, (system) => system.figures.cachedCost, dollars),
      goal: "below every peer's",
      met: peers.every((peer) => figures.cachedCost < peer.figures.cachedCost),
    },
    {
      name: `${label}: eval probes ${count(figures.probesKept)}/${count(figures.probesTotal)}`,
      medianMs: own.wallMs,
      goal: '100%',
      met: figures.probesKept === figures.probesTotal,
    },
  ];
}
