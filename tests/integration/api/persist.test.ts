/**
 * The compaction archive on the real file system: streamed by the Node writer, byte-identical
 * to `JSON.stringify(rest, null, 2)`, created exclusively, reused when identical.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { NodeFileWriter } from '../../../src/infrastructure/node-file-writer.js';
import {
  createRecordingLogger,
  archiveThroughWriter,
  type ArchiveThroughWriterOptions,
} from '../../fixtures/compact-fixtures.js';

let workDir: string;

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'aco-persist-'));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const now = new Date('2026-11-21T23:45:12Z');
const archiveDirectory = (): string => join(workDir, '.compact', 'default');
const archivePath = (sequence: number): string =>
  join(archiveDirectory(), `compact-2026-11-21T23-45-12Z-${sequence}.json`);

/** ~700 KB of JSON over 400 messages: CJK, emoji, nested tool results; several write batches. */
function buildRest(): Message[] {
  const rest: Message[] = [];
  for (let turn = 0; turn < 200; turn += 1) {
    const id = `toolu_${turn}`;
    rest.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `读取文件 ${turn} 😀` },
        { type: 'tool_use', id, name: 'read_file', input: { path: `src/模块-${turn}.ts`, lines: [1, turn] } },
      ],
    });
    rest.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: [{ type: 'text', text: `${'上下文压缩 "quoted" \\ emoji 🧪\n'.repeat(turn % 50)}\u2028end` }],
          is_error: turn % 7 === 0,
        },
      ],
    });
  }
  return rest;
}

function options(): ArchiveThroughWriterOptions & { logger: ReturnType<typeof createRecordingLogger> } {
  return {
    workDir,
    outputDir: '.compact',
    sessionId: 'default',
    fileWriter: new NodeFileWriter(),
    logger: createRecordingLogger(),
    now: () => now,
  };
}

describe('the archive through the Node writer (streamed)', () => {
  it('writes exactly JSON.stringify(rest, null, 2), mode 0600, no temp file left', async () => {
    const rest = buildRest();
    const settings = options();
    expect(await archiveThroughWriter(rest, settings)).toBe(archivePath(1));
    const expected = JSON.stringify(rest, null, 2);
    expect(Buffer.byteLength(expected)).toBeGreaterThan(4 * 64 * 1024);
    expect(await readFile(archivePath(1), 'utf8')).toBe(expected);
    expect((await stat(archivePath(1))).mode & 0o777).toBe(0o600);
    expect(await readdir(archiveDirectory())).toEqual([archivePath(1).split('/').at(-1)]);
    expect(settings.logger.warnings).toEqual([]);
  });

  it('writes an empty Rest as []', async () => {
    expect(await archiveThroughWriter([], options())).toBe(archivePath(1));
    expect(await readFile(archivePath(1), 'utf8')).toBe('[]');
  });

  it('reuses a file that already holds exactly this archive, and skips one holding another', async () => {
    const rest = buildRest();
    const listless = (): ArchiveThroughWriterOptions => {
      const writer = new NodeFileWriter();
      return { ...options(), fileWriter: { ...writer, listDir: async () => [] } };
    };
    expect(await archiveThroughWriter(rest, listless())).toBe(archivePath(1));
    expect(await archiveThroughWriter(rest, listless())).toBe(archivePath(1));
    expect(await archiveThroughWriter(rest.slice(1), listless())).toBe(archivePath(2));
    expect(await readFile(archivePath(1), 'utf8')).toBe(JSON.stringify(rest, null, 2));
    expect(await readFile(archivePath(2), 'utf8')).toBe(JSON.stringify(rest.slice(1), null, 2));
    expect((await readdir(archiveDirectory())).sort()).toEqual(
      [archivePath(1), archivePath(2)].map((path) => path.split('/').at(-1)),
    );
  });

  it('never overwrites: a same-size file with other bytes moves the archive to the next number', async () => {
    const rest = buildRest();
    const text = JSON.stringify(rest, null, 2);
    await new NodeFileWriter().ensureDir(archiveDirectory());
    await writeFile(archivePath(1), `${text.slice(0, -3)}  ]`);
    const writer = new NodeFileWriter();
    expect(await archiveThroughWriter(rest, { ...options(), fileWriter: { ...writer, listDir: async () => [] } })).toBe(
      archivePath(2),
    );
    expect(await readFile(archivePath(1), 'utf8')).toBe(`${text.slice(0, -3)}  ]`);
    expect(await readFile(archivePath(2), 'utf8')).toBe(text);
  });

  it('logs a failed write and resolves null, leaving no temp file', async () => {
    const cyclic: Record<string, unknown> = { type: 'tool_use', id: 'toolu_1', name: 'bash' };
    cyclic.input = cyclic;
    const settings = options();
    const rest = [...buildRest(), { role: 'assistant', content: [cyclic] }] as unknown as Message[];
    expect(await archiveThroughWriter(rest, settings)).toBeNull();
    expect(settings.logger.warnings[0]).toMatch(/could not archive .*could not write .*circular/);
    expect(await readdir(archiveDirectory())).toEqual([]);
  });
});
