import { readdirSync, statSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteFailedError } from '../../../src/core/errors.js';
import { NodeFileWriter } from '../../../src/infrastructure/node-file-writer.js';

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
  it('creates missing parents with mode 0700 and accepts an existing directory', async () => {
    const directory = join(root, 'a', 'b', 'c');
    await writer.ensureDir(directory);
    await writer.ensureDir(directory);
    expect((await stat(directory)).isDirectory()).toBe(true);
    expect(await modeOf(directory)).toBe(0o700);
    expect(await modeOf(join(root, 'a'))).toBe(0o700);
  });

  it("marks the directory it creates as the package's, and only that one", async () => {
    const directory = join(root, 'a', 'b');
    await writer.ensureDir(directory);
    expect(await readdir(directory)).toEqual(['.agent-context-offload']);
    expect(await readdir(join(root, 'a'))).toEqual(['b']);
    expect(await readFile(join(directory, '.agent-context-offload'), 'utf8')).toContain(
      'agent-context-offload created this directory',
    );
  });

  it('leaves a directory that was there unmarked, and marks none inside a marked one', async () => {
    await writer.ensureDir(root);
    expect(await readdir(root)).toEqual([]);
    await writer.ensureDir(join(root, 'store'));
    await writer.ensureDir(join(root, 'store', 's1'));
    expect(await readdir(join(root, 'store', 's1'))).toEqual([]);
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
    const error: unknown = await writer
      .writeFile(join(root, 'missing', 'a.md'), 'x')
      .catch((caught: unknown) => caught);
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
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) => writer.createExclusive(path, `writer ${index}`)),
    );
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

describe('NodeFileWriter.createExclusiveFromParts', () => {
  const PART_BATCH_BYTES = 64 * 1024;
  // ~600 KB of UTF-8 over 2,000 parts: CJK (3 bytes), emoji (4 bytes), ASCII; several write batches.
  const parts = Array.from({ length: 2000 }, (_, index) => `${index}: 上下文压缩 😀 ${'x'.repeat(index % 300)}\n`);
  const content = parts.join('');

  it("streams the parts to a new file with mode 0600: 'created', the parts joined, no temp file left", async () => {
    const path = join(root, 'archive.json');
    expect(await writer.createExclusiveFromParts(path, parts)).toBe('created');
    expect(await readFile(path, 'utf8')).toBe(content);
    expect(await modeOf(path)).toBe(0o600);
    expect(await readdir(root)).toEqual(['archive.json']);
  });

  it('writes while it iterates: earlier batches are on disk before the parts run out', async () => {
    let writtenBeforeEnd = -1;
    function* produce(): Generator<string, void, undefined> {
      yield* parts;
      // Asked for more after the last part: the batches before it must already be in the temp file.
      const temp = readdirSync(root).find((name) => name.endsWith('.tmp'));
      writtenBeforeEnd = temp === undefined ? -1 : statSync(join(root, temp)).size;
    }
    const path = join(root, 'archive.json');
    expect(await writer.createExclusiveFromParts(path, produce())).toBe('created');
    expect(writtenBeforeEnd).toBeGreaterThan(Buffer.byteLength(content) / 2);
    expect(await readFile(path, 'utf8')).toBe(content);
  });

  it("reports 'identical' for a file with exactly this content (compared chunk by chunk), writing nothing", async () => {
    const path = join(root, 'archive.json');
    await writeFile(path, content);
    const before = await stat(path);
    expect(before.size).toBeGreaterThan(3 * 64 * 1024);
    expect(await writer.createExclusiveFromParts(path, parts)).toBe('identical');
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
    expect(await readdir(root)).toEqual(['archive.json']);
  });

  it('writes the bytes of the parts joined: a surrogate pair split between parts stays one character', async () => {
    const cases = [
      ['a\uD83D', '\uDE00b', '', '\uD83D', '', '\uDE00'],
      ['lone high at the end \uD83D'],
      ['lone low \uDE00 and high \uD83D', 'x'],
      ['x'.repeat(PART_BATCH_BYTES - 1), '\uD83D', '\uDE00', '中'.repeat(PART_BATCH_BYTES)],
    ];
    for (const [index, caseParts] of cases.entries()) {
      const path = join(root, `case-${index}.txt`);
      expect(await writer.createExclusiveFromParts(path, caseParts)).toBe('created');
      expect((await readFile(path)).equals(Buffer.from(caseParts.join(''), 'utf8'))).toBe(true);
    }
    expect(await readFile(join(root, 'case-0.txt'), 'utf8')).toBe('a😀b😀');
  });

  it("reports 'identical' for an empty content over an empty file", async () => {
    const path = join(root, 'empty.json');
    await writeFile(path, '');
    expect(await writer.createExclusiveFromParts(path, [])).toBe('identical');
    expect(await writer.createExclusiveFromParts(join(root, 'new.json'), [])).toBe('created');
    expect(await readFile(join(root, 'new.json'), 'utf8')).toBe('');
  });

  it.each([
    ['the same size, one byte differing after the first chunks', `${content.slice(0, -2)}y\n`],
    ['the same size, differing in the first byte', `#${content.slice(1)}`],
    ['a longer content', `${content}more`],
    ['a shorter content', content.slice(0, 100)],
  ])("reports 'exists' and never overwrites a file with %s", async (_label, existing) => {
    const path = join(root, 'archive.json');
    await writeFile(path, existing);
    expect(await writer.createExclusiveFromParts(path, parts)).toBe('exists');
    expect(await readFile(path, 'utf8')).toBe(existing);
    expect(await readdir(root)).toEqual(['archive.json']);
  });

  it("reports 'exists' for a directory in the way", async () => {
    await writer.ensureDir(join(root, 'archive.json'));
    expect(await writer.createExclusiveFromParts(join(root, 'archive.json'), parts)).toBe('exists');
  });

  it('lets exactly one of 10 concurrent creators with different content win', async () => {
    const path = join(root, 'race.json');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) => writer.createExclusiveFromParts(path, [`writer ${index}\n`, ...parts])),
    );
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'exists')).toHaveLength(9);
    expect(await readFile(path, 'utf8')).toBe(`writer ${outcomes.indexOf('created')}\n${content}`);
    expect(await readdir(root)).toEqual(['race.json']);
  });

  it('rejects with WRITE_FAILED, the error as cause, when the parts throw, leaving nothing behind', async () => {
    const failure = new TypeError('Converting circular structure to JSON');
    function* failing(): Generator<string, void, undefined> {
      yield* parts;
      throw failure;
    }
    const error: unknown = await writer
      .createExclusiveFromParts(join(root, 'archive.json'), failing())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WriteFailedError);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause: failure });
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects with WRITE_FAILED, cause ENOENT, when the directory is missing', async () => {
    await expect(writer.createExclusiveFromParts(join(root, 'missing', 'archive.json'), parts)).rejects.toMatchObject({
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

  it('works with its methods taken off the object', async () => {
    const { writeFile: write, ensureDir } = new NodeFileWriter();
    await ensureDir(join(root, 'd'));
    await write(join(root, 'd', 'x.md'), 'ok');
    expect(await readFile(join(root, 'd', 'x.md'), 'utf8')).toBe('ok');
  });
});

describe('NodeFileWriter and symlinks at a target name', () => {
  it('does not follow a symlink at the target name, even to a file holding the same content', async () => {
    const target = join(root, 'elsewhere.md');
    await writeFile(target, 'same text');
    const planted = join(root, 'tool-result-a.md');
    await symlink(target, planted);
    expect(await writer.createExclusive(planted, 'same text')).toBe('exists');
    expect(await writer.holdsContent(planted, 'same text')).toBe(false);
    expect(await writer.createExclusiveFromParts(planted, ['same ', 'text'])).toBe('exists');
    expect((await lstat(planted)).isSymbolicLink()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('same text');
  });

  it('says a regular file holds content only when every byte matches', async () => {
    const path = join(root, 'a.md');
    await writeFile(path, 'héllo');
    expect(await writer.holdsContent(path, 'héllo')).toBe(true);
    expect(await writer.holdsContent(path, 'hello')).toBe(false);
    expect(await writer.holdsContent(join(root, 'missing.md'), '')).toBe(false);
    expect(await writer.holdsContent(root, '')).toBe(false);
  });
});
