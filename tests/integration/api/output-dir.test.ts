/**
 * `outputDir` alone is the file store (`createFileStore`), whichever entry point gets it: its
 * guarantees hold, and compaction reads back from it what it wrote there.
 */
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { offloadToolResult } from '../../../src/api/direct-offload.js';
import { parseOffloadIndex } from '../../../src/core/compact/summary/offload-index.js';
import { buildBatchReference } from '../../../src/core/offload/offload-reference.js';
import type { Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import { text, toolResult, userMessage } from '../../fixtures/offload-fixtures.js';
import { charCounter, createRecordingLogger, createScriptedSummarizer } from '../../fixtures/compact-fixtures.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-output-dir-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('outputDir is the file store', () => {
  it('direct offload never writes through a session folder that is a symlink', async () => {
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(join(root, 'out'));
    await symlink(elsewhere, join(root, 'out', 's1'), 'dir');
    await expect(
      offloadToolResult(userMessage(toolResult('t', text(2000))), { sessionId: 's1', outputDir: join(root, 'out') }),
    ).rejects.toMatchObject({
      code: 'WRITE_FAILED',
    });
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('compaction carries an earlier offload index in outputDir over a later compaction', async () => {
    const offloads = createFileStore({ dir: join(root, '.offload') });
    const system: Message = { role: 'system', content: 'You are an agent.' };
    const padding: Message = { role: 'assistant', content: 'Working through it. '.repeat(600) };
    const offloadedTurns = async (first: number, count: number): Promise<Message[]> => {
      const messages: Message[] = [];
      for (let index = first; index < first + count; index += 1) {
        const key = `tool-result-c${index}.md`;
        await offloads.putIfAbsent(key, `output of step ${index}\n`);
        messages.push(
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: `c${index}`, name: 'Bash', input: { command: `./step.sh ${index}` } }],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: `c${index}`,
                content: buildBatchReference(offloads.referenceFor(key)),
              },
            ],
          },
        );
      }
      return messages;
    };
    const compact = (messages: Message[]) =>
      compactMessages(messages, {
        workDir: root,
        outputDir: '.compact',
        force: true,
        summarizer: createScriptedSummarizer(['## Goals & Decisions\nS.', '## Goals & Decisions\nS2.']),
        tokenCounter: charCounter,
        logger: createRecordingLogger(),
        maxRestoreFiles: 0,
      });

    const first = await compact([
      system,
      { role: 'user', content: 'Run the steps.' },
      ...(await offloadedTurns(0, 25)),
      padding,
    ]);
    const second = await compact([
      ...first.messages,
      { role: 'user', content: 'And the next ones.' },
      ...(await offloadedTurns(25, 5)),
      padding,
    ]);

    const index = second.ledger?.offloadIndex;
    expect(index?.count).toBe(30);
    const archives = createFileStore({ dir: join(root, '.compact') });
    const entries = parseOffloadIndex((await archives.get(archives.keyFor(index!.reference)!)) ?? '');
    expect(entries.map((entry) => entry.toolUseId)).toEqual(Array.from({ length: 30 }, (_, offset) => `c${offset}`));
  });
});
