/**
 * `npm run docs:options`: rewrites the option tables of docs/offload.md and docs/compaction.md
 * from src/core/option-table.ts and scripts/option-docs.ts. With `--check`, writes nothing and
 * exits 1 when a page is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { findStaleOptionTables, OPTION_TABLE_PAGES, updateOptionTables } from './option-tables.js';

const check = process.argv.includes('--check');
const root = new URL('../', import.meta.url);
const problems: string[] = [];

for (const page of Object.keys(OPTION_TABLE_PAGES)) {
  const file = new URL(page, root);
  const markdown = readFileSync(file, 'utf8');
  const updated = updateOptionTables(markdown);
  // Markers are placed by hand; a page without them cannot be fixed by rewriting.
  const stale = findStaleOptionTables(page, updated);
  problems.push(...(check ? findStaleOptionTables(page, markdown) : stale));
  if (!check && updated !== markdown) {
    writeFileSync(file, updated);
    console.log(`updated ${page}`);
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exitCode = 1;
}
