/**
 * Read tool benchmark (issue 7): one page of a 10 MB offloaded result from the file store, in
 * under 20 ms, against reading the whole file with `fs.promises.readFile` in the same run.
 * - the first page reads one 256 KB range;
 * - a middle page scans 5 MB forward by ranges, counting lines: "cold" with a new tool each
 *   time (no line positions known), "warm" with one tool that has read that value before (it
 *   starts from the nearest position it remembered, at most 1 MB before the page).
 * Two logs: ASCII only (most tool output) and one with accents and CJK on every 7th line,
 * whose UTF-8 decoding costs the store more.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadOffloadedTool } from '../src/api/read-offloaded-tool.js';
import type { ContentStore } from '../src/core/ports.js';
import { createFileStore } from '../src/stores/file-store.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Read tool (issue 7)';

const TARGET_BYTES = 10 * 1024 * 1024;
const GOAL_MS = 20;

/** About 10 MB of log lines (~100 bytes each); with `multiByte`, accents and CJK on every 7th. */
function buildLog(multiByte: boolean): { text: string; lineCount: number } {
  const warning = multiByte ? 'WARN données reçues — 中文' : 'WARN payload received, retrying';
  const lines: string[] = [];
  let bytes = 0;
  for (let index = 1; bytes < TARGET_BYTES; index += 1) {
    const line = `${String(index).padStart(7, '0')} ${index % 7 === 0 ? warning : 'INFO request handled in 12 ms'} ${'.'.repeat(60)}`;
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  return { text: `${lines.join('\n')}\n`, lineCount: lines.length };
}

async function measureLog(store: ContentStore, directory: string, multiByte: boolean, options: BenchRunOptions): Promise<BenchRow[]> {
  const key = multiByte ? 'tool-result-mixed.md' : 'tool-result-ascii.md';
  const { text, lineCount } = buildLog(multiByte);
  await store.putIfAbsent(key, text);
  const ref = `[Content offloaded to: ./${key}]`;
  const middle = Math.floor(lineCount / 2);
  const warmTool = createReadOffloadedTool({ store });
  await warmTool.execute({ ref, offset: middle });

  const label = multiByte ? 'accents and CJK' : 'ASCII';
  const baselineName = `fs.promises.readFile (whole file, ${label})`;
  const names = {
    first: `first page, ${label}`,
    cold: `middle page (line ${middle.toLocaleString('en-US')}), cold, ${label}`,
    warm: `middle page (line ${middle.toLocaleString('en-US')}), warm, ${label}`,
  };
  const medians = await measureMedians(
    {
      [baselineName]: () => readFile(join(directory, key), 'utf8'),
      [names.first]: () => createReadOffloadedTool({ store }).execute({ ref }),
      [names.cold]: () => createReadOffloadedTool({ store }).execute({ ref, offset: middle }),
      [names.warm]: () => warmTool.execute({ ref, offset: middle }),
    },
    { ...options, iterations: 50 },
  );
  const baseline = { name: baselineName, medianMs: medians[baselineName]! };
  const size = `${(Buffer.byteLength(text) / 1024 / 1024).toFixed(1)} MB, ${lineCount.toLocaleString('en-US')} lines`;
  return [names.first, names.cold, names.warm].map((name) => ({
    name,
    medianMs: medians[name]!,
    baseline,
    extra: size,
    goal: `< ${GOAL_MS} ms`,
    met: medians[name]! < GOAL_MS,
  }));
}

/** Measures a first and a middle page of two 10 MB results against reading each whole file. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-context-read-bench-'));
  try {
    const store = createFileStore({ dir: directory });
    return [...(await measureLog(store, directory, false, options)), ...(await measureLog(store, directory, true, options))];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
