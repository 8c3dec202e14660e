/**
 * `npm run bench`: every benchmark of the package, each case against a baseline measured in
 * the same run. `--quick` runs fewer iterations (used by `npm run check`).
 */
import { printRows, type BenchRow, type BenchRunOptions } from './report.js';

type BenchModule = { title: string; run(options: BenchRunOptions): Promise<BenchRow[]> };

const options: BenchRunOptions = { quick: process.argv.includes('--quick') };
const modules: Array<() => Promise<BenchModule>> = [
  // Each bench/*.bench.ts module registers itself here.
  () => import('./offload.bench.js'),
  () => import('./compact.bench.js'),
  () => import('./counting.bench.js'),
  () => import('./cli.bench.js'),
  () => import('./extractive.bench.js'),
  () => import('./stores.bench.js'),
  () => import('./read-tool.bench.js'),
  () => import('./integrations.bench.js'),
  () => import('./formats.bench.js'),
  () => import('./manager.bench.js'),
  () => import('./replay.bench.js'),
];

console.log(`# agent-context-offload benchmarks (node ${process.version}, ${options.quick ? 'quick' : 'full'} run)`);
for (const load of modules) {
  const module = await load();
  printRows(module.title, await module.run(options));
}
