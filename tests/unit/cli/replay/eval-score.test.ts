import { describe, expect, it } from 'vitest';
import {
  holdsText,
  PROBE_KINDS,
  renderContextText,
  scoreCompactedContext,
} from '../../../../src/cli/replay/eval-score.js';
import type { EvalSubjects } from '../../../../src/cli/replay/eval-subjects.js';
import type { Message } from '../../../../src/index.js';

const subjects: EvalSubjects = {
  task: 'Fix the "rounding" test.',
  latestRequest: 'Add a changelog entry.',
  editedFiles: ['src/a.ts', 'C:\\app\\b.ts'],
  lastReadFile: 'src/d.ts',
  lastCommand: 'npm test',
  lastError: {
    toolUseId: 't2',
    toolName: 'run_command',
    lines: ['FAIL  tests/round.test.ts', 'AssertionError: expected 101 to be 102'],
  },
  offloadedResults: [
    { reference: '/store/tool-result-a.md', gist: 'src/a.ts' },
    { reference: '/store/tool-result-b.md', gist: undefined },
  ],
};

const ledger = [
  '## Context Ledger',
  '- Archive of the compacted messages: "/store/default/compact-1.json"',
  '- Task: "Fix the \\"rounding\\" test."',
  '- Latest request: "Add a changelog entry."',
  '- Files edited: ["src/a.ts", "C:\\\\app\\\\b.ts"]',
  '- Commands run: ["npm test"]',
  '- Last error: {"tool":"run_command","id":"t2","error":"AssertionError: expected 101 to be 102"}',
  '  - ["Read","a","src/a.ts","/store/tool-result-a.md"]',
].join('\n');

const compacted: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: `[Conversation compressed]\n${ledger}` },
  { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
];

describe('eval score: a probe is kept when the compacted text holds it', () => {
  const score = scoreCompactedContext(subjects, compacted, { archiveReference: '/store/default/compact-1.json' });
  const kind = (name: string) => score.kinds.find((row) => row.kind === name)!;

  it('finds values written as JSON strings (quotes and backslashes escaped)', () => {
    expect(kind('task')).toMatchObject({ probes: 1, kept: 1 });
    expect(kind('edited-file')).toMatchObject({ probes: 2, kept: 2 });
  });

  it('misses what the text does not hold, and names it', () => {
    expect(kind('last-read-file')).toMatchObject({ probes: 1, kept: 0, missing: ['src/d.ts'] });
    expect(kind('offloaded-result')).toMatchObject({ probes: 2, kept: 1, missing: ['/store/tool-result-b.md'] });
  });

  it('keeps the last error when any of its failure lines is there', () => {
    expect(kind('last-error')).toMatchObject({ probes: 1, kept: 1 });
    expect(score.probes.find((probe) => probe.kind === 'last-error')?.subject).toBe(
      'run_command: FAIL  tests/round.test.ts',
    );
  });

  it("checks the archive's reference", () => {
    expect(kind('archive')).toMatchObject({ probes: 1, kept: 1 });
    const missing = scoreCompactedContext(subjects, compacted, { archiveReference: '/store/default/compact-2.json' });
    expect(missing.kinds.find((row) => row.kind === 'archive')).toMatchObject({ kept: 0 });
  });

  it('counts a compaction without an archive as a probe lost', () => {
    const none = scoreCompactedContext(subjects, compacted, { archiveReference: null });
    expect(none.kinds.find((row) => row.kind === 'archive')).toMatchObject({
      probes: 1,
      kept: 0,
      missing: ['(no archive was written)'],
    });
  });

  it('scores kept probes out of all probes, one row per kind in order', () => {
    expect(score.kinds.map((row) => row.kind)).toEqual([...PROBE_KINDS]);
    expect([score.kept, score.total]).toEqual([8, 10]);
    expect(score.score).toBe(0.8);
  });

  it('has no probe for a kind the transcript lacks, and scores 1 with no probe at all', () => {
    const empty: EvalSubjects = {
      task: undefined,
      latestRequest: undefined,
      editedFiles: [],
      lastReadFile: undefined,
      lastCommand: undefined,
      lastError: undefined,
      offloadedResults: [],
    };
    const result = scoreCompactedContext(empty, compacted, { archiveReference: '/store/default/compact-1.json' });
    expect(result.kinds.filter((row) => row.probes > 0).map((row) => row.kind)).toEqual(['archive']);
    expect(scoreCompactedContext(empty, [], { archiveReference: null }).total).toBe(1);
  });
});

describe('eval score: every offloaded result one read away, with its gist', () => {
  const results = (gist: string | undefined): EvalSubjects => ({
    task: undefined,
    latestRequest: undefined,
    editedFiles: [],
    lastReadFile: undefined,
    lastCommand: undefined,
    lastError: undefined,
    offloadedResults: [{ reference: '/store/tool-result-c.md', gist }],
  });
  const kept = (
    subjects: EvalSubjects,
    messages: Message[],
    offloadIndex?: { reference: string; text: string },
  ): number =>
    scoreCompactedContext(subjects, messages, { archiveReference: null, offloadIndex }).kinds.find(
      (row) => row.kind === 'offloaded-result',
    )!.kept;
  const context = (text: string): Message[] => [{ role: 'user', content: text }];

  it('needs the reference and the gist on one line', () => {
    expect(
      kept(results('npm test -- --run'), context('  - ["Bash","c","npm test -- --run","/store/tool-result-c.md"]')),
    ).toBe(1);
    expect(
      kept(
        results('npm test -- --run'),
        context('  - ["Bash","c","","/store/tool-result-c.md"]\nCommands run: ["npm test -- --run"]'),
      ),
    ).toBe(0);
    expect(kept(results(undefined), context('/store/tool-result-c.md'))).toBe(1);
  });

  it('finds a gist the ledger wrote as JSON', () => {
    expect(
      kept(
        results('grep -n "TODO" src'),
        context('  - ["Bash","c","grep -n \\"TODO\\" src","/store/tool-result-c.md"]'),
      ),
    ).toBe(1);
  });

  it('reads the offload index when the context names it, and only then', () => {
    const index = {
      reference: '/store/default/offload-index-x.md',
      text: '# Offloaded tool results\n["Bash","c","make all","/store/tool-result-c.md"]\n',
    };
    expect(
      kept(
        results('make all'),
        context(`- Index of all offloaded results: {"ref":"${index.reference}","count":1}`),
        index,
      ),
    ).toBe(1);
    expect(kept(results('make all'), context('no index named here'), index)).toBe(0);
  });
});

describe('the text of a context', () => {
  it('holds texts, tool calls with their input, tool results and thinking', () => {
    const text = renderContextText([
      { role: 'user', content: 'plain' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'a text' },
          { type: 'tool_use', id: '1', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: '1', content: [{ type: 'text', text: 'a.ts' }] }] },
    ]);
    for (const part of ['plain', 'hmm', 'a text', 'Bash {"command":"ls"}', 'a.ts']) expect(text).toContain(part);
  });

  it('finds a value as written or JSON-escaped, never an empty one', () => {
    expect(holdsText('say "hi"', 'say "hi"')).toBe(true);
    expect(holdsText('"say \\"hi\\""', 'say "hi"')).toBe(true);
    expect(holdsText('anything', '')).toBe(false);
  });
});
