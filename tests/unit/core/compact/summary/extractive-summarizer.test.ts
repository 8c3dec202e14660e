import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../../../../../src/core/compact/summary/extractive-summarizer.js';
import { InvalidOptionError } from '../../../../../src/core/errors.js';
import type { ContentBlock, Message } from '../../../../../src/core/types.js';
import { countWords } from '../../../../../src/core/text/words.js';

const TITLES = ['Goals & Decisions', 'File Operations', 'Tool Calls', 'Task Status', 'Errors & Resolutions'];

/** The body of one `## Title` section. */
function sectionOf(summary: string, title: string): string {
  const start = summary.indexOf(`## ${title}\n`);
  if (start === -1) throw new Error(`no section ${title}`);
  const rest = summary.slice(start + title.length + 4);
  const end = rest.indexOf('\n## ');
  return (end === -1 ? rest : rest.slice(0, end)).trimEnd();
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const history: Message[] = [
  { role: 'user', content: '  Add a --json flag to the CLI and keep the tests green.  ' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'I will read the CLI entry point first.' },
      { type: 'tool_use', id: 'r1', name: 'read_file', input: { path: 'src/cli/index.ts' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r1', content: 'export function main() {}' }] },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'e1',
        name: 'Edit',
        input: { file_path: 'src/cli/index.ts', old_string: 'a', new_string: 'b' },
      },
      {
        type: 'tool_use',
        id: 'w1',
        name: 'write_file',
        input: { path: 'src/cli/json.ts', content: 'export const json = true;\n' },
      },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'e1', content: 'ok' },
      { type: 'tool_result', tool_use_id: 'w1', content: 'written' },
    ],
  },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'b1', name: 'bash', input: { command: 'npm test' } }] },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'b1',
        is_error: true,
        content: [
          { type: 'text', text: '\nFAIL tests/cli.test.ts > prints json\nExpected "{" got "N"\n    at line 3' },
        ],
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'The test expects JSON on stdout; fixing the writer.' },
      {
        type: 'tool_use',
        id: 'v1',
        name: 'str_replace_based_edit_tool',
        input: { command: 'view', path: 'tests/cli.test.ts' },
      },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'v1', content: 'test body' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'b2', name: 'bash', input: { command: 'npm test' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b2', content: 'Tests 12 passed' }] },
  { role: 'assistant', content: 'All tests pass now. Next I will update the README.' },
  { role: 'user', content: 'Also document the flag in the README, please.' },
];

describe('createExtractiveSummarizer', () => {
  const summarizer = createExtractiveSummarizer();

  it('writes the five sections, in order', async () => {
    const summary = await summarizer.summarize(history, { maxWords: 1200 });
    const positions = TITLES.map((title) => summary.indexOf(`## ${title}\n`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(summary.startsWith('## Goals & Decisions\n')).toBe(true);
  });

  it('is deterministic: the same messages give the same summary, byte for byte', async () => {
    const first = await summarizer.summarize(history, { maxWords: 1200 });
    const second = await createExtractiveSummarizer().summarize(structuredClone(history), { maxWords: 1200 });
    expect(second).toBe(first);
  });

  it('quotes the first request verbatim, trimmed', async () => {
    const goals = sectionOf(await summarizer.summarize(history, { maxWords: 1200 }), 'Goals & Decisions');
    expect(goals).toContain('- First request:\n  > Add a --json flag to the CLI and keep the tests green.');
    expect(goals).not.toContain('green.  ');
  });

  it('names every file read, written or edited, with what was done (Read, Edit, write_file, editor view)', async () => {
    const files = sectionOf(await summarizer.summarize(history, { maxWords: 1200 }), 'File Operations');
    expect(files).toContain('- `src/cli/index.ts`: read, edited');
    expect(files).toContain('- `src/cli/json.ts`: written');
    expect(files).toContain('- `tests/cli.test.ts`: read');
  });

  it('counts tool calls and failures, in all and per tool', async () => {
    const tools = sectionOf(await summarizer.summarize(history, { maxWords: 1200 }), 'Tool Calls');
    expect(tools).toContain('- 6 tool calls, 1 failed.');
    expect(tools).toContain('- `bash`: 2 calls, 1 failed');
    expect(tools).toContain('- `read_file`: 1 call');
  });

  it('gives the latest request (no reply yet), the latest assistant statement and the last tool call as Task Status', async () => {
    const status = sectionOf(await summarizer.summarize(history, { maxWords: 1200 }), 'Task Status');
    expect(status).toContain('- Latest request (no reply yet):\n  > Also document the flag in the README, please.');
    expect(status).toContain('- Latest assistant statement:\n  > All tests pass now. Next I will update the README.');
    expect(status).toContain('- Last tool call: `bash` {"command":"npm test"} → ok');
  });

  it("gives each error's first line, what the assistant said next and how the retry went", async () => {
    const errors = sectionOf(await summarizer.summarize(history, { maxWords: 1200 }), 'Errors & Resolutions');
    expect(errors).toBe(
      '- `bash` failed: FAIL tests/cli.test.ts > prints json Then: "The test expects JSON on stdout; fixing the writer." The next `bash` call succeeded.',
    );
  });

  describe('the error line of a failed result', () => {
    const failing = (result: string): Message[] => [
      { role: 'user', content: 'Run the tests.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'npm test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: result }] },
    ];
    const errorsOf = async (result: string): Promise<string> =>
      sectionOf(await summarizer.summarize(failing(result), { maxWords: 1200 }), 'Errors & Resolutions');

    it('skips a banner and quotes the first error message', async () => {
      const log =
        ' RUN  v3.2.4 /home/dev/app\n FAIL  tests/a.test.ts > adds\nAssertionError: expected 1 to be 2\n Tests  1 failed';
      expect(await errorsOf(log)).toBe('- `bash` failed: AssertionError: expected 1 to be 2');
    });

    it('falls back to the first line reporting a failure', async () => {
      expect(await errorsOf('> app@1.0.0 test\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 1')).toBe(
        '- `bash` failed: npm ERR! code ELIFECYCLE',
      );
    });

    it('falls back to the first line when no line looks like an error', async () => {
      expect(await errorsOf('\n  exit status 3\nmore output')).toBe('- `bash` failed: exit status 3');
    });
  });

  it('writes "None." under sections with nothing to report', async () => {
    const summary = await summarizer.summarize([{ role: 'user', content: 'Hello' }], { maxWords: 1200 });
    expect(sectionOf(summary, 'File Operations')).toBe('None.');
    expect(sectionOf(summary, 'Tool Calls')).toBe('None.');
    expect(sectionOf(summary, 'Errors & Resolutions')).toBe('None.');
    expect(sectionOf(summary, 'Task Status')).toBe('- Latest request (no reply yet): the first request above.');
    const empty = await summarizer.summarize([], { maxWords: 1200 });
    for (const title of TITLES) expect(sectionOf(empty, title)).toBe('None.');
  });

  it('does not change its input (deep-frozen input works)', async () => {
    const frozen = deepFreeze(structuredClone(history));
    await expect(summarizer.summarize(frozen, { maxWords: 50 })).resolves.toEqual(expect.any(String));
  });

  describe('after an earlier compaction', () => {
    const earlier = (await_summary: string): Message[] => [
      { role: 'user', content: `[Conversation compressed]\n\n${await_summary}` },
      {
        role: 'assistant',
        content: 'Understood. I have the context from the compressed conversation. Continuing work.',
      },
      { role: 'user', content: '[Restored after compact] src/restored.ts:\nexport {}' },
      { role: 'assistant', content: 'Noted, file content restored.' },
      { role: 'user', content: 'Continue with the task.' },
    ];

    it('carries the earlier summary under the same sections and counts a restored file as read', async () => {
      const summary = await summarizer.summarize(
        earlier(
          '## Goals & Decisions\n- First request:\n  > Build the exporter.\n\n## File Operations\n- `src/old.ts`: edited\n\n## Task Status\nNone.',
        ),
        { maxWords: 1200 },
      );
      expect(sectionOf(summary, 'Goals & Decisions')).toContain(
        '- From the previous summary:\n  - First request:\n    > Build the exporter.',
      );
      expect(sectionOf(summary, 'Goals & Decisions')).toContain(
        '- First request since the previous summary:\n  > Continue with the task.',
      );
      expect(sectionOf(summary, 'File Operations')).toContain('`src/old.ts`: edited');
      expect(sectionOf(summary, 'File Operations')).toContain('- `src/restored.ts`: read');
      // the compaction's own acknowledgements are not statements
      expect(summary).not.toContain('Understood. I have the context');
      expect(summary).not.toContain('Noted, file content restored.');
    });

    it("leaves the earlier summary's ledger section out: compaction appends a new one", async () => {
      const ledger =
        '## Context Ledger\nFacts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.\n- Task: "Build the exporter."';
      const summary = await summarizer.summarize(earlier(`## Task Status\nExporting.\n\n${ledger}`), {
        maxWords: 1200,
      });
      expect(sectionOf(summary, 'Task Status')).toContain('- From the previous summary:\n  Exporting.');
      expect(summary).not.toContain('Context Ledger');
      expect(summary).not.toContain('Facts kept by compaction');
    });

    it('finds the files an apply_patch call names in its patch', async () => {
      const patch =
        '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-1\n+2\n*** Delete File: src/old.ts\n*** End Patch';
      const summary = await summarizer.summarize(
        [
          { role: 'user', content: 'Patch it.' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'p1', name: 'apply_patch', input: { input: patch } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'p1', content: 'Done!' }] },
        ],
        { maxWords: 1200 },
      );
      expect(sectionOf(summary, 'File Operations')).toBe('- `src/a.ts`: edited\n- `src/old.ts`: edited');
    });
  });

  describe('word budget (maxWords; a CJK character is a word)', () => {
    function largeHistory(size: number, text: (index: number) => string): Message[] {
      const messages: Message[] = [];
      for (let index = 0; index < size; index += 1) {
        messages.push({ role: 'user', content: text(index) });
        messages.push({
          role: 'assistant',
          content: [
            { type: 'text', text: `Step ${index}: ${text(index)}` },
            {
              type: 'tool_use',
              id: `c${index}`,
              name: index % 3 === 0 ? 'read_file' : 'bash',
              input: { path: `src/file-${index}.ts`, command: 'make' },
            },
          ],
        });
        messages.push({
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: `c${index}`,
              is_error: index % 7 === 0,
              content: `Error ${index}: ${text(index)}`,
            },
          ],
        });
      }
      return messages;
    }

    it('stays within maxWords on a 3,000-message history', async () => {
      const messages = largeHistory(1_000, (index) => `request number ${index} ${'with many words '.repeat(60)}`);
      for (const maxWords of [1200, 300, 40]) {
        const summary = await summarizer.summarize(messages, { maxWords });
        expect(countWords(summary)).toBeLessThanOrEqual(maxWords);
        for (const title of TITLES) expect(summary).toContain(`## ${title}`);
      }
      const summary = await summarizer.summarize(messages, { maxWords: 1200 });
      // the most useful facts come first: the first request and the last call survive the budget
      expect(summary).toContain('request number 0 with many words');
      expect(sectionOf(summary, 'Task Status')).toContain('Last tool call:');
      expect(sectionOf(summary, 'File Operations')).toContain('`src/file-999.ts`');
      expect(sectionOf(summary, 'File Operations')).toMatch(/^- \(\d+ more files not shown\)$/m);
      expect(summary).toContain('[…]');
    });

    it('counts each CJK character as a word, cutting Chinese text by characters', async () => {
      const messages = largeHistory(200, (index) => `第${index}个请求：${'请修复这个测试并更新文档'.repeat(30)}`);
      const summary = await summarizer.summarize(messages, { maxWords: 200 });
      expect(countWords(summary)).toBeLessThanOrEqual(200);
      expect(summary).toContain('第0个请求：请修复');
    });

    it('property: any history, any budget: at most maxWords words, and the same text twice', async () => {
      const message = fc.oneof(
        fc.record({
          role: fc.constantFrom('user' as const, 'assistant' as const),
          content: fc.string({ unit: 'grapheme', maxLength: 400 }),
        }),
        fc
          .tuple(
            fc.string({ minLength: 1, maxLength: 4 }),
            fc.string({ maxLength: 40 }),
            fc.string({ unit: 'grapheme', maxLength: 300 }),
            fc.boolean(),
          )
          .map(([id, path, result, isError]): Message[] => [
            { role: 'assistant', content: [{ type: 'tool_use', id, name: 'edit_file', input: { path } }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, is_error: isError }] },
          ]),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(message, { maxLength: 30 }),
          fc.integer({ min: 1, max: 400 }),
          async (generated, maxWords) => {
            const messages = generated.flat() as Message[];
            const summary = await summarizer.summarize(messages, { maxWords });
            expect(countWords(summary)).toBeLessThanOrEqual(maxWords);
            expect(await summarizer.summarize(messages, { maxWords })).toBe(summary);
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  describe('what follows a failure', () => {
    it('quotes the first statement after the result and says how the next call of the same tool, in a later message, went', async () => {
      const messages: Message[] = [
        { role: 'user', content: 'Run the checks.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Running the tests and the linter.' },
            { type: 'tool_use', id: 'a1', name: 'bash', input: { command: 'npm test' } },
            { type: 'tool_use', id: 'a2', name: 'bash', input: { command: 'npm run lint' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a1', is_error: true, content: 'Error: 1 test failed' },
            { type: 'tool_result', tool_use_id: 'a2', content: 'clean' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'g1', name: 'grep', input: { pattern: 'todo' } }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'g1', is_error: true, content: 'Error: bad pattern' }],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: '\nRetrying the tests.\nThey were flaky.' },
            { type: 'tool_use', id: 'a3', name: 'bash', input: { command: 'npm test' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'a3', is_error: true, content: 'Error: still failing' }],
        },
      ];
      const errors = sectionOf(await summarizer.summarize(messages, { maxWords: 1200 }), 'Errors & Resolutions');
      // a2, in the same message as a1, is not its retry; a1's own message's text is not "next"
      expect(errors).toBe(
        [
          '- `bash` failed: Error: 1 test failed Then: "Retrying the tests." The next `bash` call failed too.',
          '- `grep` failed: Error: bad pattern Then: "Retrying the tests."',
          '- `bash` failed: Error: still failing',
        ].join('\n'),
      );
    });
  });

  describe('long and hostile histories (the summary is linear in the input)', () => {
    it('summarizes 100,000 messages with 30,000 failures, with the expected facts', async () => {
      const tools = ['bash', 'read_file', 'edit_file'];
      const perTool = new Map<string, { calls: number; failures: number }>();
      const messages: Message[] = [{ role: 'user', content: 'Port the service to the new API.' }];
      // 49,999 rounds of a call and its result; 3 rounds in 5 fail; a statement every 10th
      // round, a new request every 1,000th; then the latest request: 100,000 messages
      for (let round = 0; round < 49_999; round += 1) {
        const name = tools[round % 3] as string;
        const failed = round % 5 < 3;
        const stats = perTool.get(name) ?? { calls: 0, failures: 0 };
        perTool.set(name, { calls: stats.calls + 1, failures: stats.failures + (failed ? 1 : 0) });
        const statement: ContentBlock[] = round % 10 === 0 ? [{ type: 'text', text: `Step ${round}: checking.` }] : [];
        const request: ContentBlock[] =
          round > 0 && round % 1000 === 0 ? [{ type: 'text', text: `Also handle case ${round}.` }] : [];
        messages.push({
          role: 'assistant',
          content: [
            ...statement,
            { type: 'tool_use', id: `t${round}`, name, input: { path: `src/module-${round % 1000}.ts` } },
          ],
        });
        messages.push({
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: `t${round}`,
              is_error: failed,
              content: failed ? ` RUN v3\nError: case ${round} failed` : 'ok',
            },
            ...request,
          ],
        });
      }
      messages.push({ role: 'user', content: 'Now write the changelog.' });
      expect(messages).toHaveLength(100_000);

      const summary = await summarizer.summarize(messages, { maxWords: 1200 });
      expect(countWords(summary)).toBeLessThanOrEqual(1200);
      expect(sectionOf(summary, 'Goals & Decisions')).toContain(
        '- First request:\n  > Port the service to the new API.',
      );
      // errors and files (tier 1) come before the 49 later requests (tier 2) in a 1,200-word budget
      expect(sectionOf(summary, 'Goals & Decisions')).toContain('- (49 more requests not shown)');
      const toolCalls = sectionOf(summary, 'Tool Calls');
      expect(toolCalls).toContain('- 49999 tool calls, 30000 failed.');
      expect(toolCalls).toMatch(/\n- \([1-3] more tools not shown\)$/);
      const status = sectionOf(summary, 'Task Status');
      expect(status).toContain('- Latest request (no reply yet):\n  > Now write the changelog.');
      expect(status).toContain('- Latest assistant statement:\n  > Step 49990: checking.');
      expect(status).toContain('- Last tool call: `bash` {"path":"src/module-998.ts"} → ok');
      expect(sectionOf(summary, 'File Operations')).toContain('- `src/module-998.ts`: edited, used by bash, read');
      const errors = sectionOf(summary, 'Errors & Resolutions').split('\n');
      // the most recent failures first in the budget, written in the order they happened
      expect(errors.slice(-8)).toEqual([
        '- `read_file` failed: Error: case 49987 failed Then: "Step 49990: checking." The next `read_file` call failed too.',
        '- `read_file` failed: Error: case 49990 failed The next `read_file` call succeeded.',
        '- `edit_file` failed: Error: case 49991 failed The next `edit_file` call succeeded.',
        '- `bash` failed: Error: case 49992 failed The next `bash` call failed too.',
        '- `bash` failed: Error: case 49995 failed The next `bash` call succeeded.',
        '- `read_file` failed: Error: case 49996 failed',
        '- `edit_file` failed: Error: case 49997 failed',
        '- (29950 more errors not shown)',
      ]);

      // with room for everything: every failure described, and the calls per tool
      const whole = await summarizer.summarize(messages, { maxWords: 1_000_000 });
      expect(sectionOf(whole, 'Errors & Resolutions').split('\n')).toHaveLength(30_000);
      for (const [name, stats] of perTool)
        expect(sectionOf(whole, 'Tool Calls')).toContain(
          `- \`${name}\`: ${stats.calls} calls, ${stats.failures} failed`,
        );
    });

    it('gives each of thousands of failures in a row the statement after them, and the next call of their tool', async () => {
      const messages: Message[] = [{ role: 'user', content: 'Make the build pass.' }];
      for (let index = 0; index < 5_000; index += 1) {
        const name = index % 2 === 0 ? 'bash' : 'grep';
        messages.push({
          role: 'assistant',
          content: [{ type: 'tool_use', id: `f${index}`, name, input: { command: `try ${index}` } }],
        });
        messages.push({
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: `f${index}`, is_error: true, content: `Error: attempt ${index}` },
          ],
        });
      }
      messages.push({
        role: 'assistant',
        content: `The cache was stale.\n${'Cleared it and rebuilt. '.repeat(5_000)}`,
      });
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'last', name: 'bash', input: { command: 'make' } }],
      });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'last', content: 'built' }] });
      const errors = sectionOf(
        await summarizer.summarize(messages, { maxWords: 100_000 }),
        'Errors & Resolutions',
      ).split('\n');
      expect(errors).toHaveLength(5_000);
      expect(errors[0]).toBe(
        '- `bash` failed: Error: attempt 0 Then: "The cache was stale." The next `bash` call failed too.',
      );
      expect(errors).toContain(
        '- `bash` failed: Error: attempt 4998 Then: "The cache was stale." The next `bash` call succeeded.',
      );
      expect(errors).toContain('- `grep` failed: Error: attempt 4999 Then: "The cache was stale."');
    });

    it('recognises the headings of an earlier summary whatever their spacing (100,000 spaces in one)', async () => {
      const earlier = [
        '## Goals and Decisions',
        '- Ship the exporter.',
        '###   tool calls ###',
        '- 3 calls.',
        `## Task${' '.repeat(100_000)}Status`,
        '- Writing the docs.',
        '####### Task Status',
        '- seven #s: not a heading',
      ].join('\n');
      const summary = await summarizer.summarize(
        [{ role: 'user', content: `[Conversation compressed]\n\n${earlier}` }],
        { maxWords: 1200 },
      );
      expect(sectionOf(summary, 'Goals & Decisions')).toBe('- From the previous summary:\n  - Ship the exporter.');
      expect(sectionOf(summary, 'Tool Calls')).toBe('- From the previous summary:\n  - 3 calls.');
      expect(sectionOf(summary, 'Task Status')).toBe(
        '- From the previous summary:\n  - Writing the docs.\n  ####### Task Status\n  - seven #s: not a heading',
      );
      expect(sectionOf(summary, 'Errors & Resolutions')).toBe('None.');
    });

    it('carries an earlier summary of 100,000 lines, cut to its share of the budget', async () => {
      const earlier = `## Task Status\n${Array.from({ length: 100_000 }, (_, index) => `- step ${index}`).join('\n')}`;
      const status = sectionOf(
        await summarizer.summarize([{ role: 'user', content: `[Conversation compressed]\n\n${earlier}` }], {
          maxWords: 1200,
        }),
        'Task Status',
      );
      expect(status.startsWith('- From the previous summary:\n  - step 0\n  - step 1\n')).toBe(true);
      expect(status.endsWith(' […]')).toBe(true);
      expect(countWords(status)).toBeLessThanOrEqual(120);
    });

    it('lists the operations on one path once each, in the order first seen, however many tools touched it', async () => {
      const messages: Message[] = [];
      for (let index = 0; index < 20_000; index += 1) {
        const name = index % 4 === 0 ? 'read_file' : index % 4 === 1 ? 'edit_file' : `tool${index % 10_000}`;
        messages.push({
          role: 'assistant',
          content: [{ type: 'tool_use', id: `p${index}`, name, input: { path: 'src/same.ts' } }],
        });
      }
      const files = sectionOf(await summarizer.summarize(messages, { maxWords: 20_000 }), 'File Operations');
      expect(
        files.startsWith('- `src/same.ts`: read, edited, used by tool2, used by tool3, used by tool6, used by tool7, '),
      ).toBe(true);
      expect(files.endsWith(', used by tool9998, used by tool9999')).toBe(true);
      // 5,000 other tools, each named once
      expect(files.match(/used by tool/g)).toHaveLength(5_000);
      expect(files.match(/used by tool2,/g)).toHaveLength(1);
    });
  });

  describe('options', () => {
    it.each([0, -3, 2.5, Number.NaN])('rejects maxWords %s, naming it', async (maxWords) => {
      const promise = summarizer.summarize(history, { maxWords });
      await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(promise).rejects.toThrow(/^maxWords must be an integer >= 1, got /);
    });

    it('rejects with the abort reason when the signal is aborted', async () => {
      const controller = new AbortController();
      const reason = new Error('stop');
      controller.abort(reason);
      await expect(summarizer.summarize(history, { maxWords: 100, signal: controller.signal })).rejects.toBe(reason);
    });
  });
});
