/**
 * Counting long text, which must stay linear on any input: the default counter on
 * 100 KB of spaces, of one repeated letter, of dashes, of random base64 and of prose, each
 * against `gpt-tokenizer`'s own `countTokens` on the same text in the same run.
 *
 * Every count starts cold: the library's merge cache cleared, and the default counter's
 * remembered pre-token counts forgotten (a warm cache would serve a repeated text from memory). On the three runs of one
 * character the library alone is quadratic (seconds for 100 KB), so its figure is one count of
 * the first 20 KB, said so in the row.
 *
 * Last, the cache of `agent-context count` on 4,000 tool results of 30 KB, all of one length:
 * against a `Map` keyed by the text itself (what it was), which V8 hashes by length alone above
 * 16,383 characters, so every lookup compares text after text.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createMemoizedCounter } from '../src/cli/memoized-counter.js';
import { countTextTokens, forgetRememberedCounts } from '../src/infrastructure/tokenizer.js';
import { measureInterleaved, measureMedians, type BenchRow, type BenchRunOptions } from './report.js';
import { createRandom } from '../tests/fixtures/random.js';

export const title = 'Counting long text (linear on any input)';

const require = createRequire(import.meta.url);
// the library's own encoding, with its merge cache (the default counter has an encoding of its own)
const reference = require('gpt-tokenizer/cjs/encoding/o200k_base') as {
  countTokens(text: string, options?: { disallowedSpecial: Set<string> }): number;
  clearMergeCache(): void;
};
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

const TEXT_CHARS = 100_000;
const DEGENERATE_BASELINE_CHARS = 20_000;
const GOAL_MS = 20;
const PROSE_GOAL_RATIO = 1.2;

function buildBase64(chars: number): string {
  const random = createRandom(42);
  const bytes = Buffer.alloc((chars / 4) * 3);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = Math.floor(random() * 256);
  return bytes.toString('base64');
}

/** The package's README, repeated and cut to `chars`: prose, code blocks and tables. */
function buildProse(chars: number): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  let text = readme;
  while (text.length < chars) text += `\n${readme}`;
  return text.slice(0, chars);
}

const countCold = (count: (text: string) => number, text: string) => (): number => {
  reference.clearMergeCache();
  forgetRememberedCounts();
  return count(text);
};
const countWithLibrary = (text: string): number => reference.countTokens(text, NO_SPECIAL);

/** One count by the library with a cleared merge cache, in ms (its quadratic cases take seconds each). */
function timeOnce(text: string): number {
  reference.clearMergeCache();
  const start = performance.now();
  countWithLibrary(text);
  return performance.now() - start;
}

const format = (count: number): string => count.toLocaleString('en-US');

const EQUAL_RESULT_COUNT = 4000;
const EQUAL_RESULT_CHARS = 30_000;
/** Where the results first differ: after a shared first kilobyte (a common header, a log's preamble). */
const SHARED_HEAD_CHARS = 1000;
const CACHE_GOAL_RATIO = 0.25;

/** 4,000 distinct texts of exactly 30,000 characters each, alike for their first kilobyte. */
function buildEqualLengthResults(): string[] {
  const head = 'H'.repeat(SHARED_HEAD_CHARS);
  const tail = 'x'.repeat(EQUAL_RESULT_CHARS - SHARED_HEAD_CHARS - 10);
  return Array.from({ length: EQUAL_RESULT_COUNT }, (_, index) => `${head}${String(index).padStart(10, '0')}${tail}`);
}

/** A memo keyed by the text itself: what `count` used before. */
function createTextKeyedCounter(count: (text: string) => number): { count(text: string): number } {
  const counts = new Map<string, number>();
  return {
    count(text: string): number {
      let tokens = counts.get(text);
      if (tokens === undefined) {
        tokens = count(text);
        counts.set(text, tokens);
      }
      return tokens;
    },
  };
}

/** Each text counted twice, as `count` does (for the total, then on its own), through a fresh memo. */
const countTwice =
  (texts: readonly string[], createCounter: () => { count(text: string): number }) => async (): Promise<void> => {
    const counter = createCounter();
    for (const text of texts) counter.count(text);
    for (const text of texts) counter.count(text);
  };

export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  countTextTokens('load the encoding'); // the first count pays the load (~300 ms), not a row
  const rows: BenchRow[] = [];

  // 1. Runs of one character: one pre-token the library merges in quadratic time.
  for (const [label, unit] of [
    ['spaces', ' '],
    ["one repeated letter ('A')", 'A'],
    ['dashes', '-'],
  ] as const) {
    const text = unit.repeat(TEXT_CHARS);
    const sample = text.slice(0, DEGENERATE_BASELINE_CHARS);
    const medians = await measureMedians({ ours: countCold(countTextTokens, text) }, options);
    const ms = medians.ours as number;
    rows.push({
      name: `countTextTokens, 100 KB of ${label}`,
      medianMs: ms,
      baseline: {
        name: `gpt-tokenizer on the first 20 KB only, once (100 KB takes seconds)`,
        medianMs: timeOnce(sample),
      },
      extra: `${format(countTextTokens(text))} tokens; on the 20 KB: ${format(countTextTokens(sample))}, gpt-tokenizer ${format(countWithLibrary(sample))}`,
      goal: `<= ${GOAL_MS} ms`,
      met: ms <= GOAL_MS,
    });
  }

  // 2. Random base64 and prose: short pre-tokens, the library's own time is the floor.
  for (const [label, text, isProse] of [
    ['random base64 (seeded)', buildBase64(TEXT_CHARS), false],
    ['prose (README.md, repeated)', buildProse(TEXT_CHARS), true],
  ] as const) {
    const medians = await measureMedians(
      { library: countCold(countWithLibrary, text), ours: countCold(countTextTokens, text) },
      options,
    );
    const ms = medians.ours as number;
    const libraryMs = medians.library as number;
    rows.push({
      name: `countTextTokens, 100 KB of ${label}`,
      medianMs: ms,
      baseline: { name: 'gpt-tokenizer countTokens, same text', medianMs: libraryMs },
      extra: `${format(countTextTokens(text))} tokens; gpt-tokenizer ${format(countWithLibrary(text))}`,
      goal: isProse
        ? `<= ${GOAL_MS} ms; <= ${PROSE_GOAL_RATIO}x gpt-tokenizer`
        : `<= ${GOAL_MS} ms (gpt-tokenizer alone bounds it)`,
      met: ms <= GOAL_MS && (!isProse || ms <= PROSE_GOAL_RATIO * libraryMs),
    });
  }

  // 3. count's memo: the inner count is the length, so the figure is the lookups alone.
  const results = buildEqualLengthResults();
  const length = (text: string): number => text.length;
  const medians = await measureInterleaved(
    {
      ours: countTwice(results, () => createMemoizedCounter({ count: length })),
      textKeyed: countTwice(results, () => createTextKeyedCounter(length)),
    },
    options.quick ? 1 : 3,
  );
  const ms = medians.ours as number;
  const textKeyedMs = medians.textKeyed as number;
  rows.push({
    name: `count's memo, 4,000 tool results of 30 KB of one length, each looked up twice`,
    medianMs: ms,
    baseline: { name: 'Map keyed by the text (before)', medianMs: textKeyedMs },
    extra: 'lookups alone; texts alike for their first 1 KB (alike to the end, the text-keyed Map takes minutes)',
    goal: `<= ${CACHE_GOAL_RATIO}x the text-keyed Map`,
    met: ms <= CACHE_GOAL_RATIO * textKeyedMs,
  });
  return rows;
}
