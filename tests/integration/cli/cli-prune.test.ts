import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import type { Message } from '../../../src/core/types.js';
import { writeTemp } from '../../../src/infrastructure/atomic-files.js';
import { NodeFileWriter } from '../../../src/infrastructure/node-file-writer.js';
import { createTemporaryDirectory, hasAnsi, runInProcess } from './cli-helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

let temporary: { path: string; remove: () => Promise<void> };
let dir: string;

beforeEach(async () => {
  temporary = await createTemporaryDirectory('aco-cli-prune-');
  dir = join(temporary.path, 'offload');
});
afterEach(async () => {
  await temporary.remove();
});

/** Sets the modification time of `path` to `ageDays` ago. */
async function age(path: string, ageDays: number): Promise<void> {
  const time = new Date(Date.now() - ageDays * DAY_MS);
  await utimes(path, time, time);
}

/**
 * Writes `files` under `root` (folders created), each modified `ageDays` ago. `root` is made
 * the way the package makes its directories (marked as its own) unless `madeByPackage` is false.
 */
async function writeAged(
  root: string,
  files: Record<string, { ageDays: number; text?: string }>,
  madeByPackage = true,
): Promise<void> {
  if (madeByPackage) await new NodeFileWriter().ensureDir(root);
  for (const [name, { ageDays, text }] of Object.entries(files)) {
    const path = join(root, ...name.split('/'));
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text ?? `content of ${name}`);
    await age(path, ageDays);
  }
}

/** Every file under `root`, as slash-separated relative paths, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(root.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

const FILES = {
  'tool-result-old.md': { ageDays: 10, text: 'x'.repeat(2048) },
  'tool-result-new.md': { ageDays: 1 },
  's1/toolu_old.md': { ageDays: 9, text: 'y'.repeat(100) },
  // a live session: kept whole
  's2/toolu_new.md': { ageDays: 0 },
  's1/compact-2026-01-02T03-04-05Z-1.json': { ageDays: 30, text: '[]' },
  // a user's own files, however old, are never touched
  'notes.md': { ageDays: 400 },
  'data.json': { ageDays: 400 },
  's1/notes.txt': { ageDays: 400 },
  'deep/er/tool-result-x.md': { ageDays: 400 },
  's1/.toolu_old.md.3f2a.tmp': { ageDays: 400 },
};

describe('agent-context prune', () => {
  it('lists what it would remove in a dry run, and deletes nothing', async () => {
    await writeAged(dir, FILES);
    const before = await listFiles(dir);
    const run = await runInProcess(['prune', dir, '--older-than', '7d']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`prune  ${dir} (dry run: nothing deleted)`);
    expect(lines[1]).toMatch(
      /^ {2}would remove 3 files older than 7d \(written before \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\), freeing 2\.1 KB \(2,150 bytes\):$/,
    );
    expect(lines.slice(2, 5).map((line) => line.trim().split(/\s{2,}/)[0])).toEqual([
      's1/compact-2026-01-02T03-04-05Z-1.json',
      's1/toolu_old.md',
      'tool-result-old.md',
    ]);
    expect(lines[4]).toMatch(/^ {4}tool-result-old\.md {2,}2\.0 KB {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lines[5]).toBe('  kept 1 live session whole (something in it changed within 7d): s2');
    expect(lines[6]).toBe('  run again with --yes to delete them');
    expect(await listFiles(dir)).toEqual(before);
  });

  it('deletes only the old package files with --yes', async () => {
    await writeAged(dir, FILES);
    const run = await runInProcess(['prune', dir, '--older-than', '1w', '--yes']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^prune {2}.*\n {2}removed 3 files older than 1w \(written before [^)]+\), freed 2\.1 KB \(2,150 bytes\):\n/,
    );
    expect(await listFiles(dir)).toEqual([
      '.agent-context-offload',
      'data.json',
      'deep/er/tool-result-x.md',
      'notes.md',
      's1/.toolu_old.md.3f2a.tmp',
      's1/notes.txt',
      's2/toolu_new.md',
      'tool-result-new.md',
    ]);
  });

  it('says when nothing is old enough', async () => {
    await writeAged(dir, { 'tool-result-a.md': { ageDays: 1 } });
    const run = await runInProcess(['prune', dir, '--older-than', '12h', '--yes']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^prune {2}.*\n {2}removed 1 file older than 12h .*, freed 27 bytes:\n {4}tool-result-a\.md {2}27 bytes {2}\S+\n$/,
    );
    const again = await runInProcess(['prune', dir, '--older-than', '12h']);
    expect(again.stdout).toMatch(/\n {2}nothing older than 12h \(written before [^)]+\) to remove\n$/);
  });

  it('prints one JSON object with --json', async () => {
    await writeAged(dir, FILES);
    const run = await runInProcess(['prune', dir, '--older-than', '30m', '--json']);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      dir,
      olderThan: '30m',
      olderThanMs: 30 * 60 * 1000,
      dryRun: true,
      freedBytes: 2150 + 'content of tool-result-new.md'.length,
      liveSessions: ['s2'],
    });
    expect((report.removed as Array<{ key: string }>).map((entry) => entry.key)).toEqual([
      's1/compact-2026-01-02T03-04-05Z-1.json',
      's1/toolu_old.md',
      'tool-result-new.md',
      'tool-result-old.md',
    ]);
    expect((report.removed as Array<{ reference: string }>)[3]!.reference).toBe(join(dir, 'tool-result-old.md'));
    expect(await listFiles(dir)).toHaveLength(Object.keys(FILES).length + 1);
  });

  it('never prints raw control characters or bidirectional overrides from a path', async () => {
    const evil = join(temporary.path, 'evil\u001b[31m\u009b\u0007dir');
    await mkdir(evil);
    const refused = await runInProcess(['prune', evil, '--older-than', '7d']);
    expect(refused.exitCode).toBe(2);
    expect(hasAnsi(refused.stderr)).toBe(false);
    // eslint-disable-next-line no-control-regex -- the point is that none is left
    expect(refused.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(refused.stderr).toContain('<dir> must not contain control characters, got "');
    expect(refused.stderr).toContain('evil\\u001b[31m\\u009b\\u0007dir"');

    const reordered = join(temporary.path, 'evil\u202edm.txt');
    await writeAged(reordered, { 'tool-result-a.md': { ageDays: 30 } });
    const run = await runInProcess(['prune', reordered, '--older-than', '7d']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toContain('\u202e');
    expect(run.stdout).toContain('evil\\u202edm.txt');
    const json = await runInProcess(['prune', reordered, '--older-than', '7d', '--json']);
    expect(json.stdout).not.toContain('\u202e');
    expect(JSON.parse(json.stdout)).toMatchObject({ dir: reordered });
  });

  describe('in a directory it did not create', () => {
    // a project root: every `<folder>/<name>.md` has the shape of a direct offload
    const PROJECT = {
      'docs/README.md': { ageDays: 400 },
      'src/TODO.md': { ageDays: 400 },
      'tool-result-a.md': { ageDays: 400 },
      'package.json': { ageDays: 400 },
    };

    it('refuses it, names the directory and the marker file, and deletes nothing', async () => {
      await writeAged(dir, PROJECT, false);
      const before = await listFiles(dir);
      const run = await runInProcess(['prune', dir, '--older-than', '7d', '--yes']);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `agent-context: refusing to prune ${dir}: it holds no .agent-context-offload file, so agent-context-offload did not create it ` +
          'and cannot tell its own files there from yours. If everything in it was written by agent-context-offload ' +
          `(a directory made by version 0.3.0 has no marker), create that file, empty, and prune again: ${join(dir, '.agent-context-offload')}\n`,
      );
      expect(await listFiles(dir)).toEqual(before);
    });

    it('prunes it once the marker file is created by hand', async () => {
      await writeAged(dir, { 'tool-result-old.md': { ageDays: 30 }, 's1/toolu_old.md': { ageDays: 30 } }, false);
      await writeFile(join(dir, '.agent-context-offload'), '');
      const run = await runInProcess(['prune', dir, '--older-than', '7d', '--yes']);
      expect(run.exitCode).toBe(0);
      expect(await listFiles(dir)).toEqual(['.agent-context-offload']);
    });
  });

  describe('temp files of a killed writer', () => {
    /** A temp file as a writer leaves it when killed before it renames or links it, aged `ageDays`. */
    async function leaveTempFile(target: string, ageDays: number): Promise<string> {
      const path = await writeTemp(target, 'half of a result');
      await age(path, ageDays);
      return path
        .slice(dir.length + 1)
        .split('\\')
        .join('/');
    }

    it('removes those older than the age, and keeps the fresh ones and look-alikes', async () => {
      await writeAged(dir, { 'tool-result-a.md': { ageDays: 0 }, 's1/notes.md.tmp': { ageDays: 30 } });
      const stale = [
        await leaveTempFile(join(dir, 'tool-result-b.md'), 30),
        await leaveTempFile(join(dir, 's1', 'toolu_1.md'), 30),
      ];
      const fresh = await leaveTempFile(join(dir, 's1', 'toolu_2.md'), 1);
      const run = await runInProcess(['prune', dir, '--older-than', '7d', '--yes', '--json']);
      expect(run.exitCode).toBe(0);
      expect((JSON.parse(run.stdout) as { removed: Array<{ key: string }> }).removed.map((entry) => entry.key)).toEqual(
        [...stale].sort(),
      );
      expect(await listFiles(dir)).toEqual(
        ['.agent-context-offload', fresh, 's1/notes.md.tmp', 'tool-result-a.md'].sort(),
      );
    });

    it('never removes one younger than an hour, whatever the age given', async () => {
      await writeAged(dir, {});
      const fresh = await leaveTempFile(join(dir, 'tool-result-b.md'), 0);
      const run = await runInProcess(['prune', dir, '--older-than', '0s', '--yes']);
      expect(run.exitCode).toBe(0);
      expect(await listFiles(dir)).toEqual(['.agent-context-offload', fresh].sort());
    });
  });

  describe("a context manager's session folder", () => {
    /** A session the manager wrote under `dir`: offloaded results, a compaction's archive, its records. */
    async function runSession(): Promise<string[]> {
      const manager = createContextManager({
        outputDir: dir,
        sessionId: 'live-1',
        contextTokenLimit: 4000,
        summarizer: createExtractiveSummarizer(),
        offload: { directThreshold: 1000, timing: 'on-arrival' },
        logger: { warn: () => undefined },
      });
      const rows = Array.from({ length: 150 }, (_, index) => `row ${index}: value ${index * 7}`).join('\n');
      const history: Message[] = [
        { role: 'user', content: 'Export the tables.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'dump' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: rows }] },
        ...Array.from({ length: 40 }, (_, index) => ({
          role: index % 2 === 0 ? ('assistant' as const) : ('user' as const),
          content: `Step ${index}: ${'the exporter batches rows and retries a failed flush twice; '.repeat(10)}`,
        })),
      ];
      const result = await manager.prepare(history);
      expect(result.actions.map((action) => action.type)).toContain('compact');
      const files = (await listFiles(dir)).filter((file) => file.startsWith('live-1/'));
      expect(files.some((file) => file.startsWith('live-1/.records/'))).toBe(true);
      expect(files.some((file) => /^live-1\/compact-.*\.json$/.test(file))).toBe(true);
      return files;
    }

    it('keeps the session whole while one of its records changed within the age, and says so', async () => {
      const files = await runSession();
      const record = files.find((file) => file.startsWith('live-1/.records/'))!;
      for (const file of files) if (file !== record) await age(join(dir, ...file.split('/')), 30);

      const run = await runInProcess(['prune', dir, '--older-than', '7d', '--yes']);

      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain('  nothing older than 7d');
      expect(run.stdout).toContain('  kept 1 live session whole (something in it changed within 7d): live-1\n');
      expect((await listFiles(dir)).filter((file) => file.startsWith('live-1/'))).toEqual(files);
    });

    it('removes an idle session whole, its records with its results and archives', async () => {
      const files = await runSession();
      for (const file of files) await age(join(dir, ...file.split('/')), 30);

      const run = await runInProcess(['prune', dir, '--older-than', '7d', '--yes', '--json']);

      expect(run.exitCode).toBe(0);
      const report = JSON.parse(run.stdout) as { removed: Array<{ key: string }>; liveSessions: string[] };
      expect(report.liveSessions).toEqual([]);
      expect(report.removed.map((entry) => entry.key).sort()).toEqual(files);
      expect((await listFiles(dir)).filter((file) => file.startsWith('live-1/'))).toEqual([]);
    });
  });

  describe('exit codes', () => {
    it.each([
      [
        ['prune', '--older-than', '7d'],
        'agent-context: missing <dir> (the directory the offloaded results and archives are in)',
      ],
      [['prune', '.'], 'agent-context: missing --older-than <age> (e.g. 7d: only what is older goes)'],
      [
        ['prune', '.', '--older-than', '7x'],
        'agent-context: --older-than must be a duration such as 30m, 12h, 7d or 2w, got "7x"',
      ],
      [
        ['prune', '.', '--older-than', '-1d'],
        'agent-context: --older-than must be a duration such as 30m, 12h, 7d or 2w, got "-1d"',
      ],
      [['prune', '.', '--older-than'], 'agent-context: --older-than needs a value'],
      [['prune', '.', 'extra', '--older-than', '7d'], 'agent-context: unexpected argument "extra"'],
      [
        ['prune', '.', '--older-than', '9999999999d'],
        'agent-context: --older-than must be at most 100000000d (the range of a date), got "9999999999d"',
      ],
    ])('exits 2 on a usage error: %j', async (args, message) => {
      const run = await runInProcess(args);
      expect(run.exitCode).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`${message}\nRun "agent-context prune --help" for usage.\n`);
    });

    it('exits 1 when the directory does not exist or is a file', async () => {
      const missing = await runInProcess(['prune', join(temporary.path, 'nope'), '--older-than', '7d']);
      expect(missing.exitCode).toBe(1);
      expect(missing.stderr).toBe(
        `agent-context: cannot read ${join(temporary.path, 'nope')}: no such file (ENOENT)\n`,
      );
      const file = join(temporary.path, 'file.md');
      await writeFile(file, 'x');
      const notDirectory = await runInProcess(['prune', file, '--older-than', '7d']);
      expect(notDirectory.exitCode).toBe(1);
      expect(notDirectory.stderr).toBe(`agent-context: cannot read ${file}: not a directory\n`);
    });
  });

  it('is listed in the main help', async () => {
    const run = await runInProcess(['--help']);
    expect(run.stdout).toContain("  prune <dir>      remove idle sessions' results, archives and records");
  });
});
