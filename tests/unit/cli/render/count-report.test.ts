import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { measureContext } from '../../../../src/cli/measure-context.js';
import { renderCountReport } from '../../../../src/cli/render/count-report.js';
import type { Message } from '../../../../src/core/types.js';
import { anthropic } from '../../../../src/formats/anthropic.js';

const HISTORY: Message[] = [
  { role: 'user', content: 'look at the table' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'table.tsv' } }],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'name\tsize\tkind\nalpha\t12\tfile' },
      // its call is not in the history (cut off, or compacted away)
      { type: 'tool_result', tool_use_id: 'toolu_gone', content: 'an orphan result with enough words' },
    ],
  },
];

function render(messages: Message[]): string[] {
  const measurement = measureContext({ shape: 'json', format: anthropic, messages, toolDefinitions: undefined });
  return renderCountReport(measurement, {
    source: 'history.json',
    style: picocolors.createColors(false),
    width: 100,
  }).split('\n');
}

describe('the count report', () => {
  it('shows a tab in a preview as a space', () => {
    const row = render(HISTORY).find((line) => line.includes('toolu_1 '));
    expect(row).toMatch(/ {2}name size kind$/);
    expect(row).not.toContain('\\u0009');
  });

  it('says what the row of results without a call is, there and in the largest results', () => {
    const lines = render(HISTORY);
    expect(lines.some((line) => /^ {2}\(results with no call\) +0× +\d+/.test(line))).toBe(true);
    expect(
      lines.some((line) => /^ +\d+ {2}\(no call\) +toolu_gone {2}an orphan result with enough words$/.test(line)),
    ).toBe(true);
    expect(lines.join('\n')).not.toContain('(unmatched)');
  });

  it('still escapes every other control character of a preview', () => {
    const history: Message[] = [
      HISTORY[0]!,
      HISTORY[1]!,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'red \u001b[31m text' }] },
    ];
    expect(render(history).find((line) => line.includes('toolu_1 '))).toMatch(/red \\u001b\[31m text$/);
  });
});
