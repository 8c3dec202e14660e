/**
 * The option table (src/core/options/option-table.ts) is the truth: its rows resolve options, and the
 * docs' option tables (`| option | type | default | env |` in docs/offload.md and
 * docs/compaction.md) are generated from it and scripts/option-docs.ts by
 * `npm run docs:options`; these tests fail when a page drifts from what it would generate.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as defaults from '../../../../src/core/options/defaults.js';
import { InvalidOptionError } from '../../../../src/core/errors.js';
import { OPTION_DOCS, type OptionDocSection } from '../../../../scripts/option-docs.js';
import {
  OPTION_TABLE,
  OPTIONS,
  resolveTableOption,
  type OptionFunction,
} from '../../../../src/core/options/option-table.js';
import {
  describeRule,
  findStaleOptionTables,
  OPTION_TABLE_PAGES,
  readOptionBlocks,
  renderOptionBlock,
  renderOptionTable,
  updateOptionTables,
} from '../../../../scripts/option-tables.js';

function readPage(page: string): string {
  return readFileSync(new URL(`../../../../${page}`, import.meta.url), 'utf8');
}

/** The docs section whose option table documents each function's options. */
const SECTION_OF: Record<OptionFunction, OptionDocSection | undefined> = {
  offloadToolResults: 'batch-offload',
  offloadToolResult: 'direct-offload',
  createToolResultOffloader: 'direct-offload',
  compactMessages: 'compaction',
  shouldCompact: 'token-counting',
  restoreRecentFiles: undefined, // documented in prose, with compactMessages' options
};

describe('option table', () => {
  it('has one row per option and function, each default a DEFAULT_* constant', () => {
    const keys = OPTION_TABLE.map((row) => `${row.option}@${row.appliesTo.join(',')}`);
    expect(new Set(keys).size).toBe(keys.length);
    const constants: unknown[] = Object.values(defaults);
    for (const row of OPTION_TABLE) {
      if (Array.isArray(row.default) && row.default.length === 0) continue; // excludeTools: []
      expect(constants, row.option).toContain(row.default);
    }
  });

  it('names every environment variable once', () => {
    const names = OPTION_TABLE.flatMap((row) => (row.env === undefined ? [] : [row.env]));
    expect(new Set(names).size).toBe(names.length);
  });

  it('resolves option, else variable, else default, naming the variable on bad text', () => {
    expect(resolveTableOption(OPTIONS.charThreshold, 7, { OFFLOAD_CHAR_THRESHOLD: '9' })).toBe(7);
    expect(resolveTableOption(OPTIONS.charThreshold, undefined, { OFFLOAD_CHAR_THRESHOLD: '9' })).toBe(9);
    expect(resolveTableOption(OPTIONS.charThreshold, undefined, {})).toBe(100);
    expect(() => resolveTableOption(OPTIONS.charThreshold, undefined, { OFFLOAD_CHAR_THRESHOLD: '0x10' })).toThrow(
      new InvalidOptionError('OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "0x10"'),
    );
    expect(resolveTableOption(OPTIONS.compactOutputDir, undefined, { COMPACT_OUTPUT_DIR: ' arch ' })).toBe('arch');
    expect(resolveTableOption(OPTIONS.summaryModel, undefined, {})).toBeUndefined();
    expect(resolveTableOption(OPTIONS.summaryModel, undefined, { SUMMARY_MODEL: 'm' })).toBe('m');
    expect(resolveTableOption(OPTIONS.readToolNames, undefined)).toEqual(['read_file']);
    expect(resolveTableOption(OPTIONS.pathField, undefined)).toBe('path');
    expect(resolveTableOption(OPTIONS.sessionId, undefined)).toBe('default');
    expect(() => resolveTableOption(OPTIONS.tokenSafetyFactor, 0)).toThrow(
      new InvalidOptionError('tokenSafetyFactor must be a number > 0, got 0'),
    );
  });
});

describe('docs option tables are generated from the option table', () => {
  for (const [page, sections] of Object.entries(OPTION_TABLE_PAGES)) {
    for (const section of sections) {
      it(`${page} holds the generated ${section} table`, () => {
        expect(readOptionBlocks(readPage(page)).get(section), `${page}, ${section}: run npm run docs:options`).toBe(
          renderOptionBlock(section),
        );
      });
    }
  }

  it('documents every row in the table of each function it applies to (a nested option in its parent row)', () => {
    for (const row of OPTION_TABLE) {
      const parent = row.option.includes('.') ? row.option.slice(0, row.option.indexOf('.')) : undefined;
      for (const fn of row.appliesTo) {
        const section = SECTION_OF[fn];
        if (section === undefined) continue;
        const documented = OPTION_DOCS[section].some((doc) => ('row' in doc ? doc.row === row : doc.option === parent));
        expect(documented, `${row.option} in ${section}`).toBe(true);
      }
    }
  });

  it('takes the env and default cells from the row, and the type cell from its rule', () => {
    const table = renderOptionTable([
      { row: OPTIONS.maxRetries, detail: 'retries after the first attempt' },
      { row: OPTIONS.readToolNames },
    ]);
    expect(table.split('\n').slice(2)).toEqual([
      '| `maxRetries` | integer >= 0: retries after the first attempt | `2` | `COMPACT_MAX_RETRIES` |',
      "| `readToolNames` | `string[]` | `['read_file']` | — |",
    ]);
    expect(
      [{ min: 1 }, { min: 0, max: 1 }, { above: 0 }, { min: 1, integer: true }].map((rule) => describeRule(rule)),
    ).toEqual(['number >= 1', 'number in [0, 1]', 'number > 0', 'integer >= 1']);
  });

  it('escapes a | inside a cell so the row keeps four cells', () => {
    const table = renderOptionTable([
      { option: 'reference', type: "`'relative' | 'absolute'`", defaultText: "`'relative'`" },
    ]);
    expect(table.split('\n')[2]).toBe("| `reference` | `'relative' \\| 'absolute'` | `'relative'` | — |");
  });

  it('fails when a generated table is edited by hand, naming the section and the command', () => {
    const page = 'docs/compaction.md';
    const markdown = readPage(page);
    const edited = markdown.replace('| `1200` | `SUMMARY_MAX_WORDS` |', '| `1000` | `SUMMARY_MAX_WORDS` |');
    expect(edited).not.toBe(markdown);
    expect(findStaleOptionTables(page, markdown)).toEqual([]);
    expect(findStaleOptionTables(page, edited)).toEqual([
      'docs/compaction.md: the compaction option table is out of date: run npm run docs:options',
    ]);
    expect(updateOptionTables(edited)).toBe(markdown);
  });

  it('renders a changed row differently, so a page not regenerated no longer matches', () => {
    const page = 'docs/offload.md';
    const block = readOptionBlocks(readPage(page)).get('batch-offload');
    const renamed = OPTION_DOCS['batch-offload'].map((doc) =>
      'row' in doc && doc.row === OPTIONS.ratioThreshold ? { ...doc, row: { ...doc.row, env: 'OFFLOAD_RATIO' } } : doc,
    );
    expect(renderOptionBlock('batch-offload', renamed)).not.toBe(block);
    expect(renderOptionBlock('batch-offload', renamed)).toContain('| `0.2` | `OFFLOAD_RATIO` |');
  });

  it('fails when a page loses its markers or leaves one open', () => {
    const page = 'docs/offload.md';
    const markdown = readPage(page);
    const unmarked = markdown.replace('<!-- option-table:direct-offload -->', '');
    expect(() => findStaleOptionTables(page, unmarked)).toThrow(
      '<!-- /option-table:direct-offload --> closes no open option table',
    );
    const unclosed = markdown.replace('<!-- /option-table:direct-offload -->', '');
    expect(() => findStaleOptionTables(page, unclosed)).toThrow(
      'option table "direct-offload" has no closing <!-- /option-table:direct-offload -->',
    );
    const withoutBlock = unmarked.replace('<!-- /option-table:direct-offload -->', '');
    expect(findStaleOptionTables(page, withoutBlock)).toEqual([
      'docs/offload.md: no <!-- option-table:direct-offload --> block; add the markers, then run npm run docs:options',
    ]);
  });
});
