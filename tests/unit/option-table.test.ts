/**
 * The option table (src/core/option-table.ts) is the truth; the README's option tables
 * (`| option | type | default | env |`) must agree with it: same env variable, same default.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as defaults from '../../src/core/defaults.js';
import { InvalidOptionError } from '../../src/core/errors.js';
import { OPTION_TABLE, OPTIONS, resolveTableOption, type OptionFunction, type OptionRow } from '../../src/core/option-table.js';

/** The reference pages holding the option tables (docs/offload.md, docs/compaction.md), joined. */
const README = ['offload.md', 'compaction.md'].map((page) => readFileSync(new URL(`../../docs/${page}`, import.meta.url), 'utf8')).join('\n');

/** The docs section (`## title`) whose option table documents each function's options. */
const SECTION_OF: Record<OptionFunction, string | undefined> = {
  offloadToolResults: 'Batch offload',
  offloadToolResult: 'Direct offload',
  createToolResultOffloader: 'Direct offload',
  compactMessages: 'Compaction',
  shouldCompact: 'Token counting',
  restoreRecentFiles: undefined, // documented in prose, with compactMessages' options
};

/**
 * README rows whose env column names variables that are not one option's value: `llmClient`
 * (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` choose a client, they have no table row).
 */
const ENV_WITHOUT_ROW = new Set(['Compaction/llmClient']);

interface DocRow {
  option: string;
  defaultCell: string;
  envCell: string;
}

function splitCells(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replace(/\\\|/g, '|'));
}

/** The option tables of each `## ` section of `readme`, by section title. */
function readOptionTables(readme: string): Map<string, DocRow[]> {
  const tables = new Map<string, DocRow[]>();
  let section = '';
  let inTable = false;
  for (const line of readme.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (/^\|\s*option\s*\|\s*type\s*\|\s*default\s*\|\s*env\s*\|/.test(line)) {
      inTable = true;
      continue;
    }
    if (!inTable) continue;
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = splitCells(line);
    if (cells.every((cell) => /^-+$/.test(cell))) continue;
    const option = codeSpans(cells[0] ?? '')[0];
    if (option === undefined) continue;
    const rows = tables.get(section) ?? [];
    rows.push({ option, defaultCell: cells[2] ?? '', envCell: cells[3] ?? '' });
    tables.set(section, rows);
  }
  return tables;
}

/** Whitespace removed, `"` as `'`, digit separators dropped: `200_000`, `200,000` and `200000` agree. */
function normalize(text: string): string {
  return text
    .replace(/\s+/g, '')
    .replace(/"/g, "'")
    .replace(/(\d)[_,](?=\d)/g, '$1');
}

/** A default as the README writes it: `100`, `0.2`, `'.compact'`, `['read_file']`, `[]`. */
function formatDefault(value: OptionRow['default']): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value}'`;
  return `[${value.map((item) => `'${item}'`).join(', ')}]`;
}

function envNames(cell: string): string[] {
  return codeSpans(cell).filter((span) => /^[A-Z][A-Z0-9_]*$/.test(span));
}

/** Every disagreement between `table` and the option tables of `readme`; empty when they agree. */
function findDrift(table: readonly OptionRow[], readme: string): string[] {
  const docs = readOptionTables(readme);
  const problems: string[] = [];
  for (const row of table) {
    const sections = [...new Set(row.appliesTo.map((fn) => SECTION_OF[fn]).filter((s): s is string => s !== undefined))];
    const expected = normalize(formatDefault(row.default));
    const dot = row.option.indexOf('.');
    if (dot !== -1) {
      // A nested option (`preview.headChars`) is documented in its parent's row; its default
      // must appear there in at least one section ("as batch offload" elsewhere).
      const parent = row.option.slice(0, dot);
      let shown = false;
      for (const section of sections) {
        const doc = docs.get(section)?.find((candidate) => candidate.option === parent);
        if (doc === undefined) problems.push(`${section}: ${parent} (parent of ${row.option}) is missing`);
        else if (new RegExp(`(^|[^\\d.])${expected.replace('.', '\\.')}([^\\d.]|$)`).test(normalize(doc.defaultCell))) shown = true;
      }
      if (!shown) problems.push(`${row.option}: default ${expected} is not shown in its parent's README row`);
      continue;
    }
    for (const section of sections) {
      const doc = docs.get(section)?.find((candidate) => candidate.option === row.option);
      if (doc === undefined) {
        problems.push(`${section}: ${row.option} is missing from the README's option table`);
        continue;
      }
      const env = envNames(doc.envCell);
      const wantedEnv = row.env === undefined ? [] : [row.env];
      if (env.join(',') !== wantedEnv.join(',')) {
        problems.push(`${section}: ${row.option} env is ${env.join(', ') || '—'} in the README, ${row.env ?? '—'} in the table`);
      }
      if (!codeSpans(doc.defaultCell).map(normalize).includes(expected)) {
        problems.push(`${section}: ${row.option} default is "${doc.defaultCell}" in the README, ${formatDefault(row.default)} in the table`);
      }
    }
  }
  for (const [section, rows] of docs) {
    for (const doc of rows) {
      if (envNames(doc.envCell).length === 0 || ENV_WITHOUT_ROW.has(`${section}/${doc.option}`)) continue;
      const known = table.some(
        (row) => row.option === doc.option && row.appliesTo.some((fn) => SECTION_OF[fn] === section),
      );
      if (!known) problems.push(`${section}: ${doc.option} has an env variable in the README but no row in the option table`);
    }
  }
  return problems;
}

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

describe('README option tables match the option table', () => {
  it('finds the four option tables', () => {
    expect([...readOptionTables(README).keys()].sort()).toEqual(['Batch offload', 'Compaction', 'Direct offload', 'Token counting']);
  });

  it('agree: every row documented with the same env and default, every documented env has a row', () => {
    expect(findDrift(OPTION_TABLE, README)).toEqual([]);
  });

  it('fails when a README default drifts', () => {
    const drifted = README.replace('| `summaryMaxWords` | integer >= 1 (a CJK character counts as a word) | `1200` |', '| `summaryMaxWords` | integer >= 1 (a CJK character counts as a word) | `1000` |');
    expect(drifted).not.toBe(README);
    expect(findDrift(OPTION_TABLE, drifted)).toEqual([
      'Compaction: summaryMaxWords default is "`1000`" in the README, 1200 in the table',
    ]);
  });

  it('fails when a README env variable drifts or a row goes missing', () => {
    const renamed = README.replace('| `0.2` | `OFFLOAD_RATIO_THRESHOLD` |', '| `0.2` | `OFFLOAD_RATIO` |');
    expect(renamed).not.toBe(README);
    expect(findDrift(OPTION_TABLE, renamed)).toEqual([
      'Batch offload: ratioThreshold env is OFFLOAD_RATIO in the README, OFFLOAD_RATIO_THRESHOLD in the table',
    ]);
    const withoutRow = OPTION_TABLE.filter((row) => row !== OPTIONS.maxRetries);
    expect(findDrift(withoutRow, README)).toEqual([
      'Compaction: maxRetries has an env variable in the README but no row in the option table',
    ]);
  });

  it('fails when a nested default drifts', () => {
    const drifted = README.replace('`true` = 200 / 100 chars', '`true` = 300 / 100 chars');
    expect(drifted).not.toBe(README);
    expect(findDrift(OPTION_TABLE, drifted)).toEqual(['preview.headChars: default 200 is not shown in its parent\'s README row']);
  });
});
