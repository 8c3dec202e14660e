/**
 * Restoration checks a file's size before reading it: on the real file system, a
 * 200 MB sparse file (created instantly by `truncate`, no data written) is skipped without
 * being read, through `NodeFileReader.size`.
 */
import { mkdtemp, realpath, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { restoreRecentFiles } from '../../../src/api/compact.js';
import type { FileReader } from '../../../src/core/ports.js';
import { NodeFileReader } from '../../../src/infrastructure/node-file-reader.js';
import { createRecordingLogger, readFileTurn } from '../../fixtures/compact-fixtures.js';

const BIG_FILE_BYTES = 200 * 1024 * 1024;

let workDir: string;

beforeEach(async () => {
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'aco-restore-size-')));
  await writeFile(join(workDir, 'a.ts'), 'export const a = "é";\n');
  await writeFile(join(workDir, 'big.log'), '');
  await truncate(join(workDir, 'big.log'), BIG_FILE_BYTES);
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('NodeFileReader.size', () => {
  it('gives the size in bytes, not characters', async () => {
    expect(await new NodeFileReader().size(join(workDir, 'a.ts'))).toBe(Buffer.byteLength('export const a = "é";\n'));
  });

  it('gives the size of a sparse file without reading it', async () => {
    expect(await new NodeFileReader().size(join(workDir, 'big.log'))).toBe(BIG_FILE_BYTES);
  });
});

describe('restoreRecentFiles with a file too large for its budget', () => {
  it('skips a 200 MB file without reading it, and restores the others', async () => {
    const reads: string[] = [];
    const nodeReader = new NodeFileReader();
    const fileReader: FileReader = {
      ...nodeReader,
      read: async (path) => {
        reads.push(path);
        return nodeReader.read(path);
      },
    };
    const logger = createRecordingLogger();
    const restored = await restoreRecentFiles([...readFileTurn('a.ts'), ...readFileTurn('big.log')], {
      workDir,
      fileReader,
      logger,
    });
    expect(restored.map((message) => message.content)).toEqual([
      '[Restored after compact] a.ts:\nexport const a = "é";\n',
    ]);
    expect(reads).toEqual([join(workDir, 'a.ts')]);
    expect(logger.infos).toEqual([
      `restore: skipped "big.log": ${BIG_FILE_BYTES} bytes, at least ${BIG_FILE_BYTES / 128} tokens > maxRestoreTokensPerFile (5000)`,
    ]);
  });
});
