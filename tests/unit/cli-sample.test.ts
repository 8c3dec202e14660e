import { describe, expect, it } from 'vitest';
import { assertMessages, countTokens, planOffload } from '../../src/index.js';
import type { ContentBlock, Message } from '../../src/index.js';
import { buildFixedSources, buildOriginalSources, SAMPLE_EDITS } from '../../src/cli/sample/project-sources.js';
import { createSampleSession } from '../../src/cli/sample/session.js';
import { countSampleTests, renderTestRun } from '../../src/cli/sample/test-runs.js';

function blocksOf(messages: readonly Message[]): ContentBlock[] {
  return messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
}

describe('the sample session shipped for the demo (issue 4)', () => {
  const session = createSampleSession();

  it('is a valid history that starts with a system prompt', () => {
    expect(() => assertMessages(session.messages)).not.toThrow();
    expect(session.messages[0]?.role).toBe('system');
    expect(session.messages.at(-1)?.role).toBe('assistant');
  });

  it('is large enough for offload and compaction to show (60K-150K tokens), mostly tool results', () => {
    const tokens = countTokens(session.messages);
    expect(tokens).toBeGreaterThan(60_000);
    expect(tokens).toBeLessThan(150_000);
    const plan = planOffload(session.messages);
    expect(plan.skippedReason).toBeNull();
    expect(plan.ratio).toBeGreaterThan(0.9);
  });

  it('is the same on every call', () => {
    expect(createSampleSession()).toEqual(session);
  });

  it('answers every tool call, in the next message', () => {
    session.messages.forEach((message, index) => {
      if (message.role !== 'assistant' || typeof message.content === 'string') return;
      const calls = message.content.filter((block) => block.type === 'tool_use').map((block) => (block as { id: string }).id);
      if (calls.length === 0) return;
      const next = session.messages[index + 1];
      const results = blocksOf(next === undefined ? [] : [next]).map((block) => (block as { tool_use_id?: string }).tool_use_id);
      expect(results).toEqual(calls);
    });
  });

  it('holds a failing run, a search, edits, parallel calls and a passing run', () => {
    const blocks = blocksOf(session.messages);
    const names = blocks.filter((block) => block.type === 'tool_use').map((block) => (block as { name: string }).name);
    expect(new Set(names)).toEqual(new Set(['run_command', 'list_files', 'read_file', 'search', 'edit_file']));
    expect(blocks.some((block) => block.type === 'tool_result' && (block as { is_error?: boolean }).is_error === true)).toBe(true);
    expect(session.messages.some((message) => typeof message.content !== 'string' && message.content.filter((block) => block.type === 'tool_use').length > 1)).toBe(true);
    expect(renderTestRun(0)).toMatch(new RegExp(`Tests  9 failed \\| ${countSampleTests() - 9} passed \\(${countSampleTests()}\\)`));
    expect(renderTestRun(1)).toMatch(/Tests {2}1 failed \|/);
    expect(renderTestRun(2)).toMatch(new RegExp(`Tests  ${countSampleTests()} passed`));
  });

  it('reads files that the project holds, and its edits apply to what was read', () => {
    const reads = blocksOf(session.messages)
      .filter((block) => block.type === 'tool_use' && (block as { name: string }).name === 'read_file')
      .map((block) => (block as unknown as { input: { path: string } }).input.path);
    for (const path of reads) expect(Object.keys(session.projectFiles)).toContain(path);
    const original = buildOriginalSources();
    const fixed = buildFixedSources();
    for (const edit of SAMPLE_EDITS) {
      expect(original[edit.path]).toContain(edit.oldString);
      expect(fixed[edit.path]).toContain(edit.newString);
    }
  });
});
