/**
 * Compaction on the real file system: real temp directories, real files, the Node reader
 * and writer, symlinks. The summarizer is scripted (no network).
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compactMessages, restoreRecentFiles, type CompactOptions } from '../../../src/api/compact.js';
import type { Message } from '../../../src/core/types.js';
import { NodeFileReader } from '../../../src/infrastructure/node-file-reader.js';
import { createRecordingLogger, createScriptedSummarizer, readFileTurn } from '../../fixtures/compact-fixtures.js';

let workDir: string;
let outsideDir: string;

beforeEach(async () => {
  // realpath: on macOS the temp dir is itself behind a symlink.
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'aco-compact-')));
  outsideDir = await realpath(await mkdtemp(join(tmpdir(), 'aco-outside-')));
  await mkdir(join(workDir, 'src'));
  await writeFile(join(workDir, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(workDir, 'README.md'), '# Project\n');
  await writeFile(join(outsideDir, 'secret.env'), 'TOKEN=hunter2\n');
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
  await rm(outsideDir, { recursive: true, force: true });
});

const system: Message = { role: 'system', content: 'You are a coding agent.' };
/** What a read printed: long enough that the summary and the restored files take less room. */
const readOutput = (path: string): string => `${path}\n${'a line of what the tool printed\n'.repeat(100)}`;
const history = (): Message[] => [
  system,
  { role: 'user', content: 'Fix src/a.ts.' },
  ...readFileTurn('README.md', readOutput('README.md')),
  ...readFileTurn('src/a.ts', readOutput('src/a.ts')),
  { role: 'assistant', content: 'Done.' },
];
const ARCHIVE_NAME = /^compact-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-(\d+)\.json$/;

function options(extra: CompactOptions = {}): CompactOptions & { logger: ReturnType<typeof createRecordingLogger> } {
  return {
    workDir,
    force: true,
    summarizer: createScriptedSummarizer(['the summary']),
    logger: createRecordingLogger(),
    ...extra,
  } as never;
}

describe('compactMessages on the file system', () => {
  it('archives Rest as indented JSON under <workDir>/.compact/default and restores real files', async () => {
    const input = history();
    const result = await compactMessages(input, options());
    expect(result.compacted).toBe(true);
    const archivePath = result.originalMessagesPath as string;
    expect(archivePath.startsWith(join(workDir, '.compact', 'default'))).toBe(true);
    expect(archivePath.split('/').at(-1)).toMatch(ARCHIVE_NAME);
    const archived = await readFile(archivePath, 'utf8');
    expect(archived).toBe(JSON.stringify(input.slice(1), null, 2));
    expect(result.messages.slice(3).map((message) => message.content)).toEqual([
      '[Restored after compact] src/a.ts:\nexport const a = 1;\n',
      'Noted, file content restored.',
      '[Restored after compact] README.md:\n# Project\n',
      'Noted, file content restored.',
    ]);
    expect(result.stats.restoredFileCount).toBe(2);
  });

  it('continues the archive sequence from the files of the same second on disk, per session', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-21T23:45:12.300Z'));
    try {
      const sessionDir = join(workDir, '.compact', 'agent-1');
      await mkdir(sessionDir, { recursive: true });
      await writeFile(join(sessionDir, 'compact-2026-11-21T23-45-12Z-5.json'), '[]');
      await writeFile(join(sessionDir, 'compact-2026-01-01T00-00-00Z-9.json'), '[]');
      const first = await compactMessages(history(), options({ sessionId: 'agent-1' }));
      const second = await compactMessages(history(), options({ sessionId: 'agent-1' }));
      const other = await compactMessages(history(), options({ sessionId: 'agent-2' }));
      expect(first.originalMessagesPath).toBe(join(sessionDir, 'compact-2026-11-21T23-45-12Z-6.json'));
      expect(second.originalMessagesPath).toBe(join(sessionDir, 'compact-2026-11-21T23-45-12Z-7.json'));
      expect(other.originalMessagesPath).toBe(
        join(workDir, '.compact', 'agent-2', 'compact-2026-11-21T23-45-12Z-1.json'),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('never lets concurrent compactions of one session overwrite each other', async () => {
    const inputs = Array.from({ length: 6 }, (_, index) => [
      ...history(),
      { role: 'user' as const, content: `variant ${index}` },
    ]);
    const results = await Promise.all(inputs.map((input) => compactMessages(input, options())));
    const paths = results.map((result) => result.originalMessagesPath as string);
    expect(new Set(paths).size).toBe(6);
    for (const [index, path] of paths.entries())
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(inputs[index]?.slice(1));
    const names = await readdir(join(workDir, '.compact', 'default'));
    expect(names.filter((name) => ARCHIVE_NAME.test(name))).toHaveLength(6);
    expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('skips compaction when the archive cannot be written, leaving the history as it was', async () => {
    await writeFile(join(workDir, 'blocked'), 'a file where the archive directory should be');
    const settings = options({ outputDir: 'blocked' });
    const input = history();
    const result = await compactMessages(input, settings);
    expect(result).toMatchObject({ compacted: false, skippedReason: 'archive-failed', originalMessagesPath: null });
    expect(result.messages).toBe(input);
    expect(result.error).toMatchObject({
      code: 'WRITE_FAILED',
      cause: { code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) },
    });
    expect(settings.logger.warnings.some((warning) => warning.includes('could not archive'))).toBe(true);
  });

  it("with archive: 'best-effort', logs an archive failure and still compacts, with originalMessagesPath null", async () => {
    await writeFile(join(workDir, 'blocked'), 'a file where the archive directory should be');
    const settings = options({ outputDir: 'blocked', archive: 'best-effort' });
    const result = await compactMessages(history(), settings);
    expect(result.compacted).toBe(true);
    expect(result.originalMessagesPath).toBeNull();
    expect(settings.logger.warnings.some((warning) => warning.includes('could not archive'))).toBe(true);
  });

  it('rejects an archive policy it does not know, before anything is written', async () => {
    await expect(compactMessages(history(), options({ archive: 'maybe' as never }))).rejects.toThrow(
      'archive must be "required" or "best-effort", got "maybe"',
    );
  });

  it('honours an absolute outputDir', async () => {
    const result = await compactMessages(history(), options({ outputDir: join(outsideDir, 'archive') }));
    expect(result.originalMessagesPath?.startsWith(join(outsideDir, 'archive', 'default'))).toBe(true);
  });

  it('leaves the history as it was when the summarizer keeps failing', async () => {
    const input = history();
    const result = await compactMessages(
      input,
      options({ summarizer: createScriptedSummarizer([new Error('down')]), retryBaseDelayMs: 0 }),
    );
    expect(result).toMatchObject({ compacted: false, skippedReason: 'summarizer-failed' });
    expect(result.messages).toBe(input);
  });
});

describe('file restoration on the file system', () => {
  it('skips a symlink inside workDir that points outside it, with a warning', async () => {
    await symlink(join(outsideDir, 'secret.env'), join(workDir, 'innocent.txt'));
    await symlink(outsideDir, join(workDir, 'linked-dir'));
    const logger = createRecordingLogger();
    const restored = await restoreRecentFiles(
      [...readFileTurn('src/a.ts'), ...readFileTurn('innocent.txt'), ...readFileTurn('linked-dir/secret.env')],
      { workDir, logger },
    );
    expect(restored.map((message) => message.content)).toEqual([
      '[Restored after compact] src/a.ts:\nexport const a = 1;\n',
    ]);
    expect(logger.warnings).toHaveLength(2);
    for (const warning of logger.warnings) expect(warning).toMatch(/real path .* is outside workDir/);
    expect(JSON.stringify(restored)).not.toContain('hunter2');
  });

  it('restores through a symlink that stays inside workDir', async () => {
    await symlink(join(workDir, 'src', 'a.ts'), join(workDir, 'alias.ts'));
    const restored = await restoreRecentFiles(readFileTurn('alias.ts'), { workDir, logger: createRecordingLogger() });
    expect(restored).toEqual([{ role: 'user', content: '[Restored after compact] alias.ts:\nexport const a = 1;\n' }]);
  });

  it('skips ../ traversal and absolute paths outside workDir', async () => {
    const logger = createRecordingLogger();
    const escape = `../${outsideDir.split('/').at(-1)}/secret.env`;
    const restored = await restoreRecentFiles(
      [...readFileTurn(escape), ...readFileTurn(join(outsideDir, 'other.env'))],
      { workDir, logger },
    );
    expect(restored).toEqual([]);
    expect(logger.warnings).toHaveLength(2);
    for (const warning of logger.warnings) expect(warning).toMatch(/outside workDir/);
  });

  it('skips a deleted file and a directory, with warnings', async () => {
    const logger = createRecordingLogger();
    const restored = await restoreRecentFiles(
      [...readFileTurn('README.md'), ...readFileTurn('deleted.ts'), ...readFileTurn('src')],
      { workDir, logger },
    );
    expect(restored).toHaveLength(1);
    expect(logger.warnings).toHaveLength(2);
  });

  it('restores 5 real files, the most recent first, and an empty one with 0 tokens', async () => {
    for (let index = 0; index < 6; index += 1)
      await writeFile(join(workDir, `f${index}.txt`), index === 5 ? '' : `file ${index}\n`);
    const restored = await restoreRecentFiles(
      Array.from({ length: 6 }, (_, index) => readFileTurn(`f${index}.txt`)).flat(),
      { workDir, logger: createRecordingLogger() },
    );
    expect(restored.map((message) => String(message.content).split(':')[0])).toEqual([
      '[Restored after compact] f5.txt',
      '[Restored after compact] f4.txt',
      '[Restored after compact] f3.txt',
      '[Restored after compact] f2.txt',
      '[Restored after compact] f1.txt',
    ]);
  });

  it('NodeFileReader: exists is true for files only; realpath follows links', async () => {
    const reader = new NodeFileReader();
    expect(await reader.exists(join(workDir, 'README.md'))).toBe(true);
    expect(await reader.exists(join(workDir, 'src'))).toBe(false);
    expect(await reader.exists(join(workDir, 'nope'))).toBe(false);
    await symlink(join(workDir, 'README.md'), join(workDir, 'link.md'));
    expect(await reader.realpath(join(workDir, 'link.md'))).toBe(join(workDir, 'README.md'));
    expect(await reader.read(join(workDir, 'link.md'))).toBe('# Project\n');
  });
});
