/**
 * Read tool benchmark: one page of a 10 MB offloaded result from the file store, in
 * under 20 ms, against reading the whole file with `fs.promises.readFile` in the same run.
 * - the first page reads one 256 KB range;
 * - a middle page scans 5 MB forward by ranges, counting lines: "cold" with a new tool each
 *   time (no line positions known), "warm" with one tool that has read that value before (it
 *   starts from the nearest position it remembered, at most 1 MB before the page).
 * Two logs: ASCII only (most tool output) and one with accents and CJK on every 7th line,
 * whose UTF-8 decoding costs the store more.
 *
 * Search: the model's `pattern` runs on re2js (RE2's linear-time port) since a backtracking
 * engine can be frozen by one pattern. The price, measured here: a search through the whole
 * 10 MB log (patterns that match nothing, so every line is tested) with re2js against the same
 * search with JavaScript's RegExp, both through the read tool's core in the same run. And the
 * pattern that freezes RegExp, `(\w+\s*)+:` on lines `commit <40 hex chars>`, with re2js alone
 * (RegExp would not return for days).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createReadOffloadedTool } from '../src/api/read-offloaded-tool.js';
import type { ContentStore } from '../src/core/ports.js';
import {
  createLineIndex,
  DEFAULT_READ_CHUNK_BYTES,
  readOffloaded,
  type CompilePattern,
  type ResolvedReadOffloadedOptions,
} from '../src/core/read/read-offloaded.js';
import { compileRe2Pattern } from '../src/infrastructure/re2-pattern.js';
import { createFileStore } from '../src/stores/file-store.js';
import { measureMedians, type BenchRow, type BenchRunOptions } from './report.js';

export const title = 'Read tool';

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

async function measureLog(
  store: ContentStore,
  directory: string,
  multiByte: boolean,
  options: BenchRunOptions,
): Promise<BenchRow[]> {
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

/** The backtracking engine the read tool used before: the baseline of the search rows. */
const compileRegExpPattern: CompilePattern = (source, flags) => {
  const regex = new RegExp(
    source,
    `${flags.ignoreCase ? 'i' : ''}${flags.multiline ? 'm' : ''}${flags.dotAll ? 's' : ''}`,
  );
  return {
    test: (line) => regex.test(line),
    find(line) {
      const match = regex.exec(line);
      return match === null ? undefined : { index: match.index, length: match[0].length };
    },
  };
};

/**
 * Most a search through the whole 10 MB log may take with re2js. Its ratio to RegExp is printed
 * too: re2js costs a constant factor (about 1.3-4x here, most on patterns that are one literal,
 * which V8 runs natively) for a bound no pattern can break.
 */
const SEARCH_GOAL_MS = 200;

function searchOptions(compilePattern: CompilePattern): ResolvedReadOffloadedOptions {
  return {
    maxChars: 20_000,
    sessionId: undefined,
    contextLines: 2,
    chunkBytes: DEFAULT_READ_CHUNK_BYTES,
    lineIndex: createLineIndex(),
    toolName: 'read_offloaded',
    compilePattern,
  };
}

async function measureSearch(store: ContentStore, options: BenchRunOptions): Promise<BenchRow[]> {
  const key = 'tool-result-search.md';
  const { text } = buildLog(false);
  await store.putIfAbsent(key, text);
  const ref = `./${key}`;
  const re2 = searchOptions(compileRe2Pattern);
  const regExp = searchOptions(compileRegExpPattern);
  const rows: BenchRow[] = [];
  for (const pattern of ['panic|fatal', '/Timeout exceeded/i', '\\d{7} (ERROR|FATAL)', 'handled in \\d+ s\\b']) {
    const names = { regExp: `RegExp, search 10 MB for ${pattern}`, re2: `re2js, search 10 MB for ${pattern}` };
    const answers = await Promise.all([
      readOffloaded(store, { ref, pattern }, re2),
      readOffloaded(store, { ref, pattern }, regExp),
    ]);
    if (!answers.every((answer) => answer.startsWith('No line matches')))
      throw new Error(`expected no match for ${pattern}: ${answers.join(' / ')}`);
    const medians = await measureMedians(
      {
        [names.regExp]: () => readOffloaded(store, { ref, pattern }, regExp),
        [names.re2]: () => readOffloaded(store, { ref, pattern }, re2),
      },
      { ...options, iterations: 10 },
    );
    const baseline = { name: names.regExp, medianMs: medians[names.regExp]! };
    rows.push({
      name: names.re2,
      medianMs: medians[names.re2]!,
      baseline,
      goal: `< ${SEARCH_GOAL_MS} ms`,
      met: medians[names.re2]! < SEARCH_GOAL_MS,
    });
  }

  const hashes = Array.from(
    { length: 1000 },
    (_, index) => `commit ${(index * 2654435761).toString(16).padStart(8, '0').repeat(5)}`,
  ).join('\n');
  await store.putIfAbsent('tool-result-commits.md', hashes);
  const hostile = 're2js, (\\w+\\s*)+: on 1,000 lines "commit <40 hex>" (RegExp: days per line)';
  const medians = await measureMedians(
    { [hostile]: () => readOffloaded(store, { ref: './tool-result-commits.md', pattern: '(\\w+\\s*)+:' }, re2) },
    { ...options, iterations: 10 },
  );
  rows.push({ name: hostile, medianMs: medians[hostile]!, goal: '< 50 ms', met: medians[hostile]! < 50 });
  return rows;
}

/** Measures a first and a middle page of two 10 MB results against reading each whole file, and searches. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const directory = await mkdtemp(join(tmpdir(), 'agent-context-read-bench-'));
  try {
    const store = createFileStore({ dir: directory });
    return [
      ...(await measureLog(store, directory, false, options)),
      ...(await measureLog(store, directory, true, options)),
      ...(await measureSearch(store, options)),
    ];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
