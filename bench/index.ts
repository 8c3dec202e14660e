/**
 * `npm run bench`: every benchmark of the package, each case against a baseline measured in
 * the same run. `--quick` runs fewer iterations (used by `npm run check`); `--only <name>[,<name>]`
 * runs those modules alone (`--only peers` runs `bench/peers.bench.ts`). A full run, or any run
 * with `--write`, puts each module's table in `bench/results/figures.md`, where the docs take
 * their figures from.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeFiguresFile, type FiguresSection } from './figures-file.js';
import { formatRows, printRows, type BenchRow, type BenchRunOptions } from './report.js';

type BenchModule = { title: string; run(options: BenchRunOptions): Promise<BenchRow[]> };

const options: BenchRunOptions = { quick: process.argv.includes('--quick') };
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex === -1 ? undefined : new Set((process.argv[onlyIndex + 1] ?? '').split(','));
const modules: Array<[name: string, load: () => Promise<BenchModule>]> = [
  // Each bench/*.bench.ts module registers itself here, under its file's name (for --only).
  ['offload', () => import('./offload.bench.js')],
  ['compact', () => import('./compact.bench.js')],
  ['counting', () => import('./counting.bench.js')],
  ['megabytes', () => import('./megabytes.bench.js')],
  ['cli', () => import('./cli.bench.js')],
  ['extractive', () => import('./extractive.bench.js')],
  ['stores', () => import('./stores.bench.js')],
  ['read-tool', () => import('./read-tool.bench.js')],
  ['integrations', () => import('./integrations.bench.js')],
  ['formats', () => import('./formats.bench.js')],
  ['manager', () => import('./manager.bench.js')],
  ['prepare-speed', () => import('./prepare-speed.js')],
  ['replay', () => import('./replay.bench.js')],
  ['peers', () => import('./peers.bench.js')],
  ['proxy', () => import('./proxy.bench.js')],
  ['proxy-pages', () => import('./proxy-pages.bench.js')],
];

console.log(`# agent-context-offload benchmarks (node ${process.version}, ${options.quick ? 'quick' : 'full'} run)`);
const unknown = [...(only ?? [])].filter((name) => !modules.some(([known]) => known === name));
if (unknown.length > 0) {
  console.error(
    `--only: no bench module named ${unknown.join(', ')}; the modules are ${modules.map(([name]) => name).join(', ')}`,
  );
  process.exit(2);
}
const FIGURES_FILE = fileURLToPath(new URL('./results/figures.md', import.meta.url));
const sections: FiguresSection[] = [];
for (const [name, load] of modules) {
  if (only !== undefined && !only.has(name)) continue;
  const module = await load();
  const loadBefore = loadavg();
  const started = new Date();
  const rows = await module.run(options);
  printRows(module.title, rows);
  const how = [
    `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `\`npx tsx bench/index.ts --only ${name}${options.quick ? ' --quick' : ''}\`${options.quick ? ' (fewer iterations)' : ''}`,
    `Node ${process.version}`,
    `${cpus().length} cores`,
    `load average ${loadBefore.map((value) => value.toFixed(2)).join(' / ')} before, ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' / ')} after (1, 5, 15 min)`,
  ].join(', ');
  sections.push({
    name,
    markdown: [`## ${module.title} (\`bench/${name}.bench.ts\`)`, '', `${how}.`, '', ...formatRows(rows)].join('\n'),
  });
}
if (!options.quick || process.argv.includes('--write')) {
  await writeFiguresFile(
    FIGURES_FILE,
    sections,
    modules.map(([name]) => name),
  );
  console.log(`\nfigures written to ${FIGURES_FILE}`);
}
