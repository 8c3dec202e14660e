import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteFailedError } from '../../src/core/errors.js';
import { createNodeFileWriter, NodeFileWriter } from '../../src/infrastructure/node-file-writer.js';

let root: string;
const writer = new NodeFileWriter();

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-writer-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('NodeFileWriter.ensureDir', () => {
  it('creates missing parents with mode 0700 and accepts an existing directory (spec 01 F-005)', async () => {
    const directory = join(root, 'a', 'b', 'c');
    await writer.ensureDir(directory);
    await writer.ensureDir(directory);
    expect((await stat(directory)).isDirectory()).toBe(true);
    expect(await modeOf(directory)).toBe(0o700);
    expect(await modeOf(join(root, 'a'))).toBe(0o700);
  });

  it('rejects with WRITE_FAILED and the OS error as cause when a file is in the way', async () => {
    const file = join(root, 'file');
    await writeFile(file, 'x');
    const error: unknown = await writer.ensureDir(join(file, 'sub')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WriteFailedError);
    expect((error as WriteFailedError).cause).toMatchObject({ code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) });
  });
});

describe('NodeFileWriter.writeFile', () => {
  it('writes UTF-8 content with mode 0600 and leaves no temp file', async () => {
    const path = join(root, 'a.md');
    await writer.writeFile(path, '中文 😀 text');
    expect(await readFile(path, 'utf8')).toBe('中文 😀 text');
    expect(await modeOf(path)).toBe(0o600);
    expect(await readdir(root)).toEqual(['a.md']);
  });

  it('replaces an existing file atomically', async () => {
    const path = join(root, 'a.md');
    await writer.writeFile(path, 'first');
    await writer.writeFile(path, 'second');
    expect(await readFile(path, 'utf8')).toBe('second');
    expect(await readdir(root)).toEqual(['a.md']);
  });

  it('rejects with WRITE_FAILED, cause ENOENT, when the directory is missing, leaving nothing behind', async () => {
    const error: unknown = await writer.writeFile(join(root, 'missing', 'a.md'), 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause: expect.objectContaining({ code: 'ENOENT' }) });
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects with WRITE_FAILED when the target is a directory, removing its temp file', async () => {
    await writer.ensureDir(join(root, 'taken.md'));
    await expect(writer.writeFile(join(root, 'taken.md'), 'x')).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await readdir(root)).toEqual(['taken.md']);
  });
});

describe('NodeFileWriter.createExclusive', () => {
  it("creates a missing file with mode 0600: 'created'", async () => {
    const path = join(root, 'a.md');
    expect(await writer.createExclusive(path, 'content')).toBe('created');
    expect(await readFile(path, 'utf8')).toBe('content');
    expect(await modeOf(path)).toBe(0o600);
    expect(await readdir(root)).toEqual(['a.md']);
  });

  it("reports 'identical' for a file with exactly this content, writing nothing", async () => {
    const path = join(root, 'a.md');
    await writer.createExclusive(path, 'same 😀');
    const before = await stat(path);
    expect(await writer.createExclusive(path, 'same 😀')).toBe('identical');
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
    expect(await readdir(root)).toEqual(['a.md']);
  });

  it.each([
    ['other content of the same size', 'other', 'OTHER'],
    ['longer content', 'other', 'other and more'],
  ])("reports 'exists' and never overwrites a file with %s", async (_label, existing, content) => {
    const path = join(root, 'a.md');
    await writeFile(path, existing);
    expect(await writer.createExclusive(path, content)).toBe('exists');
    expect(await readFile(path, 'utf8')).toBe(existing);
    expect(await readdir(root)).toEqual(['a.md']);
  });

  it("reports 'exists' for a directory in the way", async () => {
    await writer.ensureDir(join(root, 'a.md'));
    expect(await writer.createExclusive(join(root, 'a.md'), 'x')).toBe('exists');
  });

  it('lets exactly one of 20 concurrent creators with different content win', async () => {
    const path = join(root, 'race.md');
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => writer.createExclusive(path, `writer ${index}`)));
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'exists')).toHaveLength(19);
    const winner = outcomes.indexOf('created');
    expect(await readFile(path, 'utf8')).toBe(`writer ${winner}`);
    expect(await readdir(root)).toEqual(['race.md']);
  });

  it('rejects with WRITE_FAILED when the directory is missing', async () => {
    await expect(writer.createExclusive(join(root, 'missing', 'a.md'), 'x')).rejects.toMatchObject({
      code: 'WRITE_FAILED',
      cause: expect.objectContaining({ code: 'ENOENT' }),
    });
  });
});

describe('NodeFileWriter.listDir and resolvePath', () => {
  it('lists the names in a directory, [] when it does not exist', async () => {
    await writer.writeFile(join(root, 'b.md'), 'b');
    await writer.writeFile(join(root, 'a.md'), 'a');
    expect((await writer.listDir(root)).sort()).toEqual(['a.md', 'b.md']);
    expect(await writer.listDir(join(root, 'missing'))).toEqual([]);
  });

  it('resolves relative paths against the current directory', () => {
    expect(writer.resolvePath('out', 'x.md')).toBe(resolve(process.cwd(), 'out', 'x.md'));
    expect(writer.resolvePath('/a/b', '../c.md')).toBe(resolve('/a/c.md'));
  });

  it('works with its methods taken off the object, and from the factory', async () => {
    const { writeFile: write, ensureDir } = createNodeFileWriter();
    await ensureDir(join(root, 'd'));
    await write(join(root, 'd', 'x.md'), 'ok');
    expect(await readFile(join(root, 'd', 'x.md'), 'utf8')).toBe('ok');
  });
});
