/**
 * The manager's schedule priced with prompt caching, transcript by transcript:
 * `npx tsx bench/policy-sweep.ts [--windows 30000,100000,200000] [--quick] [--samples | --built] [--peers] [--cost-only] [--aged-share S] [--per-transcript]`.
 * For each window, the manager deciding by cost (Anthropic's ratios, as the bench prices),
 * the manager minimising tokens (the `'none'` cost model: every batch over its budget goes;
 * left out with `--cost-only`; `--aged-share` sets the cost-deciding manager's
 * `offload.agedBudgetChars` to that share of the first window, at 4 characters per token),
 * and with `--peers` deepagents' defaults, each replayed over the corpus (`--samples`: the
 * package's sample transcripts; `--built`: the corpus transcripts built so far; `--quick`: a few
 * of both). Prints, per window and system: the cost with caching as a
 * share of sending everything, the transcripts costlier than sending everything (and the worst),
 * the prefix changes, the requests over the window and the results lost; with `--per-transcript`,
 * a row per transcript.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCorpus, readProvenance } from './corpus/load-corpus.js';
import { DEFAULT_CORPUS_DIRECTORY } from './corpus/provenance.js';
import { createDeepagentsSystem } from './peers/deepagents-system.js';
import { createManagerSystem } from './peers/manager-system.js';
import { addFigures, createEmptyFigures, measureRun, replayUnmanaged, type RunFigures } from './peers/measure-run.js';
import { replayThrough, type PeerSystem } from './peers/replay-system.js';
import { loadPeerTranscripts, type PeerTranscript } from './peers/transcripts.js';

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
console.log(
  '| window | system | cost | costlier than unmanaged (worst) | prefix changes | over window | results lost |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const window of windows) {
  const unmanaged = transcripts.map((transcript) => measureRun(transcript, replayUnmanaged(transcript), window));
  const unmanagedCost = unmanaged.reduce((sum, figures) => sum + figures.cachedCost, 0);
  for (const system of systems) {
    let total: RunFigures = createEmptyFigures();
    let costlier = 0;
    let worst = 0;
    const rows: string[] = [];
    for (const [index, transcript] of transcripts.entries()) {
      const figures = measureRun(transcript, await replayThrough(system, transcript, window), window);
      total = addFigures(total, figures);
      const share = figures.cachedCost / (unmanaged[index] as RunFigures).cachedCost;
      if (share > 1.000001) costlier += 1;
      worst = Math.max(worst, share);
      rows.push(`  ${transcript.name}: ${(100 * share).toFixed(1)}%, ${figures.prefixChanges} prefix changes`);
    }
    console.log(
      `| ${window.toLocaleString('en-US')} | ${system.name} | ${percent(total.cachedCost, unmanagedCost)} | ${costlier} (${(100 * worst).toFixed(1)}%) | ${total.prefixChanges} | ${total.overWindow} | ${total.lostResults} |`,
    );
    if (perTranscript) console.log(rows.join('\n'));
  }
}
