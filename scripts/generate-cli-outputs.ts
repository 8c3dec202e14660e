/**
 * `npm run docs:outputs`: runs the commands the docs quote with the built CLI (`npm run build`
 * first) and rewrites their outputs in the pages (see cli-outputs.ts). With `--check`, writes
 * nothing and exits 1 when a page is out of date.
 */
import { CLI_OUTPUT_PAGES, findStaleCliOutputs, produceCliOutputs, updateCliOutputs } from './cli-outputs.js';
import { rewriteDocPages } from './rewrite-doc-pages.js';

const outputs = await produceCliOutputs();
rewriteDocPages({
  pages: CLI_OUTPUT_PAGES,
  update: (markdown) => updateCliOutputs(markdown, outputs),
  findStale: (page, markdown) => findStaleCliOutputs(page, markdown, outputs),
});
