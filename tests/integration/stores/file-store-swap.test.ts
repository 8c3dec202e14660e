/**
 * A folder of the file store swapped for a symlink between the store's check and its open or
 * unlink. The swap happens at a fixed point (right after a given `lstat` returns), so the race
 * is played the same way on every run.
 */
import type * as FsPromises from 'node:fs/promises';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pruneOffloaded } from '../../../src/api/prune.js';
import type { ContentStore } from '../../../src/core/ports.js';
import { createFileStore } from '../../../src/stores/file-store.js';

const swaps = vi.hoisted(() => ({ after: new Map<string, { calls: number; swap: () => Promise<void> }>() }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  const lstat = (async (path: string, ...rest: unknown[]) => {
    const info = await (actual.lstat as (...args: unknown[]) => Promise<unknown>)(path, ...rest);
    const planned = swaps.after.get(String(path));
    if (planned !== undefined && --planned.calls === 0) {
      swaps.after.delete(String(path));
      await planned.swap();
    }
    return info;
  }) as typeof actual.lstat;
  return { ...actual, lstat, default: { ...actual, lstat } };
});

let root: string;
let dir: string;
let outside: string;
let store: ContentStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-swap-'));
  dir = join(root, 'store');
  outside = join(root, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'tool-result-a.md'), 'secret');
  store = createFileStore({ dir });
  await store.putIfAbsent('s1/tool-result-a.md', 'mine');
});
afterEach(async () => {
  swaps.after.clear();
  await rm(root, { recursive: true, force: true });
});

/** Right after the `calls`-th lstat of `path` returns, the folder `s1` becomes a symlink to the outside folder. */
function swapFolderAfterLstat(path: string, calls = 1): void {
  swaps.after.set(path, {
    calls,
    swap: async () => {
      await rename(join(dir, 's1'), join(dir, 's1-moved'));
      await symlink(outside, join(dir, 's1'));
    },
  });
}

describe('the file store, a folder swapped for a symlink after its check', () => {
  it('never reads the outside file through it', async () => {
    swapFolderAfterLstat(join(dir, 's1'));
    expect(await store.get('s1/tool-result-a.md')).toBeUndefined();
    expect(swaps.after.size).toBe(0);
  });

  it('never reads a range of the outside file through it', async () => {
    swapFolderAfterLstat(join(dir, 's1'));
    expect(await store.get('s1/tool-result-a.md', { offset: 0, length: 3 })).toBeUndefined();
  });

  it('never stats the outside file through it', async () => {
    swapFolderAfterLstat(join(dir, 's1'));
    expect(await store.stat('s1/tool-result-a.md')).toBeUndefined();
  });

  it('never unlinks the outside file through it', async () => {
    swapFolderAfterLstat(join(dir, 's1', 'tool-result-a.md'));
    await store.delete('s1/tool-result-a.md');
    expect(swaps.after.size).toBe(0);
    expect(await readFile(join(outside, 'tool-result-a.md'), 'utf8')).toBe('secret');
  });

  it('leaves the outside file to a prune that checked the folder first', async () => {
    // the first lstat of the file is prune's stat, the second its delete's own check
    swapFolderAfterLstat(join(dir, 's1', 'tool-result-a.md'), 2);
    await pruneOffloaded({ outputDir: dir, olderThanMs: 0, now: () => new Date(Date.now() + 60_000) });
    expect(swaps.after.size).toBe(0);
    expect(await readFile(join(outside, 'tool-result-a.md'), 'utf8')).toBe('secret');
  });
});
