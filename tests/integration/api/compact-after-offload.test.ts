/**
 * The building blocks one after the other, as the README shows them: `offloadToolResults` writes
 * large results to a folder of its own, then `compactMessages` summarizes the history. Real temp
 * directories and real files; the summarizer is the offline extractive one.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import type { Message } from '../../../src/core/types.js';
import { createRecordingLogger } from '../../fixtures/compact-fixtures.js';

let workDir: string;

beforeEach(async () => {
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'aco-seeds-')));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const ERROR_LINE = 'AssertionError: expected importer to skip 3 blank lines, got 0';
/**
 * A failing test run as a runner prints it: 30 KB of passing tests, the failure, then 10 KB of
 * stack and timing lines, so the error line is neither in the first nor in the last 4 KB.
 */
const failingLog = [
  ...Array.from({ length: 600 }, (_, index) => `  ✓ importer reads row ${index} of the fixture (3 ms)`),
  ` FAIL  tests/importer.test.ts > skips blank lines`,
  ERROR_LINE,
  ...Array.from({ length: 200 }, (_, index) => `    at frame${index} (node_modules/vitest/dist/runner.js:${index}:7)`),
].join('\n');

function call(id: string, command: string): Message {
  return { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] };
}
function output(id: string, content: string): Message {
  return { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] };
}

const history = (): Message[] => [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Make the importer skip blank lines.' },
  call('t1', 'npx vitest run tests/importer.test.ts'),
  output('t1', failingLog),
  call('t2', 'git diff --stat'),
  output('t2', ' src/importer.ts | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)'),
  { role: 'assistant', content: 'The test fails on blank lines; fixing the loop next.' },
];

describe('offloadToolResults then compactMessages: the last error a tool printed survives', () => {
  it('reads it back from the folder named by offloadDir (the references are relative to it)', async () => {
    const outputDir = join(workDir, 'offload');
    const offloaded = await offloadToolResults(history(), { outputDir });
    expect(offloaded.offloadedCount).toBe(1);
    const result = await compactMessages(offloaded.messages, {
      workDir,
      offloadDir: 'offload',
      force: true,
      logger: createRecordingLogger(),
    });
    expect(result.compacted).toBe(true);
    expect(result.ledger?.lastError).toMatchObject({ message: ERROR_LINE, reference: './tool-result-t1.md' });
    expect(result.summary).toContain(`"error":"${ERROR_LINE}"`);
  });

  it('reads it back from a folder inside workDir that an absolute reference names, with no option', async () => {
    const offloaded = await offloadToolResults(history(), {
      outputDir: join(workDir, 'offload'),
      reference: 'absolute',
    });
    const result = await compactMessages(offloaded.messages, { workDir, force: true, logger: createRecordingLogger() });
    expect(result.ledger?.lastError?.message).toBe(ERROR_LINE);
    expect(result.summary).toContain(ERROR_LINE);
  });

  it('does not read a folder outside workDir that offloadDir does not name', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'aco-seeds-outside-')));
    try {
      const offloaded = await offloadToolResults(history(), { outputDir: outside, reference: 'absolute' });
      const result = await compactMessages(offloaded.messages, {
        workDir,
        force: true,
        logger: createRecordingLogger(),
      });
      expect(result.summary).not.toContain(ERROR_LINE);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
