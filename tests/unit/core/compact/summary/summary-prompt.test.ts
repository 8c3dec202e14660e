import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildSummaryInstruction,
  buildSummaryPrompt,
  cutTextInMiddle,
  renderMessagesForSummary,
  SUMMARY_SECTION_TITLES,
} from '../../../../../src/core/compact/summary/summary-prompt.js';
import { InvalidOptionError } from '../../../../../src/core/errors.js';
import type { Message } from '../../../../../src/core/types.js';

/** The prompt's rule about the most recent messages, typed out here rather than imported, so the test checks the text. */
const MOST_RECENT_RULE =
  'Pay special attention to the MOST RECENT messages — summarize the current task state, what was just done, and what the next logical step should be. This information is critical because the original recent messages will NOT be preserved.';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const history: Message[] = [
  { role: 'user', content: 'Fix the failing test in src/a.test.ts' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Read the test first.', signature: 'sig' },
      { type: 'text', text: 'Reading the test.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.test.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: "import { it } from 'vitest';" },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ],
  },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'npm test' } }] },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_2',
        is_error: true,
        content: [{ type: 'text', text: 'FAIL src/a.test.ts' }],
      },
    ],
  },
];

describe('buildSummaryPrompt', () => {
  const prompt = buildSummaryPrompt('[1] user:\nhello', { maxWords: 1200 });

  it('asks for the five dimensions as sections, in order (rule 1)', () => {
    const positions = ['Goals & Decisions', 'File Operations', 'Tool Calls', 'Task Status', 'Errors & Resolutions'].map(
      (title) => prompt.indexOf(`## ${title}\n`),
    );
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(SUMMARY_SECTION_TITLES).toEqual([
      'Goals & Decisions',
      'File Operations',
      'Tool Calls',
      'Task Status',
      'Errors & Resolutions',
    ]);
  });

  it('asks Task Status to detail the most recent round and the next step (rule 2)', () => {
    const taskStatus = prompt.slice(prompt.indexOf('## Task Status'), prompt.indexOf('## Errors & Resolutions'));
    expect(taskStatus).toContain(
      'the operation in progress in the most recent round of the interaction and the planned next step',
    );
  });

  it('carries the MOST RECENT rule verbatim (rule 3)', () => {
    expect(prompt).toContain(MOST_RECENT_RULE);
  });

  it('states the word budget (rule 4: SUMMARY_MAX_WORDS, default 1200), counting CJK characters as words', () => {
    expect(prompt).toContain(
      'Use at most 1200 words in total (each Chinese, Japanese or Korean character counts as one word).',
    );
    expect(buildSummaryPrompt('x', { maxWords: 300 })).toContain('at most 300 words');
  });

  it('carries the conversation inside <conversation> tags, before the instructions', () => {
    expect(prompt).toContain('<conversation>\n[1] user:\nhello\n</conversation>');
    expect(prompt.indexOf('</conversation>')).toBeLessThan(prompt.indexOf('## Goals & Decisions'));
  });

  it('has no previous summary unless given', () => {
    expect(prompt).not.toContain('<previous_summary>');
  });

  it('carries the previous summary of a chunked run and asks to merge it', () => {
    const chunked = buildSummaryPrompt('[7] user:\nnext part', {
      maxWords: 1200,
      previousSummary: '## Goals & Decisions\nEarlier goal',
    });
    expect(chunked).toContain('<previous_summary>\n## Goals & Decisions\nEarlier goal\n</previous_summary>');
    expect(chunked.indexOf('<previous_summary>')).toBeLessThan(chunked.indexOf('<conversation>'));
    expect(chunked).toContain('Write one updated summary of the whole conversation so far');
    expect(chunked).toContain(MOST_RECENT_RULE);
  });

  it.each([0, -1, 1.5, Number.NaN, '1200'])('rejects maxWords %s, naming the option', (maxWords) => {
    expect(() => buildSummaryPrompt('x', { maxWords: maxWords as number })).toThrow(InvalidOptionError);
    expect(() => buildSummaryPrompt('x', { maxWords: maxWords as number })).toThrow(
      /^maxWords must be an integer >= 1, got /,
    );
  });
});

describe('renderMessagesForSummary', () => {
  it('numbers messages, names roles, tools, ids and errors, and keeps placeholders', () => {
    expect(renderMessagesForSummary(history)).toMatchInlineSnapshot(`
      "[1] user:
      Fix the failing test in src/a.test.ts

      [2] assistant:
      [thinking]
      Read the test first.
      Reading the test.
      [tool_use read_file id=toolu_1]
      {"path":"src/a.test.ts"}

      [3] user:
      [tool_result read_file id=toolu_1]
      import { it } from 'vitest';
      [image]

      [4] assistant:
      [tool_use bash id=toolu_2]
      {"command":"npm test"}

      [5] user:
      [tool_result bash id=toolu_2, error]
      FAIL src/a.test.ts"
    `);
  });

  it('renders an empty history as an empty text', () => {
    expect(renderMessagesForSummary([])).toBe('');
  });

  it('cuts long tool results, tool inputs and thinking with maxBlockChars, never user or assistant text', () => {
    const long = 'x'.repeat(5000);
    const messages: Message[] = [
      { role: 'user', content: `user ${long}` },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `assistant ${long}` },
          { type: 'thinking', thinking: long },
          { type: 'tool_use', id: 't1', name: 'write_file', input: { path: 'a.txt', content: long } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: long }] },
    ];
    const text = renderMessagesForSummary(messages, { maxBlockChars: 100 });
    expect(text).toContain(`user ${long}`);
    expect(text).toContain(`assistant ${long}`);
    expect(text.match(/\[\.\.\. [\d,]+ chars cut \.\.\.\]/g)).toHaveLength(3);
    expect(text).toContain('[... 4,900 chars cut ...]');
  });

  it('does not change its input', () => {
    const frozen = structuredClone(history);
    renderMessagesForSummary(frozen, { maxBlockChars: 1 });
    expect(frozen).toEqual(history);
  });
});

describe('cutTextInMiddle', () => {
  it('keeps the head and the tail and says how many chars were cut, with thousands separators', () => {
    const text = `HEAD${'m'.repeat(41_233)}TAIL`;
    const cut = cutTextInMiddle(text, 8);
    expect(cut).toBe('HEAD\n[... 41,233 chars cut ...]\nTAIL');
  });

  it('returns the text itself when it is not longer than the budget', () => {
    expect(cutTextInMiddle('short', 5)).toBe('short');
  });

  it('never splits a surrogate pair, so it never writes U+FFFD', () => {
    const text = '😀'.repeat(10);
    for (let keep = 0; keep <= 20; keep += 1) {
      const cut = cutTextInMiddle(text, keep);
      expect(cut).not.toMatch(LONE_SURROGATE);
      expect(cut).not.toContain('\uFFFD');
    }
  });

  it('property: head + tail are a prefix and a suffix, the count is exact, no lone surrogate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.nat(300), (text, keep) => {
        const cut = cutTextInMiddle(text, keep);
        if (text.length <= keep) {
          expect(cut).toBe(text);
          return;
        }
        const match = /^([\s\S]*)\n\[\.\.\. ([\d,]+) chars cut \.\.\.\]\n([\s\S]*)$/.exec(cut);
        expect(match).not.toBeNull();
        const [, head = '', count = '', tail = ''] = match ?? [];
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        expect(head.length + tail.length).toBeLessThanOrEqual(keep);
        expect(Number(count.replace(/,/g, ''))).toBe(text.length - head.length - tail.length);
        expect(cut).not.toMatch(LONE_SURROGATE);
      }),
    );
  });
});

describe("buildSummaryInstruction (summaryMode 'reuse-prefix': the conversation is the request's own messages)", () => {
  const instruction = buildSummaryInstruction({ maxWords: 800 });

  it('asks for the same five sections, in order, with the MOST RECENT rule verbatim and the word budget', () => {
    const positions = SUMMARY_SECTION_TITLES.map((title) => instruction.indexOf(`## ${title}\n`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(instruction).toContain(MOST_RECENT_RULE);
    expect(instruction).toContain('at most 800 words');
  });

  it('speaks of the conversation above, quotes none, and forbids tool calls (the tools are sent too)', () => {
    expect(instruction).toContain('conversation above');
    expect(instruction).toContain('Do not call any tool.');
    expect(instruction).not.toContain('<conversation>');
  });

  it('rejects a bad maxWords, naming it', () => {
    expect(() => buildSummaryInstruction({ maxWords: 0 })).toThrow(InvalidOptionError);
    expect(() => buildSummaryInstruction({ maxWords: 1.5 })).toThrow(/^maxWords must be an integer >= 1, got 1.5$/);
  });
});
