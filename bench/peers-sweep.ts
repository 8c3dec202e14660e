/**
 * The manager's aged budget swept over the peer benchmark's transcripts and windows:
 * `npx tsx bench/peers-sweep.ts [--shares 0,0.05,0.1,0.2,0.3,0.5]` (each share of the window,
 * at 4 characters per token, is an `offload.agedBudgetChars`; 0 is 1 character: every result
 * goes once the model has acted on it). Prints one markdown row per share: in each window,
 * the tokens sent (with read-backs), the cost with caching (both as shares of the unmanaged
 * transcript's), the prefix changes and the eval probes kept, counted as the peer benchmark
 * counts them. The budget table of docs/context-manager.md comes from it. About 5 s a share.
 */
import { createManagerSystem } from './peers/manager-system.js';
import { addFigures, createEmptyFigures, measureRun, replayUnmanaged, type RunFigures } from './peers/measure-run.js';
import { replayThrough } from './peers/replay-system.js';
import { loadPeerTranscripts, type PeerTranscript } from './peers/transcripts.js';

const WINDOWS = [30_000, 100_000];
const DEFAULT_SHARES = [0, 0.05, 0.1, 0.2, 0.3, 0.5];
/** Characters per window token the defaults assume (`CHARS_PER_WINDOW_TOKEN`). */
const CHARS_PER_TOKEN = 4;

function readShares(argv: readonly string[]): number[] {
  const at = argv.indexOf('--shares');
  if (at === -1) return DEFAULT_SHARES;
  const shares = (argv[at + 1] ?? '').split(',').map(Number);
  if (shares.length === 0 || shares.some((share) => !Number.isFinite(share) || share < 0)) {
    throw new Error(
      `--shares must be a comma-separated list of numbers >= 0, got ${JSON.stringify(argv[at + 1] ?? '')}`,
    );
  }
  return shares;
}

async function measureShare(
  transcripts: readonly PeerTranscript[],
  window: number,
  share: number,
): Promise<RunFigures> {
  const system = createManagerSystem({ agedBudgetChars: Math.max(1, Math.floor(window * CHARS_PER_TOKEN * share)) });
  let figures = createEmptyFigures();
  for (const transcript of transcripts)
    figures = addFigures(figures, measureRun(transcript, await replayThrough(system, transcript, window), window));
  return figures;
}

const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

const transcripts = await loadPeerTranscripts({ quick: false, set: 'samples' });
const unmanaged = transcripts.reduce(
  (sum, transcript) => addFigures(sum, measureRun(transcript, replayUnmanaged(transcript), WINDOWS[0] as number)),
  createEmptyFigures(),
);
const windowHeads = WINDOWS.map(
  (window) => `${window.toLocaleString('en-US')} tokens: sent (with read-backs), cost, prefix changes, probes`,
);
console.log(`| \`agedBudgetChars\` (share of the window) | ${windowHeads.join(' | ')} |`);
console.log(`| --- |${WINDOWS.map(() => ' --- |').join('')}`);
for (const share of readShares(process.argv)) {
  const cells: string[] = [];
  for (const window of WINDOWS) {
    const figures = await measureShare(transcripts, window, share);
    const sent = `${percent(figures.tokensSent, unmanaged.tokensSent)} (${percent(figures.tokensSent + figures.readBackTokens, unmanaged.tokensSent)})`;
    cells.push(
      `${sent}, ${percent(figures.cachedCost, unmanaged.cachedCost)}, ${figures.prefixChanges}, ${figures.probesKept}/${figures.probesTotal}`,
    );
  }
  console.log(`| ${share === 0 ? 'none (1 char)' : `${Number((share * 100).toFixed(1))}%`} | ${cells.join(' | ')} |`);
}
