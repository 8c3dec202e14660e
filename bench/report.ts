/**
 * Shared pieces of the benchmark harness: every case is measured with tinybench in the same
 * run as its baseline, and printed with its ratio to that baseline and its goal.
 */
import { Bench } from 'tinybench';

/** One printed row of the benchmark report. */
export interface BenchRow {
  /** What was measured. */
  name: string;
  /** Median time in milliseconds. */
  medianMs: number;
  /** The baseline it is compared with, measured in the same run, when there is one. */
  baseline?: { name: string; medianMs: number };
  /** Other figures (memory, counts), printed as is. */
  extra?: string;
  /** The goal, in words, e.g. `<= 1.5x the floor`. */
  goal: string;
  /** Whether the measured figure meets the goal. */
  met: boolean;
}

/** Options every bench module receives. */
export interface BenchRunOptions {
  /** Fewer iterations: used by `npm run check` so CI stays fast. */
  quick: boolean;
}

/** Measures each task with tinybench and returns its median in ms, by name. */
export async function measureMedians(
  tasks: Record<string, () => unknown>,
  options: BenchRunOptions & { iterations?: number; setup?: () => unknown },
): Promise<Record<string, number>> {
  const bench = new Bench({
    iterations: options.quick ? 5 : (options.iterations ?? 30),
    time: options.quick ? 50 : 1000,
    warmup: true,
    warmupIterations: options.quick ? 1 : 3,
  });
  for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
  await bench.run();
  const medians: Record<string, number> = {};
  for (const task of bench.tasks) {
    const result = task.result as { latency?: { p50?: number }; error?: unknown } | undefined;
    if (result?.error) throw result.error;
    medians[task.name] = result?.latency?.p50 ?? Number.NaN;
  }
  return medians;
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function computeMedian(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Runs each task once per round with tinybench, alternating their order, after two untimed
 * rounds; returns each task's median over the rounds, by name. Disk and machine speed drift
 * over seconds: interleaving makes every side see the same drift.
 */
export async function measureInterleaved(
  tasks: Record<string, () => Promise<void>>,
  rounds: number,
): Promise<Record<string, number>> {
  const names = Object.keys(tasks);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = -2; round < rounds; round++) {
    const bench = new Bench({ iterations: 1, time: 0, warmup: false });
    for (const name of round % 2 === 0 ? names : [...names].reverse()) bench.add(name, tasks[name]!);
    await bench.run();
    if (round < 0) continue;
    for (const task of bench.tasks) {
      const result = task.result as { latency?: { p50?: number }; error?: unknown } | undefined;
      if (result?.error) throw result.error;
      samples[task.name]!.push(result?.latency?.p50 ?? Number.NaN);
    }
  }
  return Object.fromEntries(names.map((name) => [name, computeMedian(samples[name]!)]));
}

/** Formats milliseconds for the report. */
export function formatMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}

/** The rows as a Markdown table, one line each. */
export function formatRows(rows: readonly BenchRow[]): string[] {
  const lines = [
    '| case | median | baseline (same run) | ratio | goal | met |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const baseline = row.baseline ? `${row.baseline.name}: ${formatMs(row.baseline.medianMs)}` : '-';
    const ratio = row.baseline ? `${(row.medianMs / row.baseline.medianMs).toFixed(2)}x` : '-';
    const median = row.extra ? `${formatMs(row.medianMs)} (${row.extra})` : formatMs(row.medianMs);
    lines.push(`| ${row.name} | ${median} | ${baseline} | ${ratio} | ${row.goal} | ${row.met ? 'yes' : 'no'} |`);
  }
  return lines;
}

/** Prints the rows as a table. */
export function printRows(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n## ${title}\n`);
  for (const line of formatRows(rows)) console.log(line);
}
