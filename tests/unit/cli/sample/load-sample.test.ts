import { describe, expect, it } from 'vitest';
import { countTokens, planOffload } from '../../../../src/index.js';
import { assertMessages } from '../../../../src/messages.js';
import type { ContentBlock, Message } from '../../../../src/index.js';
import { loadSampleSession } from '../../../../src/cli/sample/load-sample.js';

function blocksOf(messages: readonly Message[]): ContentBlock[] {
  return messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
}

/** The session's tool calls, each with its input and the text of its result. */
function toolCallsOf(
  messages: readonly Message[],
): Array<{ name: string; input: Record<string, string>; result: string }> {
  const blocks = blocksOf(messages) as unknown as Array<{
    type: string;
    id?: string;
    name?: string;
    input?: Record<string, string>;
    tool_use_id?: string;
    content?: string;
  }>;
  const results = new Map(
    blocks.filter((block) => block.type === 'tool_result').map((block) => [block.tool_use_id, block.content ?? '']),
  );
  return blocks
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ name: block.name ?? '', input: block.input ?? {}, result: results.get(block.id) ?? '' }));
}

const sample = await loadSampleSession();
const calls = toolCallsOf(sample.messages);
/** The files as the agent read them, before its edits. */
const originalSources = Object.fromEntries(
  calls.filter((call) => call.name === 'read_file').map((call) => [call.input.path, call.result]),
);
const sampleEdits = calls
  .filter((call) => call.name === 'edit_file')
  .map((call) => ({
    path: call.input.path ?? '',
    oldString: call.input.old_string ?? '',
    newString: call.input.new_string ?? '',
  }));
/** The three runs of the whole suite: failing, one failure left, passing with coverage. */
const suiteRuns = calls
  .filter((call) => call.name === 'run_command' && call.input.command?.startsWith('npx vitest run --reporter=verbose'))
  .map((call) => call.result);
const finalMessage = sample.messages.at(-1)?.content;
/** The number of tests the final summary reports. */
const sampleTestCount = Number(/All (\d+) tests pass/.exec(typeof finalMessage === 'string' ? finalMessage : '')?.[1]);

describe('the sample session shipped for the demo', () => {
  const session = sample;

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

  it('is the same on every call', async () => {
    expect(await loadSampleSession()).toEqual(session);
  });

  it('answers every tool call, in the next message', () => {
    session.messages.forEach((message, index) => {
      if (message.role !== 'assistant' || typeof message.content === 'string') return;
      const calls = message.content
        .filter((block) => block.type === 'tool_use')
        .map((block) => (block as { id: string }).id);
      if (calls.length === 0) return;
      const next = session.messages[index + 1];
      const results = blocksOf(next === undefined ? [] : [next]).map(
        (block) => (block as { tool_use_id?: string }).tool_use_id,
      );
      expect(results).toEqual(calls);
    });
  });

  it('holds a failing run, a search, edits, parallel calls and a passing run', () => {
    const blocks = blocksOf(session.messages);
    const names = blocks.filter((block) => block.type === 'tool_use').map((block) => (block as { name: string }).name);
    expect(new Set(names)).toEqual(new Set(['run_command', 'list_files', 'read_file', 'search', 'edit_file']));
    expect(
      blocks.some((block) => block.type === 'tool_result' && (block as { is_error?: boolean }).is_error === true),
    ).toBe(true);
    expect(
      session.messages.some(
        (message) =>
          typeof message.content !== 'string' &&
          message.content.filter((block) => block.type === 'tool_use').length > 1,
      ),
    ).toBe(true);
    expect(suiteRuns).toHaveLength(3);
    expect(sampleTestCount).toBeGreaterThan(9);
    expect(suiteRuns[0]).toMatch(
      new RegExp(`Tests  9 failed \\| ${sampleTestCount - 9} passed \\(${sampleTestCount}\\)`),
    );
    expect(suiteRuns[1]).toMatch(/Tests {2}1 failed \|/);
    expect(suiteRuns[2]).toMatch(new RegExp(`Tests  ${sampleTestCount} passed`));
  });

  it('reads files that the project holds, and its edits apply to what was read', () => {
    const reads = blocksOf(session.messages)
      .filter((block) => block.type === 'tool_use' && (block as { name: string }).name === 'read_file')
      .map((block) => (block as unknown as { input: { path: string } }).input.path);
    for (const path of reads) expect(Object.keys(session.projectFiles)).toContain(path);
    const original = originalSources;
    const fixed = session.projectFiles;
    expect(sampleEdits).toHaveLength(4);
    for (const edit of sampleEdits) {
      expect(original[edit.path]).toContain(edit.oldString);
      expect(fixed[edit.path]).toContain(edit.newString);
    }
  });
});
