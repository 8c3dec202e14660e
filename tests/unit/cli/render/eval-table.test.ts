import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { renderEvalTable } from '../../../../src/cli/render/eval-table.js';
import { scoreCompactedContext } from '../../../../src/cli/replay/eval-score.js';

const plain = picocolors.createColors(false);

describe('eval table in the terminal', () => {
  const score = scoreCompactedContext(
    {
      task: 'Fix it.',
      latestRequest: 'Fix it.',
      editedFiles: ['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e\u001b[31m.ts'],
      lastReadFile: undefined,
      lastCommand: 'npm test',
      lastError: undefined,
      offloadedResults: [],
    },
    [{ role: 'user', content: 'Fix it. npm test a.ts /s/compact-1.json' }],
    { archiveReference: '/s/compact-1.json' },
  );
  const lines = renderEvalTable(score, { style: plain, width: 100 });

  it('has a row per kind of probe and the score', () => {
    expect(lines).toHaveLength(1 + 8 + 1);
    expect(lines[1]).toMatch(/^ {2}the task +1\/1 {2}✓$/);
    expect(lines.at(-1)).toMatch(/^ {2}score +5\/9 {2}55\.6%$/);
  });

  it('says when the transcript has nothing of a kind', () => {
    expect(lines.find((line) => line.includes('the last error'))).toMatch(/ - {2}none in the transcript$/);
  });

  it('names the first subjects missing, counts the others, escaped for the terminal', () => {
    const row = lines.find((line) => line.includes('every edited file'))!;
    expect(row).toContain('1/5  ✗ missing: b.ts, c.ts, d.ts (+1 more)');
    expect(
      renderEvalTable(
        { ...score, kinds: score.kinds.map((kind) => ({ ...kind, missing: ['e\u001b[31m.ts'] })) },
        { style: plain, width: 100 },
      ).join('\n'),
    ).not.toContain('\u001b');
  });
});
