import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/core/errors.js';
import { collectKeys } from '../../../src/core/store/store-keys.js';
import type { ContentStore } from '../../../src/core/ports.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import { testStore } from '../../../src/testing/index.js';

const contractDirs: string[] = [];
afterAll(async () => {
  await Promise.all(contractDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

testStore(
  'file store',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aco-file-store-'));
    contractDirs.push(dir);
    return createFileStore({ dir: join(dir, 'store') });
  },
  {
    // a directory name longer than any file system takes: every call fails with ENAMETOOLONG
    createFailingStore: () => createFileStore({ dir: join(tmpdir(), 'x'.repeat(300)) }),
  },
);

describe('createFileStore', () => {
  let root: string;
  let dir: string;
  let store: ContentStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'aco-file-store-'));
    dir = join(root, 'store');
    store = createFileStore({ dir });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function modeOf(path: string): Promise<number> {
    return (await stat(path)).mode & 0o777;
  }

  it('refuses a blank dir or one with a control character', () => {
    for (const bad of ['', '  ', 'a\nb', 'a\u0000b'])
      expect(() => createFileStore({ dir: bad })).toThrow(InvalidOptionError);
  });

  it('writes files with mode 0600 and directories with mode 0700, leaving no temp file', async () => {
    await store.putIfAbsent('s1/deep/a.md', 'x');
    await store.putIfAbsent('s1/deep/b.md', ['y', 'z']);
    await store.put('s1/c.md', 'w');
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(dir, 's1'))).toBe(0o700);
    expect(await modeOf(join(dir, 's1', 'deep'))).toBe(0o700);
    for (const file of ['s1/deep/a.md', 's1/deep/b.md', 's1/c.md']) expect(await modeOf(join(dir, file))).toBe(0o600);
    expect((await readdir(join(dir, 's1', 'deep'))).sort()).toEqual(['a.md', 'b.md']);
    expect(await readFile(join(dir, 's1', 'deep', 'b.md'), 'utf8')).toBe('yz');
  });

  it('names a key by its absolute path and takes that path, or ./<key>, back', () => {
    const reference = store.referenceFor('s1/a.md');
    expect(reference).toBe(resolve(dir, 's1/a.md'));
    expect(store.keyFor(reference)).toBe('s1/a.md');
    expect(store.keyFor('./s1/a.md')).toBe('s1/a.md');
    expect(createFileStore({ dir: './relative-dir' }).referenceFor('a.md')).toBe(resolve('relative-dir', 'a.md'));
  });

  it('refuses to take back a path outside dir, a ".." path or a path to dir itself', () => {
    for (const reference of [
      join(root, 'other.md'),
      `${dir}-sibling/a.md`,
      join(dir, '..', 'a.md'),
      `${dir}/s1/../../a.md`,
      `${dir}/../store/a.md`,
      './../a.md',
      './s1/../a.md',
      dir,
      `${dir}/`,
      `${dir}//a.md`,
      'a.md',
      '.\\a.md',
    ]) {
      expect(store.keyFor(reference), reference).toBeUndefined();
    }
  });

  describe('a symlink at a key', () => {
    let target: string;

    beforeEach(async () => {
      target = join(root, 'secret.txt');
      await writeFile(target, 'secret');
      await mkdir(dir, { recursive: true });
      await symlink(target, join(dir, 'a.md'));
    });

    it('is not an entry: get, stat and holds see nothing, list leaves it out', async () => {
      expect(await store.get('a.md')).toBeUndefined();
      expect(await store.get('a.md', { offset: 1, length: 2 })).toBeUndefined();
      expect(await store.stat('a.md')).toBeUndefined();
      expect(await store.holds?.('a.md', 'secret')).toBe(false);
      expect(await collectKeys(store, '')).toEqual([]);
    });

    it("is never written through: putIfAbsent answers 'exists', even for the target's own text", async () => {
      expect(await store.putIfAbsent('a.md', 'secret')).toBe('exists');
      expect(await store.putIfAbsent('a.md', 'other')).toBe('exists');
      expect(await store.putIfAbsent('a.md', ['oth', 'er'])).toBe('exists');
      expect(await readFile(target, 'utf8')).toBe('secret');
      expect((await lstat(join(dir, 'a.md'))).isSymbolicLink()).toBe(true);
      expect(await readdir(dir)).toEqual(['a.md']);
    });

    it('is replaced, not written through, by put; delete removes the link, not its target', async () => {
      await store.put('a.md', 'mine');
      expect(await readFile(target, 'utf8')).toBe('secret');
      expect((await lstat(join(dir, 'a.md'))).isFile()).toBe(true);
      await symlink(target, join(dir, 'b.md'));
      await store.delete('b.md');
      expect(await readFile(target, 'utf8')).toBe('secret');
      expect(await readdir(dir)).toEqual(['a.md']);
    });
  });

  describe('a symlink in place of a directory under dir', () => {
    let outside: string;

    beforeEach(async () => {
      outside = join(root, 'outside');
      await mkdir(outside);
      await writeFile(join(outside, 'x.md'), 'outside');
      await mkdir(dir, { recursive: true });
      await symlink(outside, join(dir, 's1'));
    });

    it('is never written through', async () => {
      await expect(store.putIfAbsent('s1/new.md', 'x')).rejects.toMatchObject({ code: 'WRITE_FAILED' });
      await expect(store.put('s1/new.md', 'x')).rejects.toMatchObject({ code: 'WRITE_FAILED' });
      await store.delete('s1/x.md');
      expect(await readdir(outside)).toEqual(['x.md']);
    });

    it('is never read through', async () => {
      expect(await store.get('s1/x.md')).toBeUndefined();
      expect(await store.stat('s1/x.md')).toBeUndefined();
      expect(await store.holds?.('s1/x.md', 'outside')).toBe(false);
      expect(await collectKeys(store, '')).toEqual([]);
      expect(await collectKeys(store, 's1/')).toEqual([]);
    });
  });

  it('names the path and keeps the OS error as cause when a file is in the way', async () => {
    await store.putIfAbsent('s1', 'a file where a directory would go');
    const error: unknown = await store.putIfAbsent('s1/a.md', 'x').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'WRITE_FAILED' });
    expect((error as Error).message).toContain(join(dir, 's1'));
    expect((error as Error).cause).toBeDefined();
    expect(await store.get('s1/a.md')).toBeUndefined();
  });

  describe('its marker file', () => {
    it('marks dir when it creates it, and never lists the marker as a key', async () => {
      await store.putIfAbsent('s1/a.md', 'x');
      expect(await readFile(join(dir, '.agent-context-offload'), 'utf8')).toContain(
        'agent-context-offload created this directory',
      );
      expect(await modeOf(join(dir, '.agent-context-offload'))).toBe(0o600);
      expect((await readdir(join(dir, 's1'))).sort()).toEqual(['a.md']);
      expect(await collectKeys(store, '')).toEqual(['s1/a.md']);
    });

    it('marks a session folder it creates in a dir it did not create, and no folder deeper', async () => {
      await mkdir(dir);
      await store.putIfAbsent('s1/deep/a.md', 'x');
      await expect(lstat(join(dir, '.agent-context-offload'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await readdir(join(dir, 's1'))).sort()).toEqual(['.agent-context-offload', 'deep']);
      expect(await readdir(join(dir, 's1', 'deep'))).toEqual(['a.md']);
    });

    it('leaves a folder that was there unmarked', async () => {
      await mkdir(join(dir, 's1'), { recursive: true });
      await store.putIfAbsent('s1/a.md', 'x');
      expect(await readdir(join(dir, 's1'))).toEqual(['a.md']);
    });
  });

  it('lists the temp files a killed writer left as partial writes, never as entries', async () => {
    await store.putIfAbsent('s1/a.md', 'x');
    const left = `.b.md.${process.pid}.0123456789ab.tmp`;
    await writeFile(join(dir, 's1', left), 'half');
    await writeFile(join(dir, 's1', '.b.md.tmp'), 'a look-alike');
    // the look-alike is someone's ordinary file; the temp file is no entry
    expect((await collectKeys(store, '')).sort()).toEqual(['s1/.b.md.tmp', 's1/a.md']);
    const partial: string[] = [];
    for await (const key of store.listPartialWrites!('s1/')) partial.push(key);
    expect(partial).toEqual([`s1/${left}`]);
    expect(await store.stat(`s1/${left}`)).toMatchObject({ size: 4 });
    await store.delete(`s1/${left}`);
    expect(await readdir(join(dir, 's1'))).not.toContain(left);
  });

  it('leaves writes in progress and invalid names out of a listing', async () => {
    await store.putIfAbsent('a.md', 'x');
    await writeFile(join(dir, `.a.md.${process.pid}.0123456789ab.tmp`), 'partial');
    await writeFile(join(dir, 'back\\slash.md'), 'not a key');
    expect(await collectKeys(store, '')).toEqual(['a.md']);
  });

  it('does not take a directory for a key', async () => {
    await store.putIfAbsent('s1/a.md', 'x');
    expect(await store.get('s1')).toBeUndefined();
    await store.delete('s1');
    expect(await store.get('s1/a.md')).toBe('x');
    await expect(store.put('s1', 'x')).rejects.toMatchObject({ code: 'WRITE_FAILED' });
  });

  it('makes dir again when it was removed after the first write', async () => {
    await store.putIfAbsent('a.md', 'x');
    await rm(dir, { recursive: true });
    expect(await store.putIfAbsent('a.md', 'y')).toBe('created');
    await rm(dir, { recursive: true });
    await store.put('s1/b.md', 'z');
    expect(await store.get('a.md')).toBeUndefined();
    expect(await store.get('s1/b.md')).toBe('z');
  });

  it('refuses a negative or fractional range', async () => {
    await store.putIfAbsent('a.md', 'hello');
    await expect(store.get('a.md', { offset: -1 })).rejects.toThrow(InvalidOptionError);
    await expect(store.get('a.md', { length: 1.5 })).rejects.toThrow(InvalidOptionError);
  });
});
