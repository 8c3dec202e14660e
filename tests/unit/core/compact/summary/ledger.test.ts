import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRestoredFileMessage } from '../../../../../src/core/compact/assemble.js';
import { gatherFacts } from '../../../../../src/core/compact/summary/conversation-facts.js';
import {
  findLastErrorReadingStore,
  type LastErrorFinding,
} from '../../../../../src/core/compact/summary/last-error.js';
import {
  appendLedger,
  buildLedger,
  buildLedgerFromFacts,
  parseLedger,
  renderLedger,
  stripLedger,
  type CompactLedger,
} from '../../../../../src/core/compact/summary/ledger.js';
import {
  appendErrorLine,
  appendPreview,
  buildBatchReference,
  buildDirectReference,
} from '../../../../../src/core/offload/offload-reference.js';
import { silentLogger, type ContentStore } from '../../../../../src/core/ports.js';
import type { ContentBlock, Message } from '../../../../../src/core/types.js';
import { deepFreeze } from '../../../../fixtures/compact-fixtures.js';

const ARCHIVE = '/work/.compact/default/compact-2026-11-21T23-45-12Z-1.json';

/** An assistant message with one tool call, and the user message with its result. */
function turn(
  id: string,
  name: string,
  input: unknown,
  result: ContentBlock[] | string = 'ok',
  isError = false,
): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input: input as Record<string, unknown> }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }],
    },
  ];
}

const session: Message[] = [
  { role: 'user', content: 'Add a --json flag to the CLI.' },
  ...turn('r1', 'Read', { file_path: 'src/cli.ts' }),
  ...turn('r2', 'read_file', { path: 'README.md' }),
  ...turn('r3', 'str_replace_based_edit_tool', { command: 'view', path: 'docs/cli.md' }),
  ...turn('e1', 'Edit', { file_path: 'src/cli.ts', old_string: 'a', new_string: 'b' }),
  ...turn('e2', 'MultiEdit', { file_path: 'src/json.ts', edits: [] }),
  ...turn('e3', 'str_replace_based_edit_tool', { command: 'create', path: 'src/format.ts', file_text: 'x' }),
  ...turn('e4', 'Write', { file_path: 'src/broken.ts', content: 'x' }, 'EACCES: permission denied', true),
  ...turn('p1', 'apply_patch', {
    input:
      '*** Begin Patch\n*** Update File: src/args.ts\n@@\n-a\n+b\n*** Add File: tests/json.test.ts\n+x\n*** End Patch',
  }),
  ...turn(
    'b1',
    'Bash',
    { command: 'npm test' },
    'FAIL tests/json.test.ts\nAssertionError: expected "{" to be "["',
    true,
  ),
  ...turn('b2', 'shell', { command: ['bash', '-lc', 'npx tsc --noEmit'] }),
  ...turn('b3', 'Bash', { command: 'npm test' }),
  { role: 'user', content: 'Now document the flag.' },
  { role: 'assistant', content: 'Documented.' },
];

describe('buildLedger: recoverable compaction', () => {
  it('keeps the task, the latest request, the files read and edited, the commands and the last error', () => {
    expect(buildLedger(session, { archiveReference: ARCHIVE })).toEqual({
      archiveReference: ARCHIVE,
      earlierArchiveReferences: { items: [], omittedCount: 0 },
      task: 'Add a --json flag to the CLI.',
      latestRequest: 'Now document the flag.',
      filesRead: { items: ['src/cli.ts', 'README.md', 'docs/cli.md'], omittedCount: 0 },
      // a failed Write edited nothing; a patch edits every file it names
      filesEdited: {
        items: ['src/cli.ts', 'src/json.ts', 'src/format.ts', 'src/args.ts', 'tests/json.test.ts'],
        omittedCount: 0,
      },
      // each command once, at its latest run
      commands: { items: ['npx tsc --noEmit', 'npm test'], omittedCount: 0 },
      lastError: {
        toolName: 'Bash',
        toolUseId: 'b1',
        input: 'npm test',
        message: 'AssertionError: expected "{" to be "["',
      },
      offloadedResults: { items: [], omittedCount: 0 },
      offloadIndex: undefined,
    } satisfies CompactLedger);
  });

  it('lists every offloaded result with its tool, id, input and reference: batch, direct, in a text block, with a preview', () => {
    const messages: Message[] = [
      ...turn('t1', 'Read', { file_path: 'big.log' }, buildBatchReference('./tool-result-t1.md')),
      ...turn('t2', 'Grep', { pattern: 'x' }, [{ type: 'text', text: buildDirectReference('/srv/offload/s1/t2.md') }]),
      ...turn(
        't3',
        'bash',
        { command: 'cat big.log' },
        appendPreview(buildBatchReference('redis://offload/t3.md'), 'line 1\nline 2', { headChars: 100, tailChars: 0 }),
      ),
      // text that only starts with a reference is ordinary content
      ...turn('t4', 'bash', { command: 'echo' }, '[Content offloaded to: ./x.md]\nand more'),
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'orphan', content: buildBatchReference('./tool-result-orphan.md') },
        ],
      },
    ];
    expect(buildLedger(messages, { archiveReference: ARCHIVE }).offloadedResults.items).toEqual([
      { toolName: 'Read', toolUseId: 't1', input: 'big.log', reference: './tool-result-t1.md' },
      { toolName: 'Grep', toolUseId: 't2', input: 'x', reference: '/srv/offload/s1/t2.md' },
      { toolName: 'bash', toolUseId: 't3', input: 'cat big.log', reference: 'redis://offload/t3.md' },
      { toolName: 'unknown', toolUseId: 'orphan', input: '', reference: './tool-result-orphan.md' },
    ]);
  });

  it('counts a restored file as read, and the configured read tool with its path field', () => {
    const messages: Message[] = [
      formatRestoredFileMessage('src/restored.ts', 'x'),
      { role: 'assistant', content: 'Noted, file content restored.' },
      ...turn('f1', 'fetch_source', { target: 'src/fetched.ts' }),
    ];
    expect(buildLedger(messages, { archiveReference: null }).filesRead.items).toEqual(['src/restored.ts']);
    expect(
      buildLedger(messages, { archiveReference: null, readToolNames: ['fetch_source'], pathField: 'target' }).filesRead
        .items,
    ).toEqual(['src/restored.ts', 'src/fetched.ts']);
  });

  it('takes the last failed result for the last error, even one whose call is not in the messages', () => {
    const messages: Message[] = [
      ...turn('b1', 'bash', { command: 'make' }, 'make: *** [all] Error 2', true),
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'gone',
            is_error: true,
            content: [{ type: 'text', text: 'banner\nTypeError: x is undefined' }],
          },
        ],
      },
    ];
    expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({
      toolName: 'unknown',
      toolUseId: 'gone',
      message: 'TypeError: x is undefined',
    });
  });

  describe('a last error whose line was read back from its offloaded result', () => {
    const reference = 'memory://default/tool-result-b1.md';
    const messages = turn('b1', 'Bash', { command: 'npm test' }, buildBatchReference(reference), true);
    const facts = gatherFacts(messages);
    const readBack = (line: string): LastErrorFinding => ({
      result: facts.results[0]!,
      call: facts.calls[0],
      line,
      reference,
    });

    it('names the line, the command and the reference', () => {
      expect(
        buildLedgerFromFacts(facts, { archiveReference: null }, readBack('AssertionError: expected 2336 to be 2337'))
          .lastError,
      ).toEqual({
        toolName: 'Bash',
        toolUseId: 'b1',
        input: 'npm test',
        message: 'AssertionError: expected 2336 to be 2337',
        reference,
      });
    });

    it('cuts the error line as it cuts an inline error', () => {
      const long = `TypeError: ${'x'.repeat(400)}`;
      const inline = buildLedger(turn('b1', 'Bash', { command: 'npm test' }, long, true), {
        archiveReference: null,
      }).lastError;
      const offloaded = buildLedgerFromFacts(facts, { archiveReference: null }, readBack(long)).lastError;
      expect(offloaded?.message).toBe(inline?.message);
      expect(offloaded?.message).toHaveLength(300 + ' […]'.length);
    });

    it('writes the input as "input" and the reference as "ref" in the Last error line, which reads back', () => {
      const ledger = buildLedgerFromFacts(
        facts,
        { archiveReference: null },
        readBack('AssertionError: expected 2336 to be 2337'),
      );
      const rendered = renderLedger(ledger);
      expect(rendered).toContain(
        `- Last error: {"tool":"Bash","id":"b1","input":"npm test","error":"AssertionError: expected 2336 to be 2337","ref":"${reference}"}`,
      );
      expect(parseLedger(rendered)).toEqual(ledger);
    });

    it('without the text read back, keeps the reference line alone', () => {
      expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'b1',
        input: 'npm test',
        message: buildBatchReference(reference),
      });
    });

    it('takes the error line written after the reference, with nothing read back', async () => {
      const noted = turn(
        'b1',
        'Bash',
        { command: 'npm test' },
        appendErrorLine(buildBatchReference(reference), 'AssertionError: expected 2336 to be 2337'),
        true,
      );
      const expected = {
        toolName: 'Bash',
        toolUseId: 'b1',
        input: 'npm test',
        message: 'AssertionError: expected 2336 to be 2337',
        reference,
      };
      expect(buildLedger(noted, { archiveReference: null }).lastError).toEqual(expected);
      // a store that fails every read: the line after the reference is enough
      const unreadable = new Proxy({} as ContentStore, {
        get: () => () => {
          throw new Error('read');
        },
      });
      const finding = await findLastErrorReadingStore(gatherFacts(noted), { store: unreadable, logger: silentLogger });
      expect(finding?.line).toBe('AssertionError: expected 2336 to be 2337');
      expect(finding?.reference).toBe(reference);
    });

    it('is carried over a later compaction with its reference', () => {
      const first = buildLedgerFromFacts(
        facts,
        { archiveReference: ARCHIVE },
        readBack('AssertionError: expected 2336 to be 2337'),
      );
      const later: Message[] = [
        { role: 'user', content: `[Conversation compressed]\n\n${appendLedger('s', first)}` },
        ...turn('r1', 'Read', { file_path: 'a.ts' }),
      ];
      expect(buildLedger(later, { archiveReference: null }).lastError).toEqual(first.lastError);
    });
  });

  describe('the last error a tool printed, marked or not', () => {
    const log =
      ' RUN  v3.2.4 /repo\n ✓ tests/a.test.ts > one\n FAIL  tests/a.test.ts > two\nAssertionError: expected 2336 to be 2337\n Tests  1 failed | 1 passed (2)\n';

    it('takes an unmarked result that printed an error, with its command', () => {
      const messages = [
        ...turn('b1', 'Bash', { command: 'npm run build' }, 'error TS2345: bad', true),
        ...turn('b2', 'Bash', { command: 'npm test' }, log),
      ];
      expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'b2',
        input: 'npm test',
        message: 'AssertionError: expected 2336 to be 2337',
      });
    });

    it('keeps the earlier error when the later results printed none', () => {
      const messages = [
        ...turn('b1', 'Bash', { command: 'npm test' }, log),
        ...turn('b2', 'Bash', { command: 'npm test' }, ' Tests  2 passed (2)\n 0 failed\nexit code: 0'),
      ];
      expect(buildLedger(messages, { archiveReference: null }).lastError?.toolUseId).toBe('b1');
    });

    it('does not take an error line in a file that was read, or a search match, for an error', () => {
      const messages = [
        ...turn('b1', 'Bash', { command: 'npm test' }, log),
        ...turn(
          'r1',
          'Read',
          { file_path: 'src/errors.ts' },
          'export class ConfigError extends Error {}\nTypeError: in the docs',
        ),
        ...turn('g1', 'Grep', { pattern: 'Error' }, 'src/a.ts:3: error: x'),
      ];
      expect(buildLedger(messages, { archiveReference: null }).lastError?.toolUseId).toBe('b1');
    });

    it('takes a marked failure of any tool, a read included', () => {
      const messages = [
        ...turn('b1', 'Bash', { command: 'npm test' }, log),
        ...turn('r1', 'Read', { file_path: 'nope.ts' }, 'File does not exist.', true),
      ];
      expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({
        toolName: 'Read',
        toolUseId: 'r1',
        input: 'nope.ts',
        message: 'File does not exist.',
      });
    });
  });

  it('does not take the resume message compaction appends for a request', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Fix it.' },
      { role: 'assistant', content: 'On it.' },
      { role: 'user', content: 'Continue with the task.' },
    ];
    expect(
      buildLedger(messages, { archiveReference: null, resumeMessage: 'Continue with the task.' }).latestRequest,
    ).toBe('Fix it.');
    expect(buildLedger(messages, { archiveReference: null }).latestRequest).toBe('Continue with the task.');
  });

  it('never takes text the agent harness wrote (command echoes, caveats, reminders, hook feedback) as the task or the latest request', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content:
          '<local-command-caveat>Caveat: the messages below were generated by the user while running local commands.</local-command-caveat>',
      },
      { role: 'user', content: '<command-name>/clear</command-name>' },
      { role: 'user', content: 'Make the importer skip blank lines.' },
      { role: 'assistant', content: 'On it.' },
      { role: 'user', content: 'Also keep the header row.' },
      { role: 'user', content: 'PostToolUse hook: prettier reformatted src/importer.ts' },
      { role: 'user', content: '<system-reminder>The todo list is empty.</system-reminder>' },
    ];
    const ledger = buildLedger(messages, { archiveReference: null });
    expect([ledger.task, ledger.latestRequest]).toEqual([
      'Make the importer skip blank lines.',
      'Also keep the header row.',
    ]);
  });

  it('with an offload index, lists its 10 most recent entries and names it', () => {
    const entries = Array.from({ length: 25 }, (_, index) => ({
      toolName: 'Bash',
      toolUseId: `b${index}`,
      input: `make ${index}`,
      reference: `./tool-result-b${index}.md`,
    }));
    const index = { reference: '/work/.compact/default/offload-index-abc.md', entries, filesRead: [], filesEdited: [] };
    const ledger = buildLedgerFromFacts(gatherFacts([]), { archiveReference: null, offloadIndex: index }, undefined);
    expect(ledger.offloadedResults).toEqual({ items: entries.slice(15), omittedCount: 15 });
    expect(ledger.offloadIndex).toEqual({ reference: index.reference, count: 25 });
    const rendered = renderLedger(ledger);
    expect(rendered).toContain(
      '- Offloaded tool results [tool, id, input, reference] (10 most recent; 15 earlier in the index):',
    );
    expect(rendered.split('\n').at(-1)).toBe(
      `- Index of all offloaded results and files: {"ref":"${index.reference}","count":25}`,
    );
    expect(parseLedger(rendered)).toEqual(ledger);
  });

  it('keeps the most recent entries of a long list and counts the others', () => {
    const messages = Array.from({ length: 25 }, (_, index) =>
      turn(`r${index}`, 'Read', { file_path: `src/f${index}.ts` }, buildBatchReference(`./tool-result-r${index}.md`)),
    ).flat();
    const ledger = buildLedger(messages, { archiveReference: null });
    expect(ledger.filesRead.items).toHaveLength(15);
    expect(ledger.filesRead.items[0]).toBe('src/f10.ts');
    expect(ledger.filesRead.items.at(-1)).toBe('src/f24.ts');
    expect(ledger.filesRead.omittedCount).toBe(10);
    expect(ledger.offloadedResults.items.map((entry) => entry.toolUseId)).toEqual(
      Array.from({ length: 10 }, (_, index) => `r${15 + index}`),
    );
    expect(ledger.offloadedResults.omittedCount).toBe(15);
    const rendered = renderLedger(ledger);
    expect(rendered).toContain('- Files read (15 most recent; 10 earlier not listed): ["src/f10.ts", ');
    expect(rendered).toContain(
      '- Offloaded tool results [tool, id, input, reference] (10 most recent; 15 earlier not listed):\n  - ["Read","r15","src/f15.ts","./tool-result-r15.md"]',
    );
    expect(parseLedger(rendered)).toEqual(ledger);
  });

  it('cuts a long latest request and a long command, marking the cut', () => {
    const messages: Message[] = [
      { role: 'user', content: 'the task' },
      ...turn('b1', 'bash', { command: `echo ${'y'.repeat(400)}` }),
      { role: 'user', content: 'word '.repeat(300) },
    ];
    const ledger = buildLedger(messages, { archiveReference: null });
    expect(ledger.latestRequest).toHaveLength(400 + ' […]'.length);
    expect(ledger.latestRequest?.endsWith(' […]')).toBe(true);
    expect(ledger.commands.items[0]).toBe(`echo ${'y'.repeat(145)} […]`);
  });

  it('keeps the head and the tail of a long task: what to do, and how to hand the work in', () => {
    const task = `Fix the parser. ${'context '.repeat(1000)}Submit with: echo SUBMIT && cat patch.txt`;
    const ledger = buildLedger([{ role: 'user', content: task }, ...turn('b1', 'bash', { command: 'ls' })], {
      archiveReference: null,
    });
    expect(ledger.task?.startsWith('Fix the parser.')).toBe(true);
    expect(ledger.task?.endsWith('Submit with: echo SUBMIT && cat patch.txt')).toBe(true);
    expect(ledger.task).toContain('chars cut ...]');
    expect(ledger.task!.length).toBeLessThan(2_100);
    expect(renderLedger(ledger)).toContain('- Latest request: the task above');
  });

  it('never mutates its input', () => {
    const messages = deepFreeze(structuredClone(session));
    expect(() => buildLedger(messages, { archiveReference: ARCHIVE })).not.toThrow();
    expect(messages).toEqual(session);
  });

  describe('carried over a later compaction', () => {
    const first = buildLedger(
      [...session, ...turn('t9', 'Read', { file_path: 'huge.log' }, buildBatchReference('./tool-result-t9.md'))],
      { archiveReference: ARCHIVE },
    );
    const summaryMessage: Message = {
      role: 'user',
      content: `[Conversation compressed]\n\n${appendLedger('## Goals & Decisions\nThe summary.', first)}`,
    };
    const later: Message[] = [
      summaryMessage,
      {
        role: 'assistant',
        content: 'Understood. I have the context from the compressed conversation. Continuing work.',
      },
      ...turn('r9', 'Read', { file_path: 'README.md' }),
      ...turn('b9', 'Bash', { command: 'git status' }),
    ];
    const ARCHIVE_2 = ARCHIVE.replace('-1.json', '-2.json');

    it('keeps the task, the earlier facts before the new ones, and the earlier archive', () => {
      const second = buildLedger(later, { archiveReference: ARCHIVE_2 });
      expect(second).toEqual({
        archiveReference: ARCHIVE_2,
        earlierArchiveReferences: { items: [ARCHIVE], omittedCount: 0 },
        task: 'Add a --json flag to the CLI.',
        latestRequest: 'Now document the flag.',
        filesRead: { items: ['src/cli.ts', 'docs/cli.md', 'huge.log', 'README.md'], omittedCount: 0 },
        filesEdited: first.filesEdited,
        commands: { items: ['npx tsc --noEmit', 'npm test', 'git status'], omittedCount: 0 },
        lastError: first.lastError,
        offloadedResults: {
          items: [{ toolName: 'Read', toolUseId: 't9', input: 'huge.log', reference: './tool-result-t9.md' }],
          omittedCount: 0,
        },
        offloadIndex: undefined,
      } satisfies CompactLedger);
    });

    it('adds up the omitted counts across compactions', () => {
      const many = Array.from({ length: 25 }, (_, index) =>
        turn(`r${index}`, 'Read', { file_path: `src/f${index}.ts` }),
      ).flat();
      const once = buildLedger(many, { archiveReference: ARCHIVE });
      const again = buildLedger(
        [
          { role: 'user', content: `[Conversation compressed]\n\n${appendLedger('s', once)}` },
          ...turn('x', 'Read', { file_path: 'src/new.ts' }),
        ],
        { archiveReference: ARCHIVE_2 },
      );
      expect(again.filesRead.omittedCount).toBe(11);
      expect(again.filesRead.items.at(-1)).toBe('src/new.ts');
    });
  });
});

describe('renderLedger', () => {
  it('writes one line per fact, values as JSON, the offloaded results one per line', () => {
    const ledger = buildLedger(
      [...session, ...turn('t9', 'Read', { file_path: 'huge.log' }, buildBatchReference('./tool-result-t9.md'))],
      { archiveReference: ARCHIVE },
    );
    expect(renderLedger(ledger)).toBe(
      [
        '## Context Ledger',
        'Facts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.',
        `- Archive of the compacted messages: "${ARCHIVE}"`,
        '- Task: "Add a --json flag to the CLI."',
        '- Latest request: "Now document the flag."',
        '- Files read: ["src/cli.ts", "README.md", "docs/cli.md", "huge.log"]',
        '- Files edited: ["src/cli.ts", "src/json.ts", "src/format.ts", "src/args.ts", "tests/json.test.ts"]',
        '- Commands run: ["npx tsc --noEmit", "npm test"]',
        '- Last error: {"tool":"Bash","id":"b1","input":"npm test","error":"AssertionError: expected \\"{\\" to be \\"[\\""}',
        '- Offloaded tool results [tool, id, input, reference]:',
        '  - ["Read","t9","huge.log","./tool-result-t9.md"]',
      ].join('\n'),
    );
  });

  it('tells an agent that opens references with its own tools so, never naming a read tool it does not have', () => {
    const ledger = buildLedger(
      [...session, ...turn('t9', 'Read', { file_path: 'huge.log' }, buildBatchReference('/w/.agent-context/s/t9.md'))],
      { archiveReference: ARCHIVE },
    );
    const rendered = renderLedger(ledger, { referenceReader: 'own-tools' });
    expect(rendered.split('\n')[1]).toBe(
      'Facts kept by compaction. Each reference below is a file: open it with your own tools (a large one in parts, or search it); what a list leaves out is in the archives.',
    );
    expect(rendered).not.toContain('read tool');
    expect(rendered).toContain('\n  - [Content offloaded to: /w/.agent-context/s/t9.md] ["Read","t9","huge.log"]');
    expect(parseLedger(rendered)).toEqual(ledger);
  });

  it('for an agent with its own tools, writes a reference holding "] [" as a JSON array, and reads both forms back', () => {
    const odd = { toolName: 'Bash', toolUseId: 'b1', input: 'make', reference: './odd] [name.md' };
    const plain = { toolName: 'Read', toolUseId: 'r1', input: 'a.ts', reference: './tool-result-r1.md' };
    const ledger = {
      ...buildLedger([], { archiveReference: null }),
      offloadedResults: { items: [odd, plain], omittedCount: 0 },
    };
    const rendered = renderLedger(ledger, { referenceReader: 'own-tools' });
    expect(rendered).toContain(
      '\n  - ["Bash","b1","make","./odd] [name.md"]\n  - [Content offloaded to: ./tool-result-r1.md] ["Read","r1","a.ts"]',
    );
    expect(parseLedger(rendered)?.offloadedResults.items).toEqual([odd, plain]);
  });

  it('says when there is no archive, and writes a latest request that is the task once', () => {
    const ledger = buildLedger([{ role: 'user', content: 'Fix it.' }], { archiveReference: null });
    expect(renderLedger(ledger)).toBe(
      [
        '## Context Ledger',
        'Facts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.',
        '- Archive of the compacted messages: none (the archive could not be written)',
        '- Task: "Fix it."',
        '- Latest request: the task above',
      ].join('\n'),
    );
    expect(parseLedger(renderLedger(ledger))).toEqual(ledger);
  });
});

describe('parseLedger and stripLedger', () => {
  const ledger = buildLedger(session, { archiveReference: ARCHIVE });

  it('reads back what renderLedger wrote, for any text in its facts', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    const list = fc.record({ items: fc.array(text, { maxLength: 4 }), omittedCount: fc.nat(50) });
    fc.assert(
      fc.property(
        fc.record({
          archiveReference: fc.option(text, { nil: null }),
          earlierArchiveReferences: list,
          task: fc.option(text, { nil: undefined }),
          latestRequest: fc.option(text, { nil: undefined }),
          filesRead: list,
          filesEdited: list,
          commands: list,
          lastError: fc.option(
            fc.record(
              { toolName: text, toolUseId: text, input: text, message: text, reference: text },
              { requiredKeys: ['toolName', 'toolUseId', 'message'] },
            ),
            { nil: undefined },
          ),
          offloadedResults: fc.record({
            items: fc.array(fc.record({ toolName: text, toolUseId: text, input: text, reference: text }), {
              maxLength: 3,
            }),
            omittedCount: fc.nat(50),
          }),
          offloadIndex: fc.option(fc.record({ reference: text, count: fc.nat(10_000) }), { nil: undefined }),
        }),
        (generated) => {
          // an empty list is not written: it reads back as no entries and no omissions
          const normalize = <T>(value: { items: T[]; omittedCount: number }) =>
            value.items.length === 0 ? { items: [], omittedCount: 0 } : value;
          const expected: CompactLedger = {
            ...generated,
            earlierArchiveReferences: normalize(generated.earlierArchiveReferences),
            filesRead: normalize(generated.filesRead),
            filesEdited: normalize(generated.filesEdited),
            commands: normalize(generated.commands),
            offloadedResults: normalize(generated.offloadedResults),
          };
          expect(parseLedger(appendLedger('## Goals & Decisions\nS.', generated))).toEqual(expected);
          expect(
            parseLedger(appendLedger('## Goals & Decisions\nS.', generated, { referenceReader: 'own-tools' })),
          ).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the last ledger of a summary that quotes an earlier one', () => {
    const earlier = buildLedger([{ role: 'user', content: 'Old task.' }], { archiveReference: '/old.json' });
    const summary = appendLedger(
      `## Goals & Decisions\nAs before:\n${renderLedger(earlier)}\n\n## Task Status\nDone.`,
      ledger,
    );
    expect(parseLedger(summary)).toEqual(ledger);
    expect(stripLedger(summary)).toBe(
      `## Goals & Decisions\nAs before:\n${renderLedger(earlier)}\n\n## Task Status\nDone.`,
    );
  });

  it('reads the offloaded results of a ledger written before they had an input', () => {
    const old = [
      '## Context Ledger',
      '- Archive of the compacted messages: "/a.json"',
      '- Offloaded tool results [tool, id, reference] (10 most recent; 2 earlier not listed):',
      '  - ["Read","t1","./tool-result-t1.md"]',
    ].join('\n');
    expect(parseLedger(old)?.offloadedResults).toEqual({
      items: [{ toolName: 'Read', toolUseId: 't1', input: '', reference: './tool-result-t1.md' }],
      omittedCount: 2,
    });
  });

  it('has nothing to read in a summary without a ledger', () => {
    expect(parseLedger('## Goals & Decisions\nNo ledger here. ## Context Ledger\nin a line')).toBeUndefined();
    expect(stripLedger('## Goals & Decisions\nS.')).toBe('## Goals & Decisions\nS.');
  });

  it('leaves a fact empty when its line was damaged, reading the others', () => {
    const damaged = renderLedger(ledger).replace('- Files read: ["src/cli.ts"', '- Files read: [src/cli.ts"');
    expect(parseLedger(damaged)).toEqual({ ...ledger, filesRead: { items: [], omittedCount: 0 } });
  });
});
