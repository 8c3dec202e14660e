import { access, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { offloadToolResults, offloadToolResultsWithWriter } from '../../../src/api/offload.js';
import type { Message } from '../../../src/core/types.js';
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
  root = await mkdtemp(join(tmpdir(), 'aco-offload-'));
  vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', undefined);
  vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(root, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The file a relative batch reference points to, read back. */
async function readReference(outputDir: string, reference: string): Promise<string> {
  const match = /^\[Content offloaded to: \.\/(tool-result-[^\]]+\.md)\]$/.exec(reference);
  if (match === null) throw new Error(`not a relative reference: ${reference}`);
  return readFile(join(outputDir, match[1]!), 'utf8');
}

function sampleHistory(): Message[] {
  return [
    { role: 'user', content: 'Read the config file' },
    assistantMessage(toolUse('toolu_01abc', 'read_file', { path: 'config.json' })),
    userMessage(toolResult('toolu_01abc', `{"name": "demo", "data": "${text(400)}"}`)),
    assistantMessage(toolUse('toolu_02def', 'list')),
    userMessage(toolResult('toolu_02def', [{ type: 'text', text: `中文 😀 ${text(300)}` }])),
  ];
}

describe('offloadToolResults on the real file system', () => {
  it('writes each large result to outputDir (created recursively, 0700) as a 0600 file with absolute paths in files', async () => {
    const outputDir = join(root, 'nested', 'offload');
    const messages = sampleHistory();
    const result = await offloadToolResults(messages, { outputDir });

    expect(result.files).toEqual([
      join(outputDir, 'tool-result-toolu_01abc.md'),
      join(outputDir, 'tool-result-toolu_02def.md'),
    ]);
    expect(await readFile(result.files[0]!, 'utf8')).toBe(blocksOf(messages[2]!)[0]!.content);
    expect(await readFile(result.files[1]!, 'utf8')).toBe(JSON.stringify(blocksOf(messages[4]!)[0]!.content));
    expect((await stat(outputDir)).mode & 0o777).toBe(0o700);
    for (const file of result.files) expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(outputDir)).sort()).toEqual([
      '.agent-context-offload',
      'tool-result-toolu_01abc.md',
      'tool-result-toolu_02def.md',
    ]);
  });

  it('resolves a relative outputDir against the current directory', async () => {
    const outputDir = relative(process.cwd(), join(root, 'rel'));
    const result = await offloadToolResults(sampleHistory(), { outputDir });
    expect(result.files[0]).toBe(join(root, 'rel', 'tool-result-toolu_01abc.md'));
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-toolu_01abc.md]');
  });

  it("writes the absolute path into the reference with reference: 'absolute'", async () => {
    const outputDir = join(root, 'abs');
    const result = await offloadToolResults(sampleHistory(), { outputDir, reference: 'absolute' });
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe(`[Content offloaded to: ${result.files[0]}]`);
  });

  it('creates no directory and writes nothing when the gate skips', async () => {
    const outputDir = join(root, 'never');
    const messages = [{ role: 'user' as const, content: text(10_000) }, ...sampleHistory()];
    const result = await offloadToolResults(messages, { outputDir });
    expect(result.messages).toBe(messages);
    expect(await exists(outputDir)).toBe(false);
  });

  it('writes nothing new when the same offload runs twice', async () => {
    const outputDir = join(root, 'twice');
    const messages = [...sampleHistory(), userMessage(toolResult('toolu_01abc', text(500, 'z')))];
    const first = await offloadToolResults(messages, { outputDir });
    const times = await Promise.all(first.files.map(async (file) => (await stat(file)).mtimeMs));
    const second = await offloadToolResults(messages, { outputDir });

    expect(second).toEqual(first);
    expect(await Promise.all(second.files.map(async (file) => (await stat(file)).mtimeMs))).toEqual(times);
    expect((await readdir(outputDir)).sort()).toEqual([
      '.agent-context-offload',
      'tool-result-toolu_01abc-1.md',
      'tool-result-toolu_01abc.md',
      'tool-result-toolu_02def.md',
    ]);
  });

  it('never overwrites a file holding other content (another conversation): it takes the next free suffix', async () => {
    const outputDir = join(root, 'shared');
    const other = [userMessage(toolResult('toolu_01abc', text(500, 'o')))];
    const mine = sampleHistory();
    const first = await offloadToolResults(other, { outputDir });
    const second = await offloadToolResults(mine, { outputDir });

    expect(await readFile(first.files[0]!, 'utf8')).toBe(text(500, 'o'));
    expect(second.files[0]).toBe(join(outputDir, 'tool-result-toolu_01abc-1.md'));
    expect(await readReference(outputDir, blocksOf(second.messages[2]!)[0]!.content as string)).toBe(
      blocksOf(mine[2]!)[0]!.content,
    );
  });

  it('works on deep-frozen input and leaves it unchanged', async () => {
    const messages = deepFreeze(sampleHistory());
    const snapshot = structuredClone(messages);
    const result = await offloadToolResults(messages, { outputDir: join(root, 'frozen') });
    expect(result.offloadedCount).toBe(2);
    expect(messages).toEqual(snapshot);
  });

  it('rejects with WRITE_FAILED, the OS error as cause, and the input unchanged when outputDir is a file', async () => {
    const outputDir = join(root, 'a-file');
    await writeFile(outputDir, 'not a directory');
    const messages = deepFreeze(sampleHistory());
    const snapshot = structuredClone(messages);
    const error: unknown = await offloadToolResults(messages, { outputDir }).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ code: 'WRITE_FAILED', name: 'WriteFailedError' });
    expect((error as Error).cause).toMatchObject({ code: expect.any(String) });
    expect(messages).toEqual(snapshot);
    expect(await readFile(outputDir, 'utf8')).toBe('not a directory');
  });

  it('writes nothing outside outputDir for an unsafe tool_use_id: it maps to a name inside', async () => {
    const outputDir = join(root, 'unsafe');
    const messages = [userMessage(toolResult('ok', text(300)), toolResult('../../escape', text(300)))];
    const result = await offloadToolResults(messages, { outputDir });
    expect(result.offloadedCount).toBe(2);
    expect(await readdir(root)).toEqual(['unsafe']);
    expect((await readdir(outputDir)).sort()).toEqual(
      ['.agent-context-offload', 'tool-result-ok.md', relative(outputDir, result.files[1]!)].sort(),
    );
  });

  it('reads the environment at call time, and rejects an invalid value naming it before creating anything', async () => {
    const outputDir = join(root, 'env');
    const messages = sampleHistory();
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '1000');
    expect((await offloadToolResults(messages, { outputDir })).offloadedCount).toBe(0);
    expect(await exists(outputDir)).toBe(false);

    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '300');
    expect((await offloadToolResults(messages, { outputDir })).offloadedCount).toBe(2);

    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', 'lots');
    const other = join(root, 'env-invalid');
    await expect(offloadToolResults(messages, { outputDir: other })).rejects.toThrow(
      /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "lots"/,
    );
    expect(await exists(other)).toBe(false);
  });

  it('rejects without options or outputDir with INVALID_OPTION', async () => {
    await expect(offloadToolResults(sampleHistory(), undefined as never)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(offloadToolResults(sampleHistory(), {} as never)).rejects.toThrow(
      /outputDir must be a non-blank string, got undefined/,
    );
  });

  it('offloadToolResultsWithWriter with a NodeFileWriter behaves the same', async () => {
    const outputDir = join(root, 'with-writer');
    const result = await offloadToolResultsWithWriter(sampleHistory(), outputDir, new NodeFileWriter());
    expect(result.files).toEqual([
      join(outputDir, 'tool-result-toolu_01abc.md'),
      join(outputDir, 'tool-result-toolu_02def.md'),
    ]);
  });
});

describe('offloadToolResults under concurrency', () => {
  it('loses nothing when 20 batch offloads with overlapping ids write into one directory at once', async () => {
    const outputDir = join(root, 'concurrent');
    const histories = Array.from({ length: 20 }, (_, call) =>
      Array.from({ length: 12 }, (__, index) => {
        // Ids overlap across calls (shared-0..4) and repeat within a call; calls 0 and 10, 1 and
        // 11, ... send identical content for shared-0, which may share one file.
        const id = index < 8 ? `shared-${index % 5}` : `call${call}-${index}`;
        const content =
          index === 0
            ? `same for ${call % 10}: ${text(200)}`
            : `call ${call} block ${index} 😀中文 ${text(150 + index)}`;
        return userMessage(toolResult(id, content));
      }),
    );
    const results = await Promise.all(
      histories.map((messages) => offloadToolResults(messages, { outputDir, ratioThreshold: 0 })),
    );

    for (const [call, result] of results.entries()) {
      expect(result.offloadedCount).toBe(12);
      for (const [index, message] of result.messages.entries()) {
        const reference = blocksOf(message)[0]!.content as string;
        const original = blocksOf(histories[call]![index]!)[0]!.content;
        expect(await readReference(outputDir, reference)).toBe(original);
      }
    }
    // the package's marker, and no temp file left behind
    const names = (await readdir(outputDir)).filter((name) => name !== '.agent-context-offload');
    expect(names.filter((name) => name.startsWith('.'))).toEqual([]);
    const referenced = new Set(results.flatMap((result) => result.files));
    expect(names.length).toBe(referenced.size);
    // 20 calls x 12 blocks, minus the 10 shared-0 contents that two calls each send.
    expect(referenced.size).toBe(230);
  });
});

describe('offloadToolResults — hostile and unlucky input, on real files', () => {
  it('moves past a symlink planted at a target name and leaves its target untouched', async () => {
    const outside = join(root, 'outside.md');
    await writeFile(outside, 'secret');
    const outputDir = join(root, 'out');
    await offloadToolResults([userMessage(toolResult('first', text(200)))], { outputDir });
    await symlink(outside, join(outputDir, 'tool-result-a.md'));
    const result = await offloadToolResults([userMessage(toolResult('a', text(300)))], { outputDir });
    expect(result.files).toEqual([join(outputDir, 'tool-result-a-1.md')]);
    expect(await readFile(outside, 'utf8')).toBe('secret');
  });

  it('reuses its file on a rerun when the content holds a lone surrogate (written as U+FFFD)', async () => {
    const outputDir = join(root, 'out');
    const messages = [userMessage(toolResult('s', `half a pair: \uD83D ${text(300)}`))];
    const first = await offloadToolResults(messages, { outputDir });
    const second = await offloadToolResults(messages, { outputDir });
    expect(second.files).toEqual(first.files);
    expect((await readdir(outputDir)).sort()).toEqual(['.agent-context-offload', 'tool-result-s.md']);
    expect(await readFile(first.files[0]!, 'utf8')).toBe(`half a pair: \uFFFD ${text(300)}`);
    expect(first.repairedCount).toBe(1);
  });

  it('writes an unsafe tool_use_id inside outputDir under a mapped name', async () => {
    const outputDir = join(root, 'out');
    const result = await offloadToolResults([userMessage(toolResult('../../escape', text(300)))], { outputDir });
    expect(relative(outputDir, result.files[0]!)).toMatch(/^tool-result-escape~[0-9a-z]{11}\.md$/);
    expect(await readdir(root)).toEqual(['out']);
  });
});
