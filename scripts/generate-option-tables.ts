/**
 * `npm run docs:options`: rewrites the option tables of docs/offload.md and docs/compaction.md
 * from src/core/options/option-table.ts and scripts/option-docs.ts. With `--check`, writes nothing and
 * exits 1 when a page is out of date.
 */
import { findStaleOptionTables, OPTION_TABLE_PAGES, updateOptionTables } from './option-tables.js';
import { rewriteDocPages } from './rewrite-doc-pages.js';

rewriteDocPages({
  pages: Object.keys(OPTION_TABLE_PAGES),
  update: updateOptionTables,
  findStale: findStaleOptionTables,
});
