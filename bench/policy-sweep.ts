/**
 * The manager's schedule priced with prompt caching, transcript by transcript:
 * `npx tsx bench/policy-sweep.ts [--windows 30000,100000,200000] [--quick] [--samples | --built] [--peers] [--cost-only] [--aged-share S] [--floor] [--per-transcript]`.
 * For each window, the manager deciding by cost (Anthropic's ratios, as the bench prices),
 * the manager minimising tokens (the `'none'` cost model: every batch over its budget goes;
 * left out with `--cost-only`; `--aged-share` sets the cost-deciding manager's
 * `offload.agedBudgetChars` to that share of the first window, at 4 characters per token),
 * and with `--peers` deepagents' defaults, each replayed over the corpus (`--samples`: the
 * package's sample transcripts; `--built`: the corpus transcripts built so far; `--quick`: a few
 * of both). Prints, per window and system: the cost with caching as a
 * share of sending everything, the transcripts costlier than sending everything (and the worst),
 * the prefix changes split by what the first changed message holds (a batch reference, a
 * summary, anything else: a peer's own rewrites land there), the requests over the window, the
 * results lost and the eval probes kept; with `--floor`, the cost as a ratio to the hindsight
 * floor (`floor/`) and the floor's own share; with `--per-transcript`, a row per transcript.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COMPRESSED_CONVERSATION_PREFIX } from '../src/core/compact/assemble.js';
import { BATCH_REFERENCE_PREFIX } from '../src/core/offload/offload-reference.js';
import type { Message } from '../src/core/types.js';
import { loadCorpus, readProvenance } from './corpus/load-corpus.js';
import { DEFAULT_CORPUS_DIRECTORY } from './corpus/provenance.js';
import { priceFloor } from './floor/transcript-floor.js';
import { createDeepagentsSystem } from './peers/deepagents-system.js';
import { createManagerSystem } from './peers/manager-system.js';
import {
  addFigures,
  BENCH_COST_MODEL,
  createEmptyFigures,
  measureRun,
  replayUnmanaged,
  type RunFigures,
} from './peers/measure-run.js';
import { replayThrough, type PeerSystem } from './peers/replay-system.js';
import { loadPeerTranscripts, type PeerTranscript } from './peers/transcripts.js';

/** The kinds of prefix change: what the first message a request changed holds. */
interface ChangeKinds {
  batches: number;
  compactions: number;
  others: number;
}

/** Splits the prefix changes of `requests` by what the first changed message holds: a summary, a batch reference, else another rewrite (a cut). */
function classifyChanges(requests: readonly Message[][]): ChangeKinds {
  const kinds: ChangeKinds = { batches: 0, compactions: 0, others: 0 };
  for (let request = 1; request < requests.length; request += 1) {
    const previous = requests[request - 1] as Message[];
    const current = requests[request] as Message[];
    let index = 0;
    while (
      index < previous.length &&
      index < current.length &&
      JSON.stringify(previous[index]) === JSON.stringify(current[index])
    )
      index += 1;
    if (index >= previous.length) continue;
    const changed = JSON.stringify(current.slice(index, index + 2));
    if (changed.includes(JSON.stringify(COMPRESSED_CONVERSATION_PREFIX).slice(1, -1))) kinds.compactions += 1;
    else if (JSON.stringify(current[index] ?? null).includes(BATCH_REFERENCE_PREFIX)) kinds.batches += 1;
    else kinds.others += 1;
  }
  return kinds;
}

function readList(flag: string, fallback: number[]): number[] {
  const at = process.argv.indexOf(flag);
  if (at === -1) return fallback;
  const values = (process.argv[at + 1] ?? '').split(',').map(Number);
  if (values.some((value) => !Number.isInteger(value) || value < 1))
    throw new Error(
      `${flag} must be a comma-separated list of integers >= 1, got ${JSON.stringify(process.argv[at + 1])}`,
    );
  return values;
}

/** A share given after `flag` (a number in [0, 1]), or `undefined`. */
function readShare(flag: string): number | undefined {
  const at = process.argv.indexOf(flag);
  if (at === -1) return undefined;
  const share = Number(process.argv[at + 1]);
  if (!Number.isFinite(share) || share < 0 || share > 1)
    throw new Error(`${flag} must be a number in [0, 1], got ${JSON.stringify(process.argv[at + 1])}`);
  return share;
}

async function loadTranscripts(): Promise<PeerTranscript[]> {
  if (process.argv.includes('--built')) {
    // the transcripts of the corpus built so far (a corpus being rebuilt lacks some)
    const directory = process.env.ACO_CORPUS_DIR ?? DEFAULT_CORPUS_DIRECTORY;
    const entries = await readProvenance();
    const names = entries.filter((entry) => existsSync(join(directory, entry.file))).map((entry) => entry.name);
    return loadCorpus({ directory, names });
  }
  return loadPeerTranscripts({
    quick: process.argv.includes('--quick'),
    set: process.argv.includes('--samples') ? 'samples' : 'corpus',
  });
}

const windows = readList('--windows', [30_000, 100_000, 200_000]);
const perTranscript = process.argv.includes('--per-transcript');
const agedShare = readShare('--aged-share');
const systems: PeerSystem[] = [
  createManagerSystem(
    agedShare === undefined ? undefined : { agedBudgetChars: Math.max(1, Math.floor(windows[0]! * 4 * agedShare)) },
    { family: 'anthropic' },
  ),
  ...(process.argv.includes('--cost-only') ? [] : [createManagerSystem(undefined, { family: 'none' })]),
  ...(process.argv.includes('--peers') ? [createDeepagentsSystem()] : []),
];
const transcripts = await loadTranscripts();
const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

console.log(`${transcripts.length} transcripts; cost with caching at Anthropic's ratios (read 0.1x, write 1.25x)`);
const withFloor = process.argv.includes('--floor');
console.log(
  '| window | system | cost | costlier than unmanaged (worst) | prefix changes (batches/compactions/other) | over window | results lost | eval probes kept |' +
    (withFloor ? ' vs floor |' : ''),
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |' + (withFloor ? ' --- |' : ''));
for (const window of windows) {
  const unmanaged = transcripts.map((transcript) => measureRun(transcript, replayUnmanaged(transcript), window));
  const unmanagedCost = unmanaged.reduce((sum, figures) => sum + figures.cachedCost, 0);
  const floors = withFloor
    ? transcripts.map((transcript) => priceFloor(transcript, window, BENCH_COST_MODEL).cost)
    : [];
  const floorCost = floors.reduce((sum, cost) => sum + cost, 0);
  for (const system of systems) {
    let total: RunFigures = createEmptyFigures();
    let costlier = 0;
    let worst = 0;
    const rows: string[] = [];
    const kinds: ChangeKinds = { batches: 0, compactions: 0, others: 0 };
    for (const [index, transcript] of transcripts.entries()) {
      const run = await replayThrough(system, transcript, window);
      const figures = measureRun(transcript, run, window);
      const split = classifyChanges(run.requests);
      kinds.batches += split.batches;
      kinds.compactions += split.compactions;
      kinds.others += split.others;
      total = addFigures(total, figures);
      const share = figures.cachedCost / (unmanaged[index] as RunFigures).cachedCost;
      if (share > 1.000001) costlier += 1;
      worst = Math.max(worst, share);
      const floorShare = withFloor
        ? `, ${(figures.cachedCost / (floors[index] as number)).toFixed(2)}x floor (${((100 * (floors[index] as number)) / (unmanaged[index] as RunFigures).cachedCost).toFixed(1)}%)`
        : '';
      rows.push(
        `  ${transcript.name}: ${(100 * share).toFixed(1)}%, ${figures.prefixChanges} prefix changes (${split.batches}/${split.compactions}/${split.others})${floorShare}${figures.lostResults > 0 ? `, ${figures.lostResults} results lost` : ''}${figures.probesKept < figures.probesTotal ? `, ${figures.probesKept} of ${figures.probesTotal} probes` : ''}`,
      );
    }
    console.log(
      `| ${window.toLocaleString('en-US')} | ${system.name} | ${percent(total.cachedCost, unmanagedCost)} | ${costlier} (${(100 * worst).toFixed(1)}%) | ${total.prefixChanges} (${kinds.batches}/${kinds.compactions}/${kinds.others}) | ${total.overWindow} | ${total.lostResults} | ${total.probesKept} of ${total.probesTotal} |${withFloor ? ` ${(total.cachedCost / floorCost).toFixed(3)}x (floor ${percent(floorCost, unmanagedCost)}) |` : ''}`,
    );
    if (perTranscript) console.log(rows.join('\n'));
  }
}
