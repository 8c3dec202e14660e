import { describe, expect, it } from 'vitest';
import {
  collectRestoredFiles,
  findRecentlyReadFiles,
  MAX_BYTES_PER_TOKEN,
  type CollectRestoredFilesOptions,
} from '../../../../src/core/compact/restore.js';
import { formatRestoredFileMessage } from '../../../../src/core/compact/assemble.js';
import { isPathInside, resolvePathFrom } from '../../../../src/core/store/path-resolution.js';
import type { FileReader } from '../../../../src/core/ports.js';
import type { Message } from '../../../../src/core/types.js';
import {
  charCounter,
  createRecordingLogger,
  MemoryFileSystem,
  readFileTurn,
} from '../../../fixtures/compact-fixtures.js';

function setUp(files: Record<string, string>, overrides: Partial<CollectRestoredFilesOptions> = {}) {
  const fileSystem = new MemoryFileSystem(files);
  const logger = createRecordingLogger();
  const options: CollectRestoredFilesOptions = {
    workDir: '/work',
    readToolNames: ['read_file'],
    pathField: 'path',
    maxRestoreFiles: 5,
    maxRestoreTokensPerFile: 5000,
    maxRestoreTokensTotal: 50_000,
    fileReader: fileSystem.reader,
    tokenCounter: charCounter,
    logger,
    ...overrides,
  };
  return { fileSystem, logger, options };
}

const paths = (restored: Array<{ path: string }>): string[] => restored.map((file) => file.path);

describe('collectRestoredFiles', () => {
  it('restores the recently read files, most recent first, as "[Restored after compact] {path}:\\n{content}"', async () => {
    const { options } = setUp({ '/work/a.ts': 'A', '/work/src/b.ts': 'BB' });
    const history = [...readFileTurn('a.ts'), ...readFileTurn('src/b.ts')];
    const restored = await collectRestoredFiles(history, options);
    expect(paths(restored)).toEqual(['src/b.ts', 'a.ts']);
    expect(restored[0]).toEqual({
      path: 'src/b.ts',
      absolutePath: '/work/src/b.ts',
      content: 'BB',
      tokenCount: 2,
      message: { role: 'user', content: '[Restored after compact] src/b.ts:\nBB' },
    });
  });

  it('restores nothing when no read_file call was made', async () => {
    const { options, fileSystem } = setUp({ '/work/a.ts': 'A' });
    const history: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'write_file', input: { path: 'a.ts' } }] },
    ];
    expect(await collectRestoredFiles(history, options)).toEqual([]);
    expect(fileSystem.events).toEqual([]);
  });

  it('skips a deleted file with a warning and goes on', async () => {
    const { options, logger } = setUp({ '/work/a.ts': 'A' });
    const history = [...readFileTurn('a.ts'), ...readFileTurn('gone.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
    expect(logger.warnings).toEqual(['restore: skipped "gone.ts": no file at /work/gone.ts']);
  });

  it('skips a file that cannot be read with a warning and goes on', async () => {
    const { options, logger, fileSystem } = setUp({ '/work/a.ts': 'A', '/work/secret.ts': 'S' });
    fileSystem.unreadable.add('/work/secret.ts');
    const history = [...readFileTurn('a.ts'), ...readFileTurn('secret.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
    expect(logger.warnings).toEqual([
      `restore: skipped "secret.ts": could not read it (EACCES: permission denied, open '/work/secret.ts')`,
    ]);
  });

  it('skips a file above maxRestoreTokensPerFile and goes on; a file exactly at it is restored', async () => {
    const { options, logger } = setUp(
      { '/work/big.ts': 'x'.repeat(11), '/work/edge.ts': 'y'.repeat(10), '/work/small.ts': 's' },
      { maxRestoreTokensPerFile: 10 },
    );
    const history = [...readFileTurn('small.ts'), ...readFileTurn('edge.ts'), ...readFileTurn('big.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['edge.ts', 'small.ts']);
    expect(logger.infos).toEqual(['restore: skipped "big.ts": 11 tokens > maxRestoreTokensPerFile (10)']);
    expect(logger.warnings).toEqual([]);
  });

  it('returns [] when every file is above the per-file limit', async () => {
    const { options } = setUp({ '/work/a.ts': 'aaaa', '/work/b.ts': 'bbbb' }, { maxRestoreTokensPerFile: 3 });
    expect(await collectRestoredFiles([...readFileTurn('a.ts'), ...readFileTurn('b.ts')], options)).toEqual([]);
  });

  it('stops before the file that would take the total above maxRestoreTokensTotal, even if a later one would fit', async () => {
    const { options, logger } = setUp(
      { '/work/a.ts': 'a'.repeat(4), '/work/b.ts': 'b'.repeat(4), '/work/c.ts': 'c'.repeat(3), '/work/d.ts': 'd' },
      { maxRestoreTokensTotal: 10 },
    );
    const history = ['d.ts', 'c.ts', 'b.ts', 'a.ts'].flatMap((path) => readFileTurn(path));
    const restored = await collectRestoredFiles(history, options);
    expect(paths(restored)).toEqual(['a.ts', 'b.ts']);
    expect(logger.infos).toEqual(['restore: stopped before "c.ts": 11 tokens would exceed maxRestoreTokensTotal (10)']);
  });

  it('restores a total exactly at maxRestoreTokensTotal', async () => {
    const { options } = setUp(
      { '/work/a.ts': 'a'.repeat(6), '/work/b.ts': 'b'.repeat(4) },
      { maxRestoreTokensTotal: 10 },
    );
    expect(paths(await collectRestoredFiles([...readFileTurn('b.ts'), ...readFileTurn('a.ts')], options))).toEqual([
      'a.ts',
      'b.ts',
    ]);
  });

  it('restores nothing and reads nothing with maxRestoreFiles = 0', async () => {
    const { options, fileSystem } = setUp({ '/work/a.ts': 'A' }, { maxRestoreFiles: 0 });
    expect(await collectRestoredFiles(readFileTurn('a.ts'), options)).toEqual([]);
    expect(fileSystem.events).toEqual([]);
  });

  it('restores an empty file, with 0 tokens', async () => {
    const { options } = setUp({ '/work/empty.txt': '' });
    const restored = await collectRestoredFiles(readFileTurn('empty.txt'), options);
    expect(restored).toHaveLength(1);
    expect(restored[0]?.tokenCount).toBe(0);
    expect(restored[0]?.message).toEqual({ role: 'user', content: '[Restored after compact] empty.txt:\n' });
  });

  it('restores a file read twice once, at the position of its last read', async () => {
    const { options, fileSystem } = setUp({ '/work/a.ts': 'A', '/work/b.ts': 'B' });
    const history = [...readFileTurn('a.ts'), ...readFileTurn('b.ts'), ...readFileTurn('a.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts', 'b.ts']);
    expect(fileSystem.events.filter((event) => event.startsWith('read '))).toEqual([
      'read /work/a.ts',
      'read /work/b.ts',
    ]);
  });

  it('de-duplicates by resolved path and names the path as the agent last wrote it', async () => {
    const { options } = setUp({ '/work/src/a.ts': 'A' });
    const history = [
      ...readFileTurn('src/a.ts'),
      ...readFileTurn('/work/src/a.ts'),
      ...readFileTurn('./src/../src/a.ts'),
    ];
    const restored = await collectRestoredFiles(history, options);
    expect(paths(restored)).toEqual(['./src/../src/a.ts']);
    expect(restored[0]?.message.content).toBe('[Restored after compact] ./src/../src/a.ts:\nA');
  });

  it('takes the N most recent candidates; a skipped one is not replaced by an older one', async () => {
    const { options } = setUp({ '/work/old.ts': 'O', '/work/a.ts': 'A' }, { maxRestoreFiles: 2 });
    const history = [...readFileTurn('old.ts'), ...readFileTurn('a.ts'), ...readFileTurn('gone.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
  });

  describe('path safety', () => {
    it('skips a path that climbs out of workDir with a warning, without touching it', async () => {
      const { options, logger, fileSystem } = setUp({ '/etc/passwd': 'root', '/work/a.ts': 'A' });
      const history = [...readFileTurn('a.ts'), ...readFileTurn('../etc/passwd')];
      expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
      expect(logger.warnings).toEqual([
        'restore: skipped "../etc/passwd": it resolves to /etc/passwd, outside workDir /work',
      ]);
      expect(fileSystem.events.some((event) => event.includes('/etc/passwd'))).toBe(false);
    });

    it('skips an absolute path outside workDir, and a sibling that only shares the prefix', async () => {
      const { options, logger } = setUp({ '/etc/passwd': 'root', '/workshop/x': 'X' });
      const history = [...readFileTurn('/etc/passwd'), ...readFileTurn('/workshop/x')];
      expect(await collectRestoredFiles(history, options)).toEqual([]);
      expect(logger.warnings).toHaveLength(2);
    });

    it('skips a symlink inside workDir whose real path is outside it', async () => {
      const { options, logger, fileSystem } = setUp({ '/secrets/key': 'KEY', '/work/a.ts': 'A' });
      fileSystem.links.set('/work/link', '/secrets');
      const history = [...readFileTurn('a.ts'), ...readFileTurn('link/key')];
      expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
      expect(logger.warnings).toEqual([
        'restore: skipped "link/key": its real path /secrets/key is outside workDir /work',
      ]);
      expect(fileSystem.events).not.toContain('read /secrets/key');
      expect(fileSystem.events).not.toContain('read /work/link/key');
    });

    it('follows a symlink that stays inside workDir, and a symlinked workDir itself', async () => {
      const { options, fileSystem } = setUp({ '/real/work/src/a.ts': 'A' });
      fileSystem.links.set('/work', '/real/work');
      const restored = await collectRestoredFiles(readFileTurn('src/a.ts'), options);
      expect(restored.map((file) => file.absolutePath)).toEqual(['/real/work/src/a.ts']);
    });

    it('checks paths lexically with a reader that has no realpath', async () => {
      const { options, fileSystem } = setUp({ '/work/a.ts': 'A', '/x': 'X' });
      const restored = await collectRestoredFiles([...readFileTurn('a.ts'), ...readFileTurn('../x')], {
        ...options,
        fileReader: fileSystem.plainReader,
      });
      expect(paths(restored)).toEqual(['a.ts']);
    });
  });

  it('restores the whole file after a partial read (view_range, offset)', async () => {
    const { options } = setUp(
      { '/work/a.ts': 'line1\nline2\nline3' },
      { readToolNames: ['str_replace_based_edit_tool'] },
    );
    const history: Message[] = [
      {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 't1',
            name: 'str_replace_based_edit_tool',
            input: { command: 'view', path: 'a.ts', view_range: [2, 2] },
          },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'line2' }] },
    ];
    expect((await collectRestoredFiles(history, options))[0]?.content).toBe('line1\nline2\nline3');
  });

  it('uses readToolNames and pathField (Claude Code Read/file_path)', async () => {
    const { options } = setUp(
      { '/work/a.ts': 'A', '/work/b.ts': 'B' },
      { readToolNames: ['Read'], pathField: 'file_path' },
    );
    const history = [...readFileTurn('a.ts', 'A', 'Read', 'file_path'), ...readFileTurn('b.ts')];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts']);
  });

  it('ignores tool_use blocks outside assistant messages and inputs without a string path', async () => {
    const { options } = setUp({ '/work/a.ts': 'A' });
    const history: Message[] = [
      { role: 'user', content: [{ type: 'tool_use', id: 't', name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'u', name: 'read_file', input: { path: 42 } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'v', name: 'read_file', input: { path: '  ' } }] },
    ];
    expect(await collectRestoredFiles(history, options)).toEqual([]);
  });

  it('counts a "[Restored after compact] {path}:" message as a read at its position', async () => {
    const { options } = setUp({ '/work/a.ts': 'A', '/work/b.ts': 'B', '/work/c.ts': 'C' }, { maxRestoreFiles: 2 });
    const history: Message[] = [
      ...readFileTurn('c.ts'),
      formatRestoredFileMessage('a.ts', 'old A'),
      { role: 'assistant', content: 'Noted, file content restored.' },
      ...readFileTurn('b.ts'),
    ];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['b.ts', 'a.ts']);
  });

  it('keeps the relative recency of files restored together by an earlier compaction (listed most recent first)', async () => {
    const { options } = setUp({ '/work/a.ts': 'A', '/work/b.ts': 'B', '/work/c.ts': 'C' }, { maxRestoreFiles: 2 });
    const history: Message[] = [
      { role: 'user', content: '[Conversation compressed]\n\nsummary' },
      {
        role: 'assistant',
        content: 'Understood. I have the context from the compressed conversation. Continuing work.',
      },
      formatRestoredFileMessage('a.ts', 'A'),
      { role: 'assistant', content: 'Noted, file content restored.' },
      formatRestoredFileMessage('b.ts', 'B'),
      { role: 'assistant', content: 'Noted, file content restored.' },
      formatRestoredFileMessage('c.ts', 'C'),
      { role: 'assistant', content: 'Noted, file content restored.' },
    ];
    expect(paths(await collectRestoredFiles(history, options))).toEqual(['a.ts', 'b.ts']);
  });

  describe('file size (with fileReader.size)', () => {
    const BIG_FILE = '/work/big.log';

    /**
     * The memory reader plus `size`: the UTF-8 size of a file's content, or `bigFileBytes` for
     * {@link BIG_FILE}, which has no content: reading it throws, so a test that passes never read it.
     */
    function withSize(fileSystem: MemoryFileSystem, bigFileBytes: number): FileReader & { sized: string[] } {
      const sized: string[] = [];
      return {
        sized,
        exists: async (path) => path === BIG_FILE || fileSystem.reader.exists(path),
        realpath: fileSystem.reader.realpath,
        read: async (path) => {
          if (path === BIG_FILE) throw new Error('the big file must not be read');
          return fileSystem.reader.read(path);
        },
        size: async (path) => {
          sized.push(path);
          return path === BIG_FILE ? bigFileBytes : new TextEncoder().encode(await fileSystem.reader.read(path)).length;
        },
      };
    }

    it('skips a file whose size cannot fit maxRestoreTokensPerFile without reading it, with a note', async () => {
      const { options, logger, fileSystem } = setUp({ '/work/a.ts': 'A' }, { maxRestoreTokensPerFile: 5000 });
      const fileReader = withSize(fileSystem, 200 * 1024 * 1024);
      const restored = await collectRestoredFiles([...readFileTurn('a.ts'), ...readFileTurn('big.log')], {
        ...options,
        fileReader,
      });
      expect(paths(restored)).toEqual(['a.ts']);
      expect(fileReader.sized).toContain(BIG_FILE);
      expect(logger.infos).toEqual([
        'restore: skipped "big.log": 209715200 bytes, at least 1638400 tokens > maxRestoreTokensPerFile (5000)',
      ]);
      expect(logger.warnings).toEqual([]);
    });

    it(`skips without reading a file of one byte more than ${MAX_BYTES_PER_TOKEN} per token allowed`, async () => {
      const { options, logger, fileSystem } = setUp({}, { maxRestoreTokensPerFile: 10 });
      const fileReader = withSize(fileSystem, 10 * MAX_BYTES_PER_TOKEN + 1);
      expect(await collectRestoredFiles(readFileTurn('big.log'), { ...options, fileReader })).toEqual([]);
      expect(logger.infos).toEqual([
        `restore: skipped "big.log": ${10 * MAX_BYTES_PER_TOKEN + 1} bytes, at least 11 tokens > maxRestoreTokensPerFile (10)`,
      ]);
    });

    it(`reads a file of exactly ${MAX_BYTES_PER_TOKEN} bytes per token allowed, which could fit, and skips it on its count`, async () => {
      const content = ' '.repeat(10 * MAX_BYTES_PER_TOKEN);
      const { options, logger, fileSystem } = setUp({ '/work/spaces.txt': content }, { maxRestoreTokensPerFile: 10 });
      const fileReader = withSize(fileSystem, 0);
      expect(await collectRestoredFiles(readFileTurn('spaces.txt'), { ...options, fileReader })).toEqual([]);
      expect(fileSystem.events).toContain('read /work/spaces.txt');
      expect(logger.infos).toEqual(['restore: skipped "spaces.txt": 1280 tokens > maxRestoreTokensPerFile (10)']);
    });

    it('restores a file within the budget after checking its size', async () => {
      const { options, fileSystem } = setUp({ '/work/a.ts': 'export const a = 1;\n' });
      const fileReader = withSize(fileSystem, 0);
      const restored = await collectRestoredFiles(readFileTurn('a.ts'), { ...options, fileReader });
      expect(restored.map((file) => file.content)).toEqual(['export const a = 1;\n']);
      expect(fileReader.sized).toEqual(['/work/a.ts']);
    });

    it('sizes the real path, after the workDir checks: a symlink out of workDir is never sized', async () => {
      const { options, fileSystem } = setUp({ '/secrets/key': 'KEY', '/etc/passwd': 'root' });
      fileSystem.links.set('/work/link', '/secrets');
      const fileReader = withSize(fileSystem, 0);
      await collectRestoredFiles([...readFileTurn('link/key'), ...readFileTurn('../etc/passwd')], {
        ...options,
        fileReader,
      });
      expect(fileReader.sized).toEqual([]);
    });

    it('skips a file whose size cannot be taken with a warning, as an unreadable one', async () => {
      const { options, logger, fileSystem } = setUp({ '/work/a.ts': 'A', '/work/b.ts': 'B' });
      const reader = withSize(fileSystem, 0);
      const fileReader: FileReader = {
        ...reader,
        size: async (path) => {
          if (path === '/work/b.ts') throw new Error(`EACCES: permission denied, stat '${path}'`);
          return reader.size?.(path) ?? 0;
        },
      };
      expect(
        paths(
          await collectRestoredFiles([...readFileTurn('a.ts'), ...readFileTurn('b.ts')], { ...options, fileReader }),
        ),
      ).toEqual(['a.ts']);
      expect(logger.warnings).toEqual([
        `restore: skipped "b.ts": could not read it (EACCES: permission denied, stat '/work/b.ts')`,
      ]);
    });

    it('reads and counts every file when the reader has no size', async () => {
      const { options, logger, fileSystem } = setUp(
        { '/work/big.ts': 'x'.repeat(11 * MAX_BYTES_PER_TOKEN) },
        { maxRestoreTokensPerFile: 10 },
      );
      expect(
        await collectRestoredFiles(readFileTurn('big.ts'), { ...options, fileReader: fileSystem.plainReader }),
      ).toEqual([]);
      expect(fileSystem.events).toContain('read /work/big.ts');
      expect(logger.infos).toEqual([
        `restore: skipped "big.ts": ${11 * MAX_BYTES_PER_TOKEN} tokens > maxRestoreTokensPerFile (10)`,
      ]);
    });
  });

  it('rejects with the abort reason', async () => {
    const { options } = setUp({ '/work/a.ts': 'A' });
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(collectRestoredFiles(readFileTurn('a.ts'), { ...options, signal: controller.signal })).rejects.toBe(
      reason,
    );
  });
});

describe('findRecentlyReadFiles', () => {
  it('orders by latest read, most recent first', () => {
    const history = ['a', 'b', 'c', 'a'].flatMap((path) => readFileTurn(path));
    expect(
      findRecentlyReadFiles(history, { workDir: '/w', readToolNames: ['read_file'], pathField: 'path' }).map(
        (c) => c.path,
      ),
    ).toEqual(['a', 'c', 'b']);
  });
});

describe('path resolution (pure)', () => {
  it('resolves POSIX paths lexically', () => {
    expect(resolvePathFrom('/work', 'a/../b/./c.ts')).toBe('/work/b/c.ts');
    expect(resolvePathFrom('/work', '../../../etc')).toBe('/etc');
    expect(resolvePathFrom('/work', '/abs//x')).toBe('/abs/x');
    expect(resolvePathFrom('/work/', '.compact', 'default')).toBe('/work/.compact/default');
  });

  it('resolves Windows paths lexically', () => {
    expect(resolvePathFrom('C:\\work', 'src/a.ts')).toBe('C:\\work\\src\\a.ts');
    expect(resolvePathFrom('C:\\work', '..\\..\\x')).toBe('C:\\x');
    expect(resolvePathFrom('C:\\work', 'D:\\y')).toBe('D:\\y');
    expect(resolvePathFrom('C:\\work', '\\root.txt')).toBe('C:\\root.txt');
  });

  it('checks containment by segment, not by prefix', () => {
    expect(isPathInside('/work', '/work')).toBe(true);
    expect(isPathInside('/work', '/work/a')).toBe(true);
    expect(isPathInside('/work', '/workshop')).toBe(false);
    expect(isPathInside('/', '/anything')).toBe(true);
    expect(isPathInside('C:\\Work', 'c:\\work\\a')).toBe(true);
  });
});
