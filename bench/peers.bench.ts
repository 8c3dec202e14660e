/**
 * The peer benchmark: real agent transcripts (the corpus of `bench/corpus/`) replayed request by
 * request through this package's context manager and through its peers (AI SDK
 * `pruneMessages`, LangChain `ClearToolUsesEdit` + `summarizationMiddleware`, deepagents'
 * eviction + summarization), in a 30,000, a 100,000 and a 200,000-token window, with one shared
 * summary text and one token counter. It prints the cost table (every window, with the floor:
 * the cheapest lossless schedule with hindsight, `floor/cheapest-schedule.ts`, and the worst
 * transcript), a table per window (see `peers/measure-run.ts` for what each column counts) and,
 * in a full run, writes them to `bench/results/peers.md`. Costs are priced with Anthropic's
 * cache prices unless `--cost-family openai|none` chooses another family's.
 * `--quick` replays two samples and three corpus transcripts and writes nothing; `--samples`
 * replays the package's own samples instead of the corpus (30,000 and 100,000 tokens).
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ROOT } from './cli-process.js';
import { aiSdkSystem } from './peers/ai-sdk-system.js';
import { createDeepagentsSystem } from './peers/deepagents-system.js';
import { langchainSystem } from './peers/langchain-system.js';
import { managerSystem } from './peers/manager-system.js';
import { selectCostModel, type CacheFamily, type CostModel } from '../src/core/cost/cost-model.js';
import { priceFloor } from './floor/transcript-floor.js';
import {
  addFigures,
  BENCH_COST_MODEL,
  createEmptyFigures,
  measureRun,
  priceFirstWrites,
  replayUnmanaged,
} from './peers/measure-run.js';
import {
  computeGoalRows,
  renderCostTable,
  renderWindowTable,
  type SystemFigures,
  type TranscriptCost,
  type WindowFigures,
} from './peers/peer-report.js';
import { replayThrough, type PeerSystem } from './peers/replay-system.js';
import { SHARED_SUMMARY } from './peers/shared-summary.js';
import { loadPeerTranscripts, type PeerTranscript } from './peers/transcripts.js';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = "Peers: the goals of this package's rows (time: its replays)";

/** The windows, in tokens: the corpus's sessions reach 200,000 tokens, the samples fit in 100,000. */
const CORPUS_WINDOWS = [30_000, 100_000, 200_000];
const SAMPLE_WINDOWS = [30_000, 100_000];
/** Where a full run writes its tables, for the README and the docs. */
const RESULTS_FILE = join(ROOT, 'bench/results/peers.md');

const SYSTEMS: readonly PeerSystem[] = [
  managerSystem,
  createDeepagentsSystem(),
  createDeepagentsSystem(1_000),
  langchainSystem,
  aiSdkSystem,
];

/** The cost model of the run: `--cost-family <family>` when given, else the bench's (Anthropic's). */
function chooseCostModel(): CostModel {
  const index = process.argv.indexOf('--cost-family');
  if (index < 0) return BENCH_COST_MODEL;
  return selectCostModel({ override: { family: process.argv[index + 1] as CacheFamily } });
}

async function measureWindow(
  transcripts: readonly PeerTranscript[],
  window: number,
  model: CostModel,
): Promise<WindowFigures> {
  let unmanaged = createEmptyFigures();
  const floor = { cost: 0, requestsOverWindow: 0, prefixChanges: 0 };
  const costs: TranscriptCost[] = [];
  for (const transcript of transcripts) {
    const figures = measureRun(transcript, replayUnmanaged(transcript), window, model);
    unmanaged = addFigures(unmanaged, figures);
    const own = priceFloor(transcript, window, model);
    floor.cost += own.cost;
    floor.requestsOverWindow += own.requestsOverWindow;
    floor.prefixChanges += own.prefixChanges;
    costs.push({ name: transcript.name, unmanaged: figures.cachedCost, own: 0, floor: own.cost });
  }
  const systems: SystemFigures[] = [];
  for (const system of SYSTEMS) {
    let figures = createEmptyFigures();
    let wallMs = 0;
    for (const [index, transcript] of transcripts.entries()) {
      const run = await replayThrough(system, transcript, window, model);
      const measured = measureRun(transcript, run, window, model);
      figures = addFigures(figures, measured);
      if (system === managerSystem) (costs[index] as TranscriptCost).own = measured.cachedCost;
      wallMs += run.wallMs;
    }
    systems.push({
      name: system.name,
      hasStore: system.hasStore,
      isPackage: system === managerSystem,
      figures,
      wallMs,
    });
  }
  return { window, unmanaged, systems, floor, transcripts: costs };
}

function describeRun(
  transcripts: readonly PeerTranscript[],
  windows: readonly WindowFigures[],
  model: CostModel,
): string {
  const byHarness = new Map<string, number>();
  for (const { harness } of transcripts)
    if (harness !== undefined) byHarness.set(harness, (byHarness.get(harness) ?? 0) + 1);
  // A corpus run lists its harnesses (provenance.json names every transcript); a sample run its transcripts.
  const names =
    transcripts.length > 6 && byHarness.size > 0
      ? `real agent sessions from bench/corpus: ${[...byHarness].map(([harness, count]) => `${count} ${harness}`).join(', ')}`
      : transcripts.map((transcript) => transcript.name).join('; ');
  const requests = windows[0]?.unmanaged.requests ?? 0;
  const firstWrites = transcripts.reduce((sum, transcript) => sum + priceFirstWrites(transcript, model), 0);
  const unmanagedCost = windows[0]?.unmanaged.cachedCost ?? 0;
  return [
    `${transcripts.length} transcripts (${names}), ${requests.toLocaleString('en-US')} model requests in each window,`,
    `replayed ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on Node ${process.version} by \`npx tsx bench/index.ts --only peers\`.`,
    `Tokens are the package's (o200k_base); cost at $${model.inputPricePerMTok} per million input tokens, ${describeCostModel(model)}. Every summarizer returns the same ${SHARED_SUMMARY.split(' ').length}-word text.`,
    `Writing every message to the cache once, as its first request sends it, and reading nothing costs $${firstWrites.toFixed(2)} (${unmanagedCost === 0 ? '0.0' : ((100 * firstWrites) / unmanagedCost).toFixed(1)}% of unmanaged):`,
    'a system that sends every message whole to at least one request costs no less; one below it left some out of every request.',
  ].join('\n');
}

/** The cost model in words: `anthropic prices (cached prefix read at 0.1x, the rest written at 1.25x)`. */
function describeCostModel(model: CostModel): string {
  return `${model.family} prices (cached prefix read at ${model.readRatio}x, the rest written at ${model.writeRatio}x)`;
}

/** Writes `text` to the results file atomically (a temporary file renamed over it). */
async function writeResults(text: string): Promise<void> {
  const temporary = `${RESULTS_FILE}.${process.pid}.tmp`;
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(temporary, text);
  await rename(temporary, RESULTS_FILE);
}

/** Replays every transcript through every system in each window; prints and (full run) writes the tables. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const set = process.argv.includes('--samples') ? 'samples' : 'corpus';
  const transcripts = await loadPeerTranscripts({ quick: options.quick, set });
  const model = chooseCostModel();
  const windows: WindowFigures[] = [];
  for (const window of set === 'samples' ? SAMPLE_WINDOWS : CORPUS_WINDOWS)
    windows.push(await measureWindow(transcripts, window, model));
  const report = [
    describeRun(transcripts, windows, model),
    renderCostTable(windows, describeCostModel(model)),
    ...windows.map(renderWindowTable),
  ].join('\n\n');
  const subject = set === 'samples' ? "the package's sample transcripts" : 'real agent transcripts';
  console.log(`\n## Peers: context management on ${subject}\n\n${report}`);
  if (!options.quick) await writeResults(`${report}\n`);
  return windows.flatMap(computeGoalRows);
}
