/**
 * `npm run docs:outputs`: runs the commands the docs quote with the built CLI (`npm run build`
 * first) and rewrites their outputs in the pages (see cli-outputs.ts). With `--check`, writes
 * nothing and exits 1 when a page is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { CLI_OUTPUT_PAGES, findStaleCliOutputs, produceCliOutputs, updateCliOutputs } from './cli-outputs.js';

const check = process.argv.includes('--check');
const root = new URL('../', import.meta.url);
const outputs = produceCliOutputs();
const problems: string[] = [];

for (const page of CLI_OUTPUT_PAGES) {
  const file = new URL(page, root);
  const markdown = readFileSync(file, 'utf8');
  const updated = updateCliOutputs(markdown, outputs);
  // Markers are placed by hand; a page without them cannot be fixed by rewriting.
  problems.push(...findStaleCliOutputs(page, check ? markdown : updated, outputs));
  if (!check && updated !== markdown) {
    writeFileSync(file, updated);
    console.log(`updated ${page}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
}
