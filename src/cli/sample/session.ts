/**
 * The sample transcript shipped with the package, for `agent-context demo`: a coding agent
 * fixes the failing test suite of `invoice-kit` after a rounding change. It reads files, runs
 * the failing suite (a long log), searches, edits three places, re-runs twice and checks
 * types — a session of ~90K tokens, most of them tool results, as in real agent work.
 *
 * The messages are built on demand (nothing is computed on import) and are the same on every
 * call.
 */
import type { ContentBlock, Message } from '../../index.js';
import { buildFixedSources, buildOriginalSources, SAMPLE_EDITS } from './project-sources.js';
import type { SampleEdit } from './project-sources.js';
import { buildReferenceInvoiceXml, ROUNDING_COMMIT_DIFF } from './repository-texts.js';
import { countSampleTests, renderTestRun } from './test-runs.js';

/** The sample session and the project it works on. */
export interface SampleSession {
  /** Name of the project directory. */
  projectName: string;
  /** The conversation, system prompt first. */
  messages: Message[];
  /** The project's files at the end of the session (edits applied), by relative path. */
  projectFiles: Record<string, string>;
  /** Name of the tool that reads files, and its path field (for compaction's restoration). */
  readToolName: string;
  /** Field of the read tool's input holding the path. */
  pathField: string;
}

const SYSTEM_PROMPT = [
  'You are a coding agent working in the repository /home/dev/invoice-kit (TypeScript, Node 20, vitest).',
  '',
  'Tools:',
  '- read_file { path }: returns the whole file. Read a file before you edit it.',
  '- list_files { path }: lists a directory recursively, skipping node_modules and dist.',
  '- search { pattern, path? }: a regular-expression search (ripgrep); returns path:line:text.',
  '- edit_file { path, old_string, new_string }: replaces one exact, unique occurrence of old_string.',
  '- run_command { command }: runs a shell command in the repository root and returns its output and exit code.',
  '',
  'Rules:',
  '- Keep changes minimal and in the style of the surrounding code. Do not reformat files.',
  '- Never weaken or delete a test to make it pass. If a test is wrong, say so and stop.',
  '- Run the relevant tests after every change, and the whole suite and the type checker before you finish.',
  '- When several independent reads or commands are needed, issue them in parallel.',
  '- Finish with a short summary: the cause, the change, and how it was verified.',
].join('\n');

const GIT_LOG = String.raw`$ git log --oneline -15
9c1e0d4 (HEAD -> main, origin/main) Merge pull request #412 from acme/half-even-rounding
5b27a91 Round VAT half-even by default (EN 16931 reference calculators)
e04f3c2 docs: rounding design note
a8d19b7 Add roundingMode to Invoice for legacy half-up exports
71c2e55 Merge pull request #409 from acme/datev-extf-700
c3f0a12 DATEV: write EXTF format version 700 headers
0d9e6b8 Merge pull request #405 from acme/ch-rates-2024
f7a2c41 Swiss VAT rates from 2024-01-01 (8.1% / 2.6%)
2be8d90 chore(deps): bump vitest from 3.1.4 to 3.2.4
46a1c0e Merge pull request #401 from acme/kosit-suite
b9d3e57 tests: KoSIT reference invoices 01.01a-01.12
1fe07c8 UBL parser: read document-level allowances
d6b4a23 Release 3.3.2
8a0f5e1 Fix allocateMinor for negative amounts
c41d2f9 CSV export: amounts in major units
exit code: 0`;

const GIT_STATUS = String.raw`$ git status --short --branch
## main...origin/main
exit code: 0`;

const FILE_LIST = String.raw`.github/workflows/ci.yml
.gitignore
CHANGELOG.md
LICENSE
README.md
docs/rounding.md
docs/xrechnung.md
eslint.config.js
package-lock.json
package.json
scripts/generate-currencies.ts
src/export/csv.ts
src/export/datev.ts
src/export/xrechnung.ts
src/index.ts
src/invoice/tax.ts
src/invoice/totals.ts
src/money/currency.ts
src/money/format.ts
src/money/round.ts
src/parse/ubl.ts
tests/export/csv.test.ts
tests/export/datev.test.ts
tests/export/xrechnung.test.ts
tests/fixtures/kosit/01.01a.xml
tests/fixtures/kosit/01.02.xml
tests/fixtures/kosit/01.03.xml
tests/fixtures/kosit/01.04.xml
tests/fixtures/kosit/01.05.xml
tests/fixtures/kosit/01.06.xml
tests/fixtures/kosit/01.07.xml
tests/fixtures/kosit/01.08.xml
tests/fixtures/kosit/01.09.xml
tests/fixtures/kosit/01.10.xml
tests/fixtures/kosit/01.11.xml
tests/fixtures/kosit/01.12.xml
tests/invoice/kosit.test.ts
tests/invoice/tax.test.ts
tests/invoice/totals.test.ts
tests/money/currency.test.ts
tests/money/format.test.ts
tests/money/round.test.ts
tests/parse/ubl.test.ts
tsconfig.build.json
tsconfig.json
vitest.config.ts`;

/** Search hits in files the sample does not carry in full. */
const OTHER_SEARCH_HITS = String.raw`src/export/datev.ts:12:import { fromMinorUnits, roundWithMode, type RoundingMode } from '../money/round.js';
src/export/datev.ts:88:    const amount = roundWithMode(group.taxMinor, legacy ? 'half-up' : group.mode);
src/export/xrechnung.ts:9:import { fromMinorUnits, multiplyMinor } from '../money/round.js';
src/export/xrechnung.ts:214:      vatAmount: fromMinorUnits(multiplyMinor(group.taxableMinor, group.rate), currency),
src/index.ts:4:export { roundHalfEven, roundHalfUp, roundHalfDown, roundWithMode, multiplyMinor, allocateMinor, toMinorUnits, fromMinorUnits, parseDecimal } from './money/round.js';
tests/money/round.test.ts:2:import { allocateMinor, fromMinorUnits, multiplyMinor, parseDecimal, roundHalfDown, roundHalfEven, roundHalfUp, toMinorUnits } from '../../src/money/round.js';
tests/money/round.test.ts:18:  it.each(ROUND_CASES)('rounds %s to %s', (value, expected) => expect(roundHalfEven(value)).toBe(expected));
tests/money/round.test.ts:104:    expect(multiplyMinor(1000, 0.19)).toBe(190);
tests/money/round.test.ts:112:    expect(multiplyMinor(2005, 0.1)).toBe(200);
tests/money/round.test.ts:116:    expect(multiplyMinor(2005, 0.1, 'half-up')).toBe(201);`;

function searchSources(sources: Record<string, string>, pattern: RegExp): string {
  const hits: string[] = [];
  for (const [path, text] of Object.entries(sources)) {
    if (!path.endsWith('.ts')) continue;
    text.split('\n').forEach((line, index) => {
      if (pattern.test(line)) hits.push(path + ':' + (index + 1) + ':' + line);
    });
  }
  return [...hits, ...OTHER_SEARCH_HITS.split('\n')].sort().join('\n');
}

/** Ids shaped like Anthropic's (`toolu_01` + 22 base-62 characters), deterministic. */
function createToolUseIds(): () => string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let state = 20_251_121;
  return () => {
    let id = 'toolu_01';
    for (let index = 0; index < 22; index++) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      id += alphabet[Math.floor((state / 2_147_483_648) * alphabet.length)];
    }
    return id;
  };
}

function describeEdit(edit: SampleEdit): string {
  const removed = edit.oldString.split('\n').length;
  const added = edit.newString.split('\n').length;
  return 'Edited ' + edit.path + ': replaced ' + removed + ' line' + (removed === 1 ? '' : 's') + ' with ' + added + ' line' + (added === 1 ? '' : 's') + '.';
}

/** Builds the sample session. */
export function createSampleSession(): SampleSession {
  const sources = buildOriginalSources();
  const referenceInvoicePath = 'tests/fixtures/kosit/01.01a.xml';
  const readable: Record<string, string> = { ...sources, [referenceInvoicePath]: buildReferenceInvoiceXml() };
  const nextId = createToolUseIds();
  const messages: Message[] = [{ role: 'system', content: SYSTEM_PROMPT }];

  /** One assistant turn (text, then calls) and the user message with the results. */
  const turn = (text: string | undefined, calls: ReadonlyArray<{ name: string; input: Record<string, unknown>; result: string; isError?: boolean }>): void => {
    const ids = calls.map(() => nextId());
    const assistantContent: ContentBlock[] = [];
    if (text !== undefined) assistantContent.push({ type: 'text', text });
    calls.forEach((call, index) => assistantContent.push({ type: 'tool_use', id: ids[index] as string, name: call.name, input: call.input }));
    messages.push({ role: 'assistant', content: assistantContent });
    if (calls.length === 0) return;
    messages.push({
      role: 'user',
      content: calls.map((call, index) => ({
        type: 'tool_result',
        tool_use_id: ids[index] as string,
        content: call.result,
        ...(call.isError === true ? { is_error: true } : {}),
      })),
    });
  };
  const read = (path: string): { name: string; input: Record<string, unknown>; result: string } => ({
    name: 'read_file',
    input: { path },
    result: readable[path] ?? '',
  });
  const edit = (index: number): { name: string; input: Record<string, unknown>; result: string } => {
    const change = SAMPLE_EDITS[index] as SampleEdit;
    return { name: 'edit_file', input: { path: change.path, old_string: change.oldString, new_string: change.newString }, result: describeEdit(change) };
  };
  const testCommand = 'npx vitest run --reporter=verbose';

  messages.push({
    role: 'user',
    content:
      'CI has been red on main since #412 (half-even rounding) was merged: `npm test` fails in the invoice and money suites. ' +
      'Please find out why and fix it. Keep half-even as the default; the KoSIT reference invoices must pass.',
  });
  turn('I will look at the recent history and the layout of the repository first.', [
    { name: 'run_command', input: { command: 'git log --oneline -15' }, result: GIT_LOG },
    { name: 'run_command', input: { command: 'git status --short --branch' }, result: GIT_STATUS },
    { name: 'list_files', input: { path: '.' }, result: FILE_LIST },
  ]);
  turn('Now the whole suite, verbose, to see every failure.', [
    { name: 'run_command', input: { command: testCommand }, result: renderTestRun(0) + '\nexit code: 1', isError: true },
  ]);
  turn('The failures started with #412; here is what its main commit changed.', [
    { name: 'run_command', input: { command: 'git show 5b27a91' }, result: ROUNDING_COMMIT_DIFF + '\nexit code: 0' },
  ]);
  turn(
    '9 failures in three files: toMinorUnits/multiplyMinor ties that are off by one (2.675 EUR -> 267, 2005 x 0.1 -> 201), ' +
      'five totals tests where the tax is one or more cents high, and one inclusive-price split. ' +
      'The totals failures look like per-line rounding. Reading the rounding code, its design note and the currency table.',
    [read('src/money/round.ts'), read('docs/rounding.md'), read('src/money/currency.ts')],
  );
  turn('The note says tax is rounded once per rate (BR-CO-17). Checking how totals does it.', [read('src/invoice/totals.ts')]);
  turn('Where else is the rounding used?', [
    { name: 'search', input: { pattern: 'roundHalfEven|roundWithMode|multiplyMinor', path: '.' }, result: searchSources(sources, /roundHalfEven|roundWithMode|multiplyMinor/) },
  ]);
  turn('And the failing totals tests, with the KoSIT invoice they reproduce, to be sure of what they expect.', [
    read('tests/invoice/totals.test.ts'),
    read(referenceInvoicePath),
  ]);
  turn(
    'Two causes:\n\n' +
      '1. `roundHalfEven` detects a tie with `Math.abs(fraction - 0.5) < Number.EPSILON`. A product such as 2.675 x 100 is ' +
      '267.49999999999997, off by ~3e-14, far more than EPSILON (2.2e-16), so ties are missed and `Math.round` rounds them ' +
      'half-up instead. docs/rounding.md prescribes a tolerance of 1e-9 x max(1, |value|).\n' +
      '2. #412 moved the tax rounding into the line loop of `computeTotals`: each line\'s tax is rounded and the rounded values ' +
      'are added, which breaks BR-CO-17 (round once per rate) and explains the KoSIT and JPY differences.\n\n' +
      'Fixing both.',
    [edit(0), edit(1)],
  );
  turn('The two files first.', [
    {
      name: 'run_command',
      input: { command: 'npx vitest run tests/money/round.test.ts tests/invoice/totals.test.ts --reporter=verbose' },
      result: renderTestRun(1, ['tests/money/round.test.ts', 'tests/invoice/totals.test.ts']) + '\nexit code: 0',
    },
  ]);
  turn('Both pass. Now the whole suite.', [
    { name: 'run_command', input: { command: testCommand }, result: renderTestRun(1) + '\nexit code: 1', isError: true },
  ]);
  turn('One failure left, in the inclusive-price split. Reading tax.ts.', [read('src/invoice/tax.ts')]);
  turn(
    '`splitInclusiveAmount` still uses `roundHalfUp` when the mode is the default, a leftover from before #412. ' +
      'It must use the invoice\'s mode like every other rounding point (docs/rounding.md, point 4).',
    [edit(2), edit(3)],
  );
  turn('Full suite with coverage, then the type checker and the linter.', [
    { name: 'run_command', input: { command: testCommand + ' --coverage' }, result: renderTestRun(2) + '\nexit code: 0' },
  ]);
  turn(undefined, [{ name: 'run_command', input: { command: 'npx tsc --noEmit && npm run lint' }, result: '$ npx tsc --noEmit && npm run lint\n\n> @acme/invoice-kit@3.4.0 lint\n> eslint src tests\n\nexit code: 0' }]);
  messages.push({
    role: 'assistant',
    content:
      'Fixed. All ' +
      countSampleTests() +
      ' tests pass, including the KoSIT reference invoices; `tsc` and eslint are clean.\n\n' +
      '- `src/money/round.ts`: `roundHalfEven` now detects ties with a tolerance relative to the value (1e-9 x max(1, |value|)), ' +
      'as docs/rounding.md prescribes, instead of `Number.EPSILON`, which missed ties such as 2.675 x 100.\n' +
      '- `src/invoice/totals.ts`: the tax of each rate group is rounded once, on the sum of its net amounts (BR-CO-17), ' +
      'instead of adding rounded per-line taxes (introduced in #412).\n' +
      '- `src/invoice/tax.ts`: `splitInclusiveAmount` uses the invoice\'s rounding mode instead of always half-up.\n\n' +
      'Half-even stays the default; `roundingMode: \'half-up\'` still gives the legacy results.',
  });
  const projectFiles = { ...buildFixedSources(), [referenceInvoicePath]: readable[referenceInvoicePath] as string };
  return { projectName: 'invoice-kit', messages, projectFiles, readToolName: 'read_file', pathField: 'path' };
}
