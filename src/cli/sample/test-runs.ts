/**
 * The test runs of the sample session: `vitest run --reporter=verbose` output of the
 * `invoice-kit` suite, first with 9 failures, then 1, then none (with coverage). Generated
 * from the suite's test names, deterministically, so that the sample is the same every run.
 */
import { listCurrencyCodes, TOTALS_TEST_SOURCE } from './project-sources.js';

/** A test of the suite: its file, its describe/it path, and how it fails in each run. */
interface SampleTest {
  file: string;
  name: string;
  /** Failure message per run (index 0, 1, 2); absent: passes. */
  failures?: readonly (SampleFailure | undefined)[];
}

interface SampleFailure {
  /** The assertion message, e.g. `expected 21 to be 20 // Object.is equality`. */
  message: string;
  /** Expected and received lines of the diff. */
  expected: string[];
  received: string[];
  /** Where the failing `expect` is. */
  location: { file: string; line: number; column: number };
  /** The source lines around it (file line numbers from `location.line - 2`). */
  frame: string[];
}

/** Deterministic pseudo-random durations (a linear congruential generator). */
function createDurations(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const value = state / 2_147_483_648;
    return value < 0.7 ? 0 : value < 0.93 ? 1 : Math.round(value * 9);
  };
}

const ROUND_CASES: ReadonlyArray<[string, string]> = [
  ['0.5', '0'],
  ['1.5', '2'],
  ['2.5', '2'],
  ['3.5', '4'],
  ['-0.5', '-0'],
  ['-1.5', '-2'],
  ['-2.5', '-2'],
  ['2.4999', '2'],
  ['2.5001', '3'],
  ['1e15 + 0.5', '1e15'],
];
const MINOR_UNIT_CASES: ReadonlyArray<[string, string, string]> = [
  ['12.34', 'EUR', '1234'],
  ['12.345', 'EUR', '1234'],
  ['12.355', 'EUR', '1236'],
  ['0.125', 'USD', '12'],
  ['0.135', 'USD', '14'],
  ['1.005', 'EUR', '100'],
  ['1.015', 'EUR', '102'],
  ['2.675', 'EUR', '268'],
  ['1250', 'JPY', '1250'],
  ['1250.5', 'JPY', '1250'],
  ['1251.5', 'JPY', '1252'],
  ['1.2345', 'KWD', '1234'],
  ['1.2355', 'BHD', '1236'],
  ['-12.345', 'EUR', '-1234'],
  ['99999999.995', 'EUR', '10000000000'],
];
const FORMAT_LOCALES: ReadonlyArray<[string, string, string]> = [
  ['de-DE', 'EUR', '1.234,56 €'],
  ['fr-FR', 'EUR', '1 234,56 €'],
  ['en-US', 'USD', '$1,234.56'],
  ['en-GB', 'GBP', '£1,234.56'],
  ['ja-JP', 'JPY', '￥1,235'],
  ['de-CH', 'CHF', 'CHF 1’234.56'],
  ['ar-KW', 'KWD', '١٫٢٣٥ د.ك.‏'],
  ['hi-IN', 'INR', '₹1,234.56'],
  ['nl-NL', 'EUR', '€ 1.234,56'],
  ['pl-PL', 'PLN', '1234,56 zł'],
  ['sv-SE', 'SEK', '1 234,56 kr'],
  ['pt-BR', 'BRL', 'R$ 1.234,56'],
];
const FORMAT_AMOUNTS = ['1234.56', '-1234.56', '0', '1000000000'];
const KOSIT_CHECKS = ['parses', 'passes the XRechnung schematron', 'line net amounts match', 'tax groups match', 'grand total matches', 'amount due matches'];
const TAX_CASES: ReadonlyArray<[string, string, string, string]> = [
  ['DE', 'S', '2024-05-02', '0.19'],
  ['DE', 'AA', '2024-05-02', '0.07'],
  ['DE', 'S', '2020-09-15', '0.16'],
  ['DE', 'AA', '2020-09-15', '0.05'],
  ['DE', 'S', '2019-12-31', '0.19'],
  ['FR', 'S', '2024-05-02', '0.2'],
  ['FR', 'AA', '2024-05-02', '0.1'],
  ['NL', 'S', '2024-05-02', '0.21'],
  ['NL', 'AA', '2024-05-02', '0.09'],
  ['AT', 'S', '2024-05-02', '0.2'],
  ['CH', 'S', '2024-05-02', '0.081'],
  ['CH', 'S', '2023-12-31', '0.077'],
  ['CH', 'AA', '2024-01-01', '0.026'],
  ['JP', 'S', '2024-05-02', '0.1'],
  ['JP', 'AA', '2024-05-02', '0.08'],
];
const KOSIT_CASES = ['01.01a', '01.02', '01.03', '01.04', '01.05', '01.06', '01.07', '01.08', '01.09', '01.10', '01.11', '01.12'];
const XRECHNUNG_FIELDS = ['BT-1 invoice number', 'BT-2 issue date', 'BT-5 currency code', 'BT-10 buyer reference', 'BT-31 seller VAT id', 'BT-48 buyer VAT id', 'BT-106 sum of line net amounts', 'BT-109 total without VAT', 'BT-110 total VAT', 'BT-112 total with VAT', 'BT-115 amount due', 'BG-23 VAT breakdown', 'BT-116 taxable amount per category', 'BT-117 VAT amount per category', 'BT-118 category code', 'BT-119 category rate'];

function frameOfTotalsTest(expectText: string): { line: number; column: number; frame: string[] } {
  const lines = TOTALS_TEST_SOURCE.split('\n');
  const index = lines.findIndex((candidate) => candidate.includes(expectText));
  const line = index + 1;
  const column = (lines[index] ?? '').indexOf('.to') + 2;
  return { line, column, frame: lines.slice(Math.max(0, index - 2), index + 3) };
}

function totalsFailure(expectText: string, expected: string[], received: string[], message: string): SampleFailure {
  const { line, column, frame } = frameOfTotalsTest(expectText);
  return { message, expected, received, location: { file: 'tests/invoice/totals.test.ts', line, column }, frame };
}

function toBeFailure(file: string, line: number, expected: string, received: string, frame: string[]): SampleFailure {
  return {
    message: 'expected ' + received + ' to be ' + expected + ' // Object.is equality',
    expected: [expected],
    received: [received],
    location: { file, line, column: 44 },
    frame,
  };
}

/** Every test of the suite, in the order vitest reports them. */
function listTests(): SampleTest[] {
  const tests: SampleTest[] = [];
  const add = (file: string, name: string, failures?: readonly (SampleFailure | undefined)[]): void => {
    tests.push(failures === undefined ? { file, name } : { file, name, failures });
  };

  const roundFile = 'tests/money/round.test.ts';
  for (const [value, result] of ROUND_CASES) add(roundFile, 'roundHalfEven > rounds ' + value + ' to ' + result);
  for (const [value, result] of [['2.5', '3'], ['-2.5', '-3'], ['2.4', '2']]) add(roundFile, 'roundHalfUp > rounds ' + value + ' to ' + result);
  for (const [value, result] of [['2.5', '2'], ['-2.5', '-2'], ['2.6', '3']]) add(roundFile, 'roundHalfDown > rounds ' + value + ' to ' + result);
  for (const [amount, code, minor] of MINOR_UNIT_CASES) {
    const name = 'toMinorUnits > converts ' + amount + ' ' + code + ' to ' + minor;
    if (amount === '1.015' || amount === '2.675') {
      const received = String(Number(minor) - 1);
      const lineNumber = amount === '1.015' ? 71 : 71;
      const failure = toBeFailure(roundFile, lineNumber, minor, received, [
        "  it.each(MINOR_UNIT_CASES)('converts %s %s to %i', (amount, code, minor) => {",
        '    const currency = getCurrency(code);',
        '    expect(toMinorUnits(amount, currency)).toBe(minor);',
        '  });',
        '});',
      ]);
      add(roundFile, name, [failure]);
    } else {
      add(roundFile, name);
    }
  }
  for (const [minor, code, text] of [['1234', 'EUR', '12.34'], ['-5', 'EUR', '-0.05'], ['1250', 'JPY', '1250'], ['1234', 'KWD', '1.234'], ['0', 'USD', '0.00']]) {
    add(roundFile, 'fromMinorUnits > formats ' + minor + ' ' + code + ' as "' + text + '"');
  }
  add(roundFile, 'fromMinorUnits > rejects unsafe integers');
  add(roundFile, 'multiplyMinor > applies a rate and rounds half-even');
  add(roundFile, 'multiplyMinor > rounds 2005 x 0.1 to 200 (tie in binary)', [
    toBeFailure(roundFile, 112, '200', '201', [
      "  it('rounds 2005 x 0.1 to 200 (tie in binary)', () => {",
      '    // 2005 * 0.1 === 200.50000000000003',
      '    expect(multiplyMinor(2005, 0.1)).toBe(200);',
      '  });',
      '',
    ]),
  ]);
  add(roundFile, 'multiplyMinor > honours half-up');
  for (const [minor, weights] of [['100', '1,2,3'], ['-100', '1,2,3'], ['1', '1,1,1'], ['0', '1,2'], ['10', '0,0']]) {
    add(roundFile, 'allocateMinor > splits ' + minor + ' by [' + weights + '] exactly');
  }
  for (const text of ['"1234.50"', '"-0.5"', '"+12"', '" 7 "']) add(roundFile, 'parseDecimal > parses ' + text);
  for (const text of ['"1e3"', '"1,234.50"', '""', '"12."']) add(roundFile, 'parseDecimal > rejects ' + text);

  const currencyFile = 'tests/money/currency.test.ts';
  for (const code of listCurrencyCodes()) add(currencyFile, 'getCurrency > knows ' + code);
  for (const code of ['"eur"', '"XXX"', '""', '"EURO"']) add(currencyFile, 'getCurrency > rejects ' + code);
  add(currencyFile, 'CURRENCIES > has a unique numeric code per currency');
  add(currencyFile, 'CURRENCIES > has minor units in 0..4');

  const convertFile = 'tests/money/convert.test.ts';
  for (const code of listCurrencyCodes()) {
    if (code !== 'EUR') add(convertFile, 'convertMinor > converts 100.00 EUR to ' + code + ' at the ECB reference rate of 2024-05-02');
  }
  add(convertFile, 'convertMinor > rejects a rate of 0');
  add(convertFile, 'convertMinor > rounds with the invoice mode');

  const formatFile = 'tests/money/format.test.ts';
  for (const [locale, code, text] of FORMAT_LOCALES) {
    add(formatFile, 'formatMoney > formats 1234.56 ' + code + ' in ' + locale + ' as "' + text + '"');
    for (const amount of FORMAT_AMOUNTS.slice(1)) add(formatFile, 'formatMoney > formats ' + amount + ' ' + code + ' in ' + locale + ' like Intl.NumberFormat');
  }
  add(formatFile, 'formatMoney > shows a minus sign before the symbol in en-US');
  add(formatFile, 'formatMoney > uses accounting parentheses when asked');
  add(formatFile, 'formatMoney > falls back to the code for an unknown symbol');

  const totalsFile = 'tests/invoice/totals.test.ts';
  add(totalsFile, 'computeLineTotals > multiplies quantity by unit price');
  add(totalsFile, 'computeLineTotals > applies the line discount before rounding');
  add(totalsFile, 'computeLineTotals > handles fractional quantities (hours)');
  add(totalsFile, 'computeLineTotals > spreads the invoice discount by net amount, exactly');
  add(totalsFile, 'computeLineTotals > picks the rate in force on the issue date');
  add(totalsFile, 'computeTotals > rejects an invoice without lines');
  add(totalsFile, 'computeTotals > totals a single standard-rated line');
  add(totalsFile, 'computeTotals > rounds tax per rate, not per line (BR-CO-17)', [
    totalsFailure('expect(totals.taxMinor).toBe(20);', ['20'], ['21'], 'expected 21 to be 20 // Object.is equality'),
  ]);
  add(totalsFile, 'computeTotals > keeps one group per rate, in order of appearance');
  add(totalsFile, 'computeTotals > rounds the 7% group once (BR-CO-17)', [
    totalsFailure('expect(totals.taxMinor).toBe(210);', ['210'], ['216'], 'expected 216 to be 210 // Object.is equality'),
  ]);
  add(totalsFile, 'computeTotals > matches the KoSIT reference invoice 01.01a (mixed rates)', [
    totalsFailure(
      'expect(totals.taxGroups.map((group) => group.taxMinor)).toEqual([1859, 364]);',
      ['  [', '    1859,', '    364,', '  ]'],
      ['  [', '    1860,', '    363,', '  ]'],
      'expected [ 1860, 363 ] to deeply equal [ 1859, 364 ]',
    ),
  ]);
  add(totalsFile, 'computeTotals > matches the KoSIT reference invoice 01.07 (invoice discount)', [
    totalsFailure('expect(totals.taxMinor).toBe(1651);', ['1651'], ['1652'], 'expected 1652 to be 1651 // Object.is equality'),
  ]);
  add(totalsFile, 'computeTotals > totals a JPY invoice without minor units', [
    totalsFailure('expect(totals.taxMinor).toBe(453);', ['453'], ['454'], 'expected 454 to be 453 // Object.is equality'),
  ]);
  add(totalsFile, 'computeTotals > uses half-up when asked (legacy exports)');
  add(totalsFile, 'computeTotals > puts reverse-charge lines in a zero group');
  add(totalsFile, 'computeAmountDue > subtracts prepayments');
  add(totalsFile, 'computeAmountDue > never goes below zero');

  const taxFile = 'tests/invoice/tax.test.ts';
  for (const [country, category, date, rate] of TAX_CASES) add(taxFile, 'resolveTaxRate > ' + country + ' ' + category + ' on ' + date + ' is ' + rate);
  for (const category of ['Z', 'E', 'AE', 'K', 'G', 'O']) add(taxFile, 'resolveTaxRate > ' + category + ' is 0 everywhere');
  add(taxFile, 'resolveTaxRate > throws for an unknown country');
  add(taxFile, 'resolveTaxRate > throws before the first rate of a country');
  add(taxFile, 'splitInclusiveAmount > splits 119.00 at 19% into 100.00 + 19.00');
  add(taxFile, 'splitInclusiveAmount > net + tax is always the amount');
  const inclusiveFailure: SampleFailure = {
    message: 'expected { netMinor: 2336, taxMinor: 164 } to deeply equal { netMinor: 2337, taxMinor: 163 }',
    expected: ['  {', '    "netMinor": 2337,', '    "taxMinor": 163,', '  }'],
    received: ['  {', '    "netMinor": 2336,', '    "taxMinor": 164,', '  }'],
    location: { file: taxFile, line: 88, column: 48 },
    frame: [
      "  it('uses the invoice mode (half-even) for the tax part', () => {",
      '    // 25.00 at 7%: tax 1.635514... -> 1.64 half-up, 1.64 half-even; at 7% of 2500 minus 0.01 ...',
      '    expect(splitInclusiveAmount(2500, 0.07)).toEqual({ netMinor: 2337, taxMinor: 163 });',
      '  });',
      '',
    ],
  };
  add(taxFile, 'splitInclusiveAmount > uses the invoice mode (half-even) for the tax part', [inclusiveFailure, inclusiveFailure]);
  add(taxFile, 'splitInclusiveAmount > uses half-up when asked');
  add(taxFile, 'isZeroCategory > is true for Z, E, AE, K, G, O');

  const kositFile = 'tests/invoice/kosit.test.ts';
  for (const id of KOSIT_CASES) {
    for (const check of KOSIT_CHECKS) add(kositFile, 'KoSIT test suite > reference invoice ' + id + ' ' + check);
  }

  const xrechnungFile = 'tests/export/xrechnung.test.ts';
  for (const syntax of ['UBL', 'CII']) {
    for (const field of XRECHNUNG_FIELDS) add(xrechnungFile, 'toXRechnung (' + syntax + ') > writes ' + field);
    add(xrechnungFile, 'toXRechnung (' + syntax + ') > produces a document the KoSIT validator accepts');
  }
  const datevFile = 'tests/export/datev.test.ts';
  for (const name of ['writes the EXTF header', 'writes one booking line per tax group', 'uses half-up for legacy exports', 'encodes amounts with a comma', 'maps S 19% to key 9', 'maps AA 7% to key 8', 'maps AE to key 94', 'escapes semicolons in texts']) {
    add(datevFile, 'toDatevCsv > ' + name);
  }
  const csvFile = 'tests/export/csv.test.ts';
  for (const name of ['writes a header row', 'quotes fields with commas', 'writes amounts in major units', 'writes one row per line', 'appends the totals row']) add(csvFile, 'toCsv > ' + name);
  const parseFile = 'tests/parse/ubl.test.ts';
  for (const name of ['reads the invoice number', 'reads the issue date', 'reads the currency', 'reads every line', 'reads line discounts', 'reads the document-level allowance', 'rejects a credit note', 'rejects an unknown namespace']) {
    add(parseFile, 'parseUbl > ' + name);
  }
  return tests;
}

/** Number of tests in the sample suite. */
export function countSampleTests(): number {
  return listTests().length;
}

const SEPARATOR = '⎯';

function renderFailure(test: SampleTest, failure: SampleFailure, index: number, count: number): string[] {
  const { location } = failure;
  const width = String(location.line + 2).length;
  const frame = failure.frame.map((text, offset) => {
    const lineNumber = location.line - 2 + offset;
    const prefix = '    ' + String(lineNumber).padStart(width) + '| ';
    const lines = [prefix + text];
    if (lineNumber === location.line) lines.push('    ' + ' '.repeat(width) + '| ' + ' '.repeat(Math.max(0, location.column - 1)) + '^');
    return lines;
  });
  const isDeep = failure.message.includes('deeply equal');
  return [
    ' FAIL  ' + test.file + ' > ' + test.name,
    'AssertionError: ' + failure.message,
    '',
    '- Expected',
    '+ Received',
    '',
    ...(isDeep ? ['  ' + (failure.expected[0]?.trim().startsWith('[') ? 'Array' : 'Object') + ' ' + (failure.expected[0]?.trim() ?? '')] : []),
    ...failure.expected.slice(isDeep ? 1 : 0).map((text) => '- ' + text),
    ...failure.received.slice(isDeep ? 1 : 0).map((text) => '+ ' + text),
    '',
    ' ❯ ' + location.file + ':' + location.line + ':' + location.column,
    ...frame.flat(),
    '',
    SEPARATOR.repeat(49) + '[' + index + '/' + count + ']' + SEPARATOR,
    '',
  ];
}

function renderDuration(milliseconds: number): string {
  return milliseconds >= 1000 ? (milliseconds / 1000).toFixed(2) + 's' : milliseconds + 'ms';
}

const COVERAGE_ROWS: ReadonlyArray<[string, number, number, number, number, string]> = [
  ['src/index.ts', 100, 100, 100, 100, ''],
  ['src/export/csv.ts', 96.42, 90, 100, 96.42, '88-89'],
  ['src/export/datev.ts', 93.1, 86.66, 100, 93.1, '141-149'],
  ['src/export/xrechnung.ts', 97.8, 91.3, 100, 97.8, '212,260-263'],
  ['src/invoice/tax.ts', 100, 100, 100, 100, ''],
  ['src/invoice/totals.ts', 100, 96.15, 100, 100, '118'],
  ['src/money/currency.ts', 100, 100, 100, 100, ''],
  ['src/money/format.ts', 94.44, 88.88, 100, 94.44, '61-64'],
  ['src/money/round.ts', 98.57, 97.22, 100, 98.57, '67'],
  ['src/parse/ubl.ts', 91.2, 84.61, 92.85, 91.2, '77-80,155-170'],
];

function renderCoverage(): string[] {
  const header = 'File                      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s ';
  const rule = '--------------------------|---------|----------|---------|---------|-------------------';
  const widths = [9, 10, 9, 9];
  const row = (name: string, values: number[], uncovered: string): string =>
    name.padEnd(26) + '|' + values.map((value, index) => String(value).padStart((widths[index] ?? 9) - 1) + ' ').join('|') + '| ' + uncovered.padEnd(18);
  return [
    ' % Coverage report from v8',
    rule,
    header,
    rule,
    row('All files', [96.83, 92.64, 98.71, 96.83], ''),
    ...COVERAGE_ROWS.map(([name, statements, branches, functions, lines, uncovered]) => row(' ' + name, [statements, branches, functions, lines], uncovered)),
    rule,
  ];
}

/**
 * The output of `npx vitest run --reporter=verbose` in run `runIndex` (0: before any fix,
 * 1: after fixing rounding and totals, 2: all fixed, with `--coverage`), of the whole suite
 * or of `onlyFiles`.
 */
export function renderTestRun(runIndex: 0 | 1 | 2, onlyFiles?: readonly string[]): string {
  const nextDuration = createDurations(7 + runIndex + (onlyFiles?.length ?? 0));
  const tests = listTests().filter((test) => onlyFiles === undefined || onlyFiles.includes(test.file));
  const failed = tests.filter((test) => test.failures?.[runIndex] !== undefined);
  const failedFiles = new Set(failed.map((test) => test.file));
  const files = [...new Set(tests.map((test) => test.file))];
  const lines = [' RUN  v3.2.4 /home/dev/invoice-kit' + (runIndex === 2 ? '\n      Coverage enabled with v8' : ''), ''];
  for (const test of tests) {
    const failure = test.failures?.[runIndex];
    const duration = nextDuration() + (failure === undefined ? 0 : 3);
    if (failure === undefined) lines.push(' ✓ ' + test.file + ' > ' + test.name + ' ' + duration + 'ms');
    else lines.push(' × ' + test.file + ' > ' + test.name + ' ' + duration + 'ms', '   → ' + failure.message);
  }
  lines.push('');
  if (failed.length > 0) {
    const title = ' Failed Tests ' + failed.length + ' ';
    lines.push(SEPARATOR.repeat(7) + title + SEPARATOR.repeat(7), '');
    failed.forEach((test, index) => lines.push(...renderFailure(test, test.failures?.[runIndex] as SampleFailure, index + 1, failed.length)));
  }
  const passedFiles = files.length - failedFiles.size;
  const fileSummary = failedFiles.size > 0 ? failedFiles.size + ' failed | ' + passedFiles + ' passed' : passedFiles + ' passed';
  const testSummary = failed.length > 0 ? failed.length + ' failed | ' + (tests.length - failed.length) + ' passed' : tests.length + ' passed';
  const total = onlyFiles === undefined ? 2310 + runIndex * 140 : 640;
  lines.push(
    ' Test Files  ' + fileSummary + ' (' + files.length + ')',
    '      Tests  ' + testSummary + ' (' + tests.length + ')',
    '   Start at  14:' + String(3 + runIndex * 4).padStart(2, '0') + ':11',
    '   Duration  ' + renderDuration(total) + ' (transform 412ms, setup 0ms, collect 1.02s, tests 388ms, environment 3ms, prepare 1.47s)',
    '',
  );
  if (runIndex === 2) lines.push(...renderCoverage(), '');
  return lines.join('\n');
}
