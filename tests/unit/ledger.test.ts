import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRestoredFileMessage } from '../../src/core/compact/assemble.js';
import { appendLedger, buildLedger, parseLedger, renderLedger, stripLedger, type CompactLedger } from '../../src/core/compact/ledger.js';
import { appendPreview, buildBatchReference, buildDirectReference } from '../../src/core/offload-reference.js';
import type { ContentBlock, Message } from '../../src/core/types.js';
import { deepFreeze } from './compact-fixtures.js';

const ARCHIVE = '/work/.compact/default/compact-2026-11-21T23-45-12Z-1.json';

/** An assistant message with one tool call, and the user message with its result. */
function turn(id: string, name: string, input: unknown, result: ContentBlock[] | string = 'ok', isError = false): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input: input as Record<string, unknown> }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }] },
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
  ...turn('p1', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/args.ts\n@@\n-a\n+b\n*** Add File: tests/json.test.ts\n+x\n*** End Patch' }),
  ...turn('b1', 'Bash', { command: 'npm test' }, 'FAIL tests/json.test.ts\nAssertionError: expected "{" to be "["', true),
  ...turn('b2', 'shell', { command: ['bash', '-lc', 'npx tsc --noEmit'] }),
  ...turn('b3', 'Bash', { command: 'npm test' }),
  { role: 'user', content: 'Now document the flag.' },
  { role: 'assistant', content: 'Documented.' },
];

describe('buildLedger (issue 9: recoverable compaction)', () => {
  it('keeps the task, the latest request, the files read and edited, the commands and the last error', () => {
    expect(buildLedger(session, { archiveReference: ARCHIVE })).toEqual({
      archiveReference: ARCHIVE,
      earlierArchiveReferences: { items: [], omittedCount: 0 },
      task: 'Add a --json flag to the CLI.',
      latestRequest: 'Now document the flag.',
      filesRead: { items: ['src/cli.ts', 'README.md', 'docs/cli.md'], omittedCount: 0 },
      // a failed Write edited nothing; a patch edits every file it names
      filesEdited: { items: ['src/cli.ts', 'src/json.ts', 'src/format.ts', 'src/args.ts', 'tests/json.test.ts'], omittedCount: 0 },
      // each command once, at its latest run
      commands: { items: ['npx tsc --noEmit', 'npm test'], omittedCount: 0 },
      lastError: { toolName: 'Bash', toolUseId: 'b1', message: 'AssertionError: expected "{" to be "["' },
      offloadedResults: { items: [], omittedCount: 0 },
    } satisfies CompactLedger);
  });

  it('lists every offloaded result with its tool, id and reference: batch, direct, in a text block, with a preview', () => {
    const messages: Message[] = [
      ...turn('t1', 'Read', { file_path: 'big.log' }, buildBatchReference('./tool-result-t1.md')),
      ...turn('t2', 'Grep', { pattern: 'x' }, [{ type: 'text', text: buildDirectReference('/srv/offload/s1/t2.md') }]),
      ...turn('t3', 'bash', { command: 'cat big.log' }, appendPreview(buildBatchReference('redis://offload/t3.md'), 'line 1\nline 2', { headChars: 100, tailChars: 0 })),
      // text that only starts with a reference is ordinary content
      ...turn('t4', 'bash', { command: 'echo' }, '[Content offloaded to: ./x.md]\nand more'),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'orphan', content: buildBatchReference('./tool-result-orphan.md') }] },
    ];
    expect(buildLedger(messages, { archiveReference: ARCHIVE }).offloadedResults.items).toEqual([
      { toolName: 'Read', toolUseId: 't1', reference: './tool-result-t1.md' },
      { toolName: 'Grep', toolUseId: 't2', reference: '/srv/offload/s1/t2.md' },
      { toolName: 'bash', toolUseId: 't3', reference: 'redis://offload/t3.md' },
      { toolName: 'unknown', toolUseId: 'orphan', reference: './tool-result-orphan.md' },
    ]);
  });

  it('counts a restored file as read, and the configured read tool with its path field', () => {
    const messages: Message[] = [
      formatRestoredFileMessage('src/restored.ts', 'x'),
      { role: 'assistant', content: 'Noted, file content restored.' },
      ...turn('f1', 'fetch_source', { target: 'src/fetched.ts' }),
    ];
    expect(buildLedger(messages, { archiveReference: null }).filesRead.items).toEqual(['src/restored.ts']);
    expect(buildLedger(messages, { archiveReference: null, readToolNames: ['fetch_source'], pathField: 'target' }).filesRead.items).toEqual([
      'src/restored.ts',
      'src/fetched.ts',
    ]);
  });

  it('takes the last failed result for the last error, even one whose call is not in the messages', () => {
    const messages: Message[] = [
      ...turn('b1', 'bash', { command: 'make' }, 'make: *** [all] Error 2', true),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'gone', is_error: true, content: [{ type: 'text', text: 'banner\nTypeError: x is undefined' }] }] },
    ];
    expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({ toolName: 'unknown', toolUseId: 'gone', message: 'TypeError: x is undefined' });
  });

  describe('a last error whose result was offloaded (its text read from the store beforehand)', () => {
    const reference = 'memory://default/tool-result-b1.md';
    const log = ' RUN  v3.2.4 /repo\n ✓ tests/a.test.ts > one\n FAIL  tests/a.test.ts > two\nAssertionError: expected 2336 to be 2337\n';
    const messages = turn('b1', 'Bash', { command: 'npm test' }, buildBatchReference(reference), true);

    it('takes its error line from the offloaded text and names the reference next to it', () => {
      expect(buildLedger(messages, { archiveReference: null, offloadedError: { reference, text: log } }).lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'b1',
        message: 'AssertionError: expected 2336 to be 2337',
        reference,
      });
    });

    it('cuts the error line as it cuts an inline error', () => {
      const long = `TypeError: ${'x'.repeat(400)}`;
      const inline = buildLedger(turn('b1', 'Bash', { command: 'npm test' }, long, true), { archiveReference: null }).lastError;
      const offloaded = buildLedger(messages, { archiveReference: null, offloadedError: { reference, text: `banner\n${long}` } }).lastError;
      expect(offloaded?.message).toBe(inline?.message);
      expect(offloaded?.message).toHaveLength(300 + ' […]'.length);
    });

    it('writes the reference as "ref" in the Last error line, which reads back', () => {
      const ledger = buildLedger(messages, { archiveReference: null, offloadedError: { reference, text: log } });
      const rendered = renderLedger(ledger);
      expect(rendered).toContain(`- Last error: {"tool":"Bash","id":"b1","error":"AssertionError: expected 2336 to be 2337","ref":"${reference}"}`);
      expect(parseLedger(rendered)).toEqual(ledger);
    });

    it('without the text (not read), keeps the reference line alone, as before', () => {
      expect(buildLedger(messages, { archiveReference: null }).lastError).toEqual({ toolName: 'Bash', toolUseId: 'b1', message: buildBatchReference(reference) });
    });

    it('ignores a text read for another reference', () => {
      const other = { reference: 'memory://default/tool-result-b0.md', text: log };
      expect(buildLedger(messages, { archiveReference: null, offloadedError: other }).lastError?.message).toBe(buildBatchReference(reference));
    });

    it('keeps the reference line when the offloaded text is blank', () => {
      expect(buildLedger(messages, { archiveReference: null, offloadedError: { reference, text: '\n \n' } }).lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'b1',
        message: buildBatchReference(reference),
      });
    });

    it('is carried over a later compaction with its reference', () => {
      const first = buildLedger(messages, { archiveReference: ARCHIVE, offloadedError: { reference, text: log } });
      const later: Message[] = [{ role: 'user', content: `[Conversation compressed]\n\n${appendLedger('s', first)}` }, ...turn('r1', 'Read', { file_path: 'a.ts' })];
      expect(buildLedger(later, { archiveReference: null }).lastError).toEqual(first.lastError);
    });
  });

  it('does not take the resume message compaction appends for a request', () => {
    const messages: Message[] = [{ role: 'user', content: 'Fix it.' }, { role: 'assistant', content: 'On it.' }, { role: 'user', content: 'Continue with the task.' }];
    expect(buildLedger(messages, { archiveReference: null, resumeMessage: 'Continue with the task.' }).latestRequest).toBe('Fix it.');
    expect(buildLedger(messages, { archiveReference: null }).latestRequest).toBe('Continue with the task.');
  });

  it('never takes text the agent harness wrote (command echoes, caveats, reminders, hook feedback) as the task or the latest request', () => {
    const messages: Message[] = [
      { role: 'user', content: '<local-command-caveat>Caveat: the messages below were generated by the user while running local commands.</local-command-caveat>' },
      { role: 'user', content: '<command-name>/clear</command-name>' },
      { role: 'user', content: 'Make the importer skip blank lines.' },
      { role: 'assistant', content: 'On it.' },
      { role: 'user', content: 'Also keep the header row.' },
      { role: 'user', content: 'PostToolUse hook: prettier reformatted src/importer.ts' },
      { role: 'user', content: '<system-reminder>The todo list is empty.</system-reminder>' },
    ];
    const ledger = buildLedger(messages, { archiveReference: null });
    expect([ledger.task, ledger.latestRequest]).toEqual(['Make the importer skip blank lines.', 'Also keep the header row.']);
  });

  it('keeps the most recent entries of a long list and counts the others', () => {
    const messages = Array.from({ length: 25 }, (_, index) => turn(`r${index}`, 'Read', { file_path: `src/f${index}.ts` }, buildBatchReference(`./tool-result-r${index}.md`))).flat();
    const ledger = buildLedger(messages, { archiveReference: null });
    expect(ledger.filesRead.items).toHaveLength(15);
    expect(ledger.filesRead.items[0]).toBe('src/f10.ts');
    expect(ledger.filesRead.items.at(-1)).toBe('src/f24.ts');
    expect(ledger.filesRead.omittedCount).toBe(10);
    expect(ledger.offloadedResults.items.map((entry) => entry.toolUseId)).toEqual(Array.from({ length: 10 }, (_, index) => `r${15 + index}`));
    expect(ledger.offloadedResults.omittedCount).toBe(15);
    const rendered = renderLedger(ledger);
    expect(rendered).toContain('- Files read (15 most recent; 10 earlier not listed): ["src/f10.ts", ');
    expect(rendered).toContain('- Offloaded tool results [tool, id, reference] (10 most recent; 15 earlier not listed):\n  - ["Read","r15","./tool-result-r15.md"]');
    expect(parseLedger(rendered)).toEqual(ledger);
  });

  it('cuts a long request and a long command, marking the cut', () => {
    const messages: Message[] = [{ role: 'user', content: 'word '.repeat(300) }, ...turn('b1', 'bash', { command: `echo ${'y'.repeat(400)}` })];
    const ledger = buildLedger(messages, { archiveReference: null });
    expect(ledger.task).toHaveLength(400 + ' […]'.length);
    expect(ledger.task?.endsWith(' […]')).toBe(true);
    expect(ledger.commands.items[0]).toBe(`echo ${'y'.repeat(145)} […]`);
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
    const summaryMessage: Message = { role: 'user', content: `[Conversation compressed]\n\n${appendLedger('## Goals & Decisions\nThe summary.', first)}` };
    const later: Message[] = [
      summaryMessage,
      { role: 'assistant', content: 'Understood. I have the context from the compressed conversation. Continuing work.' },
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
        offloadedResults: { items: [{ toolName: 'Read', toolUseId: 't9', reference: './tool-result-t9.md' }], omittedCount: 0 },
      } satisfies CompactLedger);
    });

    it('adds up the omitted counts across compactions', () => {
      const many = Array.from({ length: 25 }, (_, index) => turn(`r${index}`, 'Read', { file_path: `src/f${index}.ts` })).flat();
      const once = buildLedger(many, { archiveReference: ARCHIVE });
      const again = buildLedger(
        [{ role: 'user', content: `[Conversation compressed]\n\n${appendLedger('s', once)}` }, ...turn('x', 'Read', { file_path: 'src/new.ts' })],
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
        '- Last error: {"tool":"Bash","id":"b1","error":"AssertionError: expected \\"{\\" to be \\"[\\""}',
        '- Offloaded tool results [tool, id, reference]:',
        '  - ["Read","t9","./tool-result-t9.md"]',
      ].join('\n'),
    );
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
          lastError: fc.option(fc.record({ toolName: text, toolUseId: text, message: text, reference: text }, { requiredKeys: ['toolName', 'toolUseId', 'message'] }), {
            nil: undefined,
          }),
          offloadedResults: fc.record({
            items: fc.array(fc.record({ toolName: text, toolUseId: text, reference: text }), { maxLength: 3 }),
            omittedCount: fc.nat(50),
          }),
        }),
        (generated) => {
          // an empty list is not written: it reads back as no entries and no omissions
          const normalize = <T>(value: { items: T[]; omittedCount: number }) => (value.items.length === 0 ? { items: [], omittedCount: 0 } : value);
          const expected: CompactLedger = {
            ...generated,
            earlierArchiveReferences: normalize(generated.earlierArchiveReferences),
            filesRead: normalize(generated.filesRead),
            filesEdited: normalize(generated.filesEdited),
            commands: normalize(generated.commands),
            offloadedResults: normalize(generated.offloadedResults),
          };
          expect(parseLedger(appendLedger('## Goals & Decisions\nS.', generated))).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the last ledger of a summary that quotes an earlier one', () => {
    const earlier = buildLedger([{ role: 'user', content: 'Old task.' }], { archiveReference: '/old.json' });
    const summary = appendLedger(`## Goals & Decisions\nAs before:\n${renderLedger(earlier)}\n\n## Task Status\nDone.`, ledger);
    expect(parseLedger(summary)).toEqual(ledger);
    expect(stripLedger(summary)).toBe(`## Goals & Decisions\nAs before:\n${renderLedger(earlier)}\n\n## Task Status\nDone.`);
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
