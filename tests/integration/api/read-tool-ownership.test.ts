import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadToolResult } from '../../../src/api/direct-offload.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import type { Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';

let shared: string;

beforeEach(async () => {
  // a folder the package did not create, holding a user's own files
  shared = await mkdtemp(join(tmpdir(), 'aco-shared-'));
  await mkdir(join(shared, 'notes'));
  await writeFile(join(shared, 'notes', 'passwords.md'), 'root: hunter2\n');
});
afterEach(async () => {
  await rm(shared, { recursive: true, force: true });
});

const resultMessage = (id: string, text: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: text }],
});

describe('the read tool over a directory it did not create', () => {
  it('refuses a user file that has the shape of a direct offload', async () => {
    const tool = createReadOffloadedTool({ outputDir: shared });
    for (const ref of ['./notes/passwords.md', join(shared, 'notes', 'passwords.md')]) {
      const answer = await tool.execute({ ref });
      expect(answer).toMatch(
        /^Refused: .* is in a directory agent-context-offload did not create \(it holds no \.agent-context-offload file\)/,
      );
      expect(answer).not.toContain('hunter2');
    }
    expect(
      await createReadOffloadedTool({ outputDir: shared, sessionId: 'notes' }).execute({ ref: './notes/passwords.md' }),
    ).not.toContain('hunter2');
  });

  it('reads a direct offload from the session folder the package created there', async () => {
    const { file } = await offloadToolResult(resultMessage('toolu_1', 'the result\n'), {
      sessionId: 's1',
      outputDir: shared,
    });
    const tool = createReadOffloadedTool({ outputDir: shared, sessionId: 's1' });
    expect(await tool.execute({ ref: file! })).toMatch(/^ {5}1\tthe result\n\[/);
  });

  it('reads a batch offload, whose name no user file has', async () => {
    const messages: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
      resultMessage('toolu_1', 'x'.repeat(5000)),
    ];
    await offloadToolResults(messages, { outputDir: shared, charThreshold: 100 });
    const tool = createReadOffloadedTool({ outputDir: shared });
    expect(await tool.execute({ ref: './tool-result-toolu_1.md', limit: 1 })).toMatch(/^ {5}1\tx{5000}\n/);
  });

  it("reads the context manager's names and an offload index, which carry a hash no user file has", async () => {
    const store = createFileStore({ dir: shared });
    for (const key of [
      'notes/toolu_1-0123456789abcdef.md',
      'notes/tool-result-toolu_2-0123456789abcdef.md',
      'notes/offload-index-0abc123def4.md',
    ]) {
      await writeFile(join(shared, ...key.split('/')), `content of ${key}\n`);
      expect(await createReadOffloadedTool({ store }).execute({ ref: `./${key}` })).toMatch(/^ {5}1\tcontent of /);
    }
  });
});

describe('the read tool over a directory the package created', () => {
  it('reads a direct offload from any session folder in it', async () => {
    const outputDir = join(shared, 'offload');
    const { file } = await offloadToolResult(resultMessage('toolu_1', 'the result\n'), { sessionId: 's1', outputDir });
    expect(await createReadOffloadedTool({ outputDir }).execute({ ref: file! })).toMatch(/^ {5}1\tthe result\n\[/);
  });
});
