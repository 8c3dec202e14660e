import { access, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createToolResultOffloader,
  offloadToolResult,
  offloadToolResultWithWriter,
} from '../../../src/api/direct-offload.js';
import type { ContentBlock } from '../../../src/core/types.js';
import { NodeFileWriter } from '../../../src/infrastructure/node-file-writer.js';
import {
  assistantMessage,
  blocksOf,
  deepFreeze,
  text,
  toolResult,
  toolUse,
  userMessage,
} from '../../fixtures/offload-fixtures.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-direct-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('offloadToolResult on the real file system', () => {
  it('writes <outputDir>/<sessionId>/<tool_use_id>.md (0600, directories 0700) with an absolute reference', async () => {
    const outputDir = join(root, '.offload');
    const content = `${text(1200)} 中文 😀`;
    const message = deepFreeze(userMessage(toolResult('toolu_xyz', content)));
    const result = await offloadToolResult(message, { sessionId: 'session-abc123', outputDir });

    const file = join(outputDir, 'session-abc123', 'toolu_xyz.md');
    expect(result.file).toBe(file);
    expect(result.files).toEqual([file]);
    expect(await readFile(file, 'utf8')).toBe(content);
    expect(blocksOf(result.message)[0]!.content).toBe(`[Tool result offloaded to file: ${file}]`);
    expect(result.freedChars).toBe(content.length - `[Tool result offloaded to file: ${file}]`.length);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(outputDir, 'session-abc123'))).mode & 0o777).toBe(0o700);
    expect((await stat(outputDir)).mode & 0o777).toBe(0o700);
  });

  it('writes an array content as JSON', async () => {
    const content: ContentBlock[] = [{ type: 'text', text: text(1500) }];
    const result = await offloadToolResult(userMessage(toolResult('arr', content)), {
      sessionId: 's',
      outputDir: root,
    });
    expect(await readFile(result.file!, 'utf8')).toBe(JSON.stringify(content));
  });

  it('gives an absolute path in the reference for a relative outputDir', async () => {
    const outputDir = relative(process.cwd(), join(root, 'rel'));
    const result = await offloadToolResult(userMessage(toolResult('t', text(1000))), { sessionId: 's', outputDir });
    expect(isAbsolute(result.file!)).toBe(true);
    expect(result.file).toBe(join(root, 'rel', 's', 't.md'));
  });

  it('overwrites the file of an id seen before in the same session, leaving no temp file', async () => {
    const options = { sessionId: 's', outputDir: root };
    const first = await offloadToolResult(userMessage(toolResult('same', 'first version')), options);
    const second = await offloadToolResult(userMessage(toolResult('same', 'second version')), options);
    expect(second.file).toBe(first.file);
    expect(await readFile(second.file!, 'utf8')).toBe('second version');
    // the session folder is the package's (root was not made by it): marked, and no temp file
    expect((await readdir(join(root, 's'))).sort()).toEqual(['.agent-context-offload', 'same.md']);
  });

  it('keeps sessions apart', async () => {
    const a = await offloadToolResult(userMessage(toolResult('t', 'from a')), { sessionId: 'a', outputDir: root });
    const b = await offloadToolResult(userMessage(toolResult('t', 'from b')), { sessionId: 'b', outputDir: root });
    expect(await readFile(a.file!, 'utf8')).toBe('from a');
    expect(await readFile(b.file!, 'utf8')).toBe('from b');
  });

  it('rejects with WRITE_FAILED and the OS error as cause when outputDir is a file, message unchanged', async () => {
    const outputDir = join(root, 'a-file');
    await writeFile(outputDir, 'x');
    const message = deepFreeze(userMessage(toolResult('t', text(2000))));
    const snapshot = structuredClone(message);
    const error: unknown = await offloadToolResult(message, { sessionId: 's', outputDir }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause: expect.objectContaining({ code: expect.any(String) }) });
    expect(message).toEqual(snapshot);
  });

  it.each([['../escape'], [''], ['   '], ['s\u001b]0;title\u0007'], ['tab\tsession']])(
    'rejects the sessionId %j with UNSAFE_PATH and creates nothing',
    async (sessionId) => {
      const outputDir = join(root, 'out');
      await expect(
        offloadToolResult(userMessage(toolResult('t', text(1000))), { sessionId, outputDir }),
      ).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
      expect(await readdir(root)).toEqual([]);
    },
  );

  it('writes an unsafe id inside the session folder under a mapped name', async () => {
    const outputDir = join(root, 'out');
    const result = await offloadToolResult(userMessage(toolResult('../../x', text(1000))), {
      sessionId: 's',
      outputDir,
    });
    expect(result.file).toMatch(new RegExp(`^${outputDir}/s/x~[0-9a-z]{11}\\.md$`));
    expect(await readdir(root)).toEqual(['out']);
  });

  it('rejects without options with INVALID_OPTION or UNSAFE_PATH, writing nothing', async () => {
    await expect(offloadToolResult(userMessage(toolResult('t', 'x')), undefined as never)).rejects.toMatchObject({
      code: 'UNSAFE_PATH',
    });
    await expect(
      offloadToolResult(userMessage(toolResult('t', 'x')), { sessionId: 's' } as never),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
  });

  it('offloadToolResultWithWriter with a NodeFileWriter writes the same files', async () => {
    const result = await offloadToolResultWithWriter(
      userMessage(toolResult('t', 'abc'), toolResult('u', 'def')),
      's',
      root,
      new NodeFileWriter(),
    );
    expect(result.files).toEqual([join(root, 's', 't.md'), join(root, 's', 'u.md')]);
  });
});

describe('createToolResultOffloader on the real file system', () => {
  it('offloads the large results of a parallel-call message with the default writer and keeps the small and excluded ones', async () => {
    const outputDir = join(root, 'loop');
    const offload = createToolResultOffloader({ sessionId: 'loop-1', outputDir, excludeTools: ['read_offloaded'] });
    const calls = assistantMessage(toolUse('c1', 'bash'), toolUse('c2', 'grep'), toolUse('c3', 'read_offloaded'));
    const message = userMessage(
      toolResult('c1', text(5000)),
      toolResult('c2', 'no matches'),
      toolResult('c3', text(5000)),
    );
    const result = await offload(message, calls);

    const blocks = blocksOf(result);
    expect(blocks[0]!.content).toBe(`[Tool result offloaded to file: ${join(outputDir, 'loop-1', 'c1.md')}]`);
    expect(blocks[1]!.content).toBe('no matches');
    expect(blocks[2]!.content).toBe(text(5000));
    expect(await readdir(join(outputDir, 'loop-1'))).toEqual(['c1.md']);
  });

  it('creates nothing when no block qualifies', async () => {
    const outputDir = join(root, 'idle');
    const offload = createToolResultOffloader({ sessionId: 's', outputDir });
    const message = userMessage(toolResult('t', text(999)));
    expect(await offload(message)).toBe(message);
    expect(await exists(outputDir)).toBe(false);
  });
});
