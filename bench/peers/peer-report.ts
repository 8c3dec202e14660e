/**
 * The peer benchmark's report: the cost table (every window, every system's cost with caching
 * against the unmanaged transcript and the floor, the worst transcript), one markdown table per
 * window (a row per system, the unmanaged transcript first, then the floor), this package's
 * ratios to each peer, and the goals as bench rows.
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

/** One transcript's cost with caching in one window: unmanaged, this package's, and the floor's. */
export interface TranscriptCost {
  name: string;
  unmanaged: number;
  own: number;
  floor: number;
}

/** Every system's figures in one window, with the unmanaged transcript's and the floor's. */
export interface WindowFigures {
  window: number;
  unmanaged: RunFigures;
  systems: SystemFigures[];
  /** The cheapest lossless schedule found with hindsight, summed over the transcripts (see `bench/floor/`). */
  floor: { cost: number; requestsOverWindow: number; prefixChanges: number };
  /** Per transcript, for the worst case (absent when this package's row was not run). */
  transcripts: TranscriptCost[];
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

/** The transcript where this package's cost over unmanaged is highest, and how many cost more than unmanaged. */
export function findWorstTranscript(window: WindowFigures): {
  worst: TranscriptCost | undefined;
  costlier: number;
  total: number;
} {
  const share = (transcript: TranscriptCost): number =>
    transcript.unmanaged === 0 ? 0 : transcript.own / transcript.unmanaged;
  const sorted = [...window.transcripts].sort((left, right) => share(right) - share(left));
  return {
    worst: sorted[0],
    // a cent's hundredth of rounding is not a cost over unmanaged
    costlier: window.transcripts.filter((transcript) => transcript.own > transcript.unmanaged + 1e-9).length,
    total: window.transcripts.length,
  };
}

const windowLabel = (window: number): string => `${Math.round(window / 1000)}K`;

/**
 * The cost table: a column per system, rows per window for the cost with caching (% of
 * unmanaged; this package's also as a ratio to the floor), prefix changes, requests over the
 * window, results lost and eval probes; then the worst transcript of each window.
 */
export function renderCostTable(windows: readonly WindowFigures[], costModel: string): string {
  const systems = windows[0]?.systems ?? [];
  const header = [
    'window',
    'floor (hindsight)',
    ...systems.map((system) => (system.isPackage ? `**${system.name}**` : system.name)),
  ];
  const lines = [
    `### Cost with caching (${costModel}), % of sending everything`,
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
  ];
  for (const window of windows) {
    const label = windowLabel(window.window);
    const own = window.systems.find((system) => system.isPackage);
    const cells = (render: (system: SystemFigures) => string): string => window.systems.map(render).join(' | ');
    const floorShare = percent(window.floor.cost, window.unmanaged.cachedCost);
    lines.push(
      `| ${label} cost | ${floorShare} | ${cells((system) => {
        const share = percent(system.figures.cachedCost, window.unmanaged.cachedCost);
        return system === own && window.floor.cost > 0
          ? `**${share}** (${ratio(system.figures.cachedCost, window.floor.cost)} the floor)`
          : share;
      })} |`,
      `| ${label} prefix changes | ${count(window.floor.prefixChanges)} | ${cells((system) => count(system.figures.prefixChanges))} |`,
      `| ${label} requests over the window | ${count(window.floor.requestsOverWindow)} | ${cells((system) => count(system.figures.overWindow))} |`,
      `| ${label} results lost | 0 | ${cells((system) => `${count(system.figures.lostResults)} of ${count(system.figures.results)}`)} |`,
      `| ${label} eval probes | - | ${cells((system) => `${count(system.figures.probesKept)}/${count(system.figures.probesTotal)}`)} |`,
    );
  }
  lines.push('');
  for (const window of windows) {
    const { worst, costlier, total } = findWorstTranscript(window);
    if (worst === undefined) continue;
    lines.push(
      `- ${windowLabel(window.window)}: worst transcript ${worst.name}, this package at ${percent(worst.own, worst.unmanaged)} of unmanaged ` +
        `(floor ${percent(worst.floor, worst.unmanaged)}); ${count(costlier)} of ${count(total)} transcripts cost more than unmanaged.`,
    );
  }
  lines.push(
    '',
    "The floor is the cheapest lossless schedule found with hindsight per transcript over the manager's actions",
    '(aged results and large tool-input fields offloaded, all older than a point at once; compactions at request',
    'boundaries), every request in the window where any schedule fits it; `bench/floor/cheapest-schedule.ts` says how',
    'it is searched. Its prefix changes are those of the cheapest schedule it found.',
  );
  return lines.join('\n');
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
    `| floor (cheapest lossless schedule, hindsight) | - | - | ${dollars(window.floor.cost)} (${percent(window.floor.cost, unmanaged.cachedCost)}) | ${count(window.floor.requestsOverWindow)} of ${count(unmanaged.requests)} | ${count(window.floor.prefixChanges)} of ${count(unmanaged.transitions)} | 0 of ${count(unmanaged.results)} | - |`,
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
  const worst = findWorstTranscript(window);
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
      // some probes name what no context shows (a command no transcript prints): sending everything is the most there is
      extra: `sending everything keeps ${count(window.unmanaged.probesKept)}`,
      goal: 'as many as sending everything keeps',
      met: figures.probesKept >= window.unmanaged.probesKept,
    },
    {
      name: `${label}: cost with caching ${window.floor.cost > 0 ? ratio(figures.cachedCost, window.floor.cost) : '-'} the floor`,
      medianMs: own.wallMs,
      extra: `floor ${dollars(window.floor.cost)} (${percent(window.floor.cost, window.unmanaged.cachedCost)} of unmanaged)`,
      goal: 'at most 1.15x',
      met: figures.cachedCost <= 1.15 * window.floor.cost,
    },
    {
      name: `${label}: transcripts costlier than unmanaged ${count(worst.costlier)} of ${count(worst.total)}`,
      medianMs: own.wallMs,
      extra:
        worst.worst === undefined
          ? 'no transcript'
          : `worst ${worst.worst.name}, ${percent(worst.worst.own, worst.worst.unmanaged)}`,
      goal: '0',
      met: worst.costlier === 0,
    },
  ];
}
