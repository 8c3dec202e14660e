/**
 * The loop shared by the docs generators: for each page, rewrite its generated blocks, or with
 * `--check` write nothing and exit 1 when a page is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** What a generator knows of its pages. */
export interface DocPageGenerator {
  pages: readonly string[];
  /** The page with its generated blocks brought up to date. */
  update(markdown: string): string;
  /** What is stale on a page, one line each. */
  findStale(page: string, markdown: string): string[];
}

/** Rewrites (or, with `--check` on the command line, checks) every page of `generator`. */
export function rewriteDocPages(generator: DocPageGenerator): void {
  const check = process.argv.includes('--check');
  const root = new URL('../', import.meta.url);
  const problems: string[] = [];
  for (const page of generator.pages) {
    const file = new URL(page, root);
    const markdown = readFileSync(file, 'utf8');
    const updated = generator.update(markdown);
    // Markers are placed by hand; a page without them cannot be fixed by rewriting.
    problems.push(...generator.findStale(page, check ? markdown : updated));
    if (!check && updated !== markdown) {
      writeFileSync(file, updated);
      console.log(`updated ${page}`);
    }
  }
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exitCode = 1;
  }
}
