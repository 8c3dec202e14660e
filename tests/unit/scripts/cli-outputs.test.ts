import { describe, expect, it } from 'vitest';
import {
  findStaleCliOutputs,
  normalizeOutput,
  readCliOutputBlocks,
  renderCliOutputBlock,
  updateCliOutputs,
} from '../../../scripts/cli-outputs.js';

const PAGE = ['# Page', '', 'A report:', '', renderCliOutputBlock('count-sample', 'old output'), '', 'The end.'].join(
  '\n',
);

describe('the quoted command outputs of a page', () => {
  it('replaces the block between the markers and nothing else', () => {
    const updated = updateCliOutputs(PAGE, new Map([['count-sample', 'new output']]));
    expect(updated).toBe(PAGE.replace('old output', 'new output'));
    expect(readCliOutputBlocks(updated).get('count-sample')).toContain('```text\nnew output\n```');
  });

  it('finds a block that differs from the output, naming the command and what to run', () => {
    expect(
      findStaleCliOutputs(
        'docs/cli.md',
        PAGE,
        new Map([
          ['count-sample', 'new output'],
          ['demo-steps', 'x'],
        ]),
      ),
    ).toEqual([
      'docs/cli.md: no <!-- cli-output:demo-steps --> block; add the markers, then run npm run docs:outputs',
      'docs/cli.md: the output of agent-context count sample-session.json is out of date: run npm run build && npm run docs:outputs',
    ]);
  });

  it('refuses a marker left open or closing nothing', () => {
    expect(() => readCliOutputBlocks('<!-- cli-output:a -->\ntext')).toThrow(
      'cli output "a" has no closing <!-- /cli-output:a -->',
    );
    expect(() => readCliOutputBlocks('<!-- /cli-output:a -->')).toThrow(
      '<!-- /cli-output:a --> closes no open cli output',
    );
  });

  it("writes an archive's time one fixed way", () => {
    expect(normalizeOutput('archive: /tmp/x/compact-2031-01-02T03-04-05Z-2.json')).toBe(
      'archive: /tmp/x/compact-2026-11-22T00-57-30Z-2.json',
    );
  });
});
