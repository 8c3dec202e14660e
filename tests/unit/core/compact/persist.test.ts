import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  archiveRest,
  formatArchiveFileName,
  formatArchiveTimestamp,
  nextArchiveSequence,
} from '../../../../src/core/compact/persist.js';
import type { FileWriter } from '../../../../src/core/ports.js';
import type { Message } from '../../../../src/core/types.js';
import {
  createRecordingLogger,
  MemoryFileSystem,
  archiveThroughWriter,
  type ArchiveThroughWriterOptions,
} from '../../../fixtures/compact-fixtures.js';

const now = new Date('2026-11-21T23:45:12.789Z');
const rest: Message[] = [
  { role: 'user', content: 'Fix the bug.' },
  { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
];
const directory = '/work/.compact/default';

function setUp(overrides: Partial<ArchiveThroughWriterOptions> = {}) {
  const fileSystem = new MemoryFileSystem();
  const logger = createRecordingLogger();
  const options: ArchiveThroughWriterOptions = {
    workDir: '/work',
    outputDir: '.compact',
    sessionId: 'default',
    fileWriter: fileSystem.writer,
    logger,
    now: () => now,
    ...overrides,
  };
  return { fileSystem, logger, options };
}

describe('archive file name', () => {
  it('is compact-<UTC ISO to the second, ":" as "-">-<sequence>.json', () => {
    expect(formatArchiveTimestamp(now)).toBe('2026-11-21T23-45-12Z');
    expect(formatArchiveFileName(now, 1)).toBe('compact-2026-11-21T23-45-12Z-1.json');
    expect(formatArchiveFileName(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), 12)).toBe(
      'compact-2026-01-02T03-04-05Z-12.json',
    );
  });

  it('takes the sequence after the highest archive already there, ignoring other names', () => {
    expect(nextArchiveSequence([])).toBe(1);
    expect(
      nextArchiveSequence([
        'compact-2026-11-21T23-45-12Z-1.json',
        'compact-2026-11-22T00-00-00Z-7.json',
        'compact-x-99.json',
        'notes.txt',
        'compact-2026-11-21T23-45-12Z-3.json.tmp',
      ]),
    ).toBe(8);
  });
});

describe('the archive through a FileWriter', () => {
  it('writes Rest as indented JSON to <workDir>/<outputDir>/<sessionId>/compact-...-1.json', async () => {
    const { fileSystem, options } = setUp();
    const path = await archiveThroughWriter(rest, options);
    expect(path).toBe(`${directory}/compact-2026-11-21T23-45-12Z-1.json`);
    expect(fileSystem.files.get(path as string)).toBe(JSON.stringify(rest, null, 2));
    expect(JSON.parse(fileSystem.files.get(path as string) as string)).toEqual(rest);
    expect(fileSystem.directories.has(directory)).toBe(true);
  });

  it('continues the sequence from the files of the same second on disk (no global counter)', async () => {
    const { fileSystem, options } = setUp();
    fileSystem.files.set(`${directory}/compact-2026-11-21T23-45-12Z-3.json`, '[]');
    fileSystem.files.set(`${directory}/compact-2026-11-20T10-00-00Z-7.json`, '[]');
    fileSystem.files.set('/work/.compact/other-session/compact-2026-11-21T23-45-12Z-9.json', '[]');
    expect(await archiveThroughWriter(rest, options)).toBe(`${directory}/compact-2026-11-21T23-45-12Z-4.json`);
    expect(await archiveThroughWriter(rest, options)).toBe(`${directory}/compact-2026-11-21T23-45-12Z-5.json`);
  });

  it('starts a new second at 1, whatever the archives of earlier seconds are numbered', async () => {
    const { fileSystem, options } = setUp();
    fileSystem.files.set(`${directory}/compact-2026-11-20T10-00-00Z-7.json`, '[]');
    expect(await archiveThroughWriter(rest, options)).toBe(`${directory}/compact-2026-11-21T23-45-12Z-1.json`);
  });

  it('moves to the next number when the name was taken meanwhile (exclusive create)', async () => {
    const { fileSystem, options } = setUp();
    const writer: FileWriter = { ...fileSystem.writer, listDir: async () => [] };
    fileSystem.files.set(`${directory}/compact-2026-11-21T23-45-12Z-1.json`, 'another compaction');
    expect(await archiveThroughWriter(rest, { ...options, fileWriter: writer })).toBe(
      `${directory}/compact-2026-11-21T23-45-12Z-2.json`,
    );
    expect(fileSystem.files.get(`${directory}/compact-2026-11-21T23-45-12Z-1.json`)).toBe('another compaction');
  });

  it('never lets two concurrent compactions clash', async () => {
    const { fileSystem, options } = setUp();
    const paths = await Promise.all([
      archiveThroughWriter(rest, options),
      archiveThroughWriter([rest[0] as Message], options),
    ]);
    expect(new Set(paths).size).toBe(2);
    expect(fileSystem.files.size).toBe(2);
  });

  it('reuses a file that already holds exactly this content', async () => {
    const { fileSystem, options } = setUp();
    const path = `${directory}/compact-2026-11-21T23-45-12Z-1.json`;
    fileSystem.files.set(path, JSON.stringify(rest, null, 2));
    const writer: FileWriter = { ...fileSystem.writer, listDir: async () => [] };
    expect(await archiveThroughWriter(rest, { ...options, fileWriter: writer })).toBe(path);
  });

  it('writes plainly with a writer of only ensureDir and writeFile', async () => {
    const { fileSystem, options } = setUp();
    expect(await archiveThroughWriter(rest, { ...options, fileWriter: fileSystem.plainWriter })).toBe(
      `${directory}/compact-2026-11-21T23-45-12Z-1.json`,
    );
    // the store's own folder first (where the package marks what it made), then the session's
    expect(fileSystem.events).toEqual([
      `ensureDir /work/.compact`,
      `ensureDir ${directory}`,
      `writeFile ${directory}/compact-2026-11-21T23-45-12Z-1.json`,
    ]);
  });

  it('uses the writer’s resolvePath and an absolute outputDir as is', async () => {
    const { fileSystem, options } = setUp({ outputDir: '/archive', sessionId: 's-1' });
    const joined: string[][] = [];
    const writer: FileWriter = {
      ...fileSystem.writer,
      resolvePath: (...segments) => (joined.push(segments), segments.join('|')),
    };
    expect(await archiveThroughWriter(rest, { ...options, fileWriter: writer })).toBe(
      '/work|/archive|s-1|compact-2026-11-21T23-45-12Z-1.json',
    );
    expect(await archiveThroughWriter(rest, options)).toBe('/archive/s-1/compact-2026-11-21T23-45-12Z-1.json');
    expect(joined[0]).toEqual(['/work', '/archive']);
  });

  it('logs a write failure and resolves null', async () => {
    const { fileSystem, options, logger } = setUp();
    fileSystem.failWrites = true;
    expect(await archiveThroughWriter(rest, options)).toBeNull();
    expect(logger.warnings).toEqual([
      `compact: could not archive the compacted messages: could not write /work/.compact: EROFS: read-only file system`,
    ]);
  });
});

describe('archiveRest in a store that answers exists', () => {
  /** A memory store with `exists`, whose listing fails: the archive must never need it. */
  function createProbedStore() {
    const memory = createMemoryStore();
    const asked: string[] = [];
    const store = {
      ...memory,
      list: () => {
        throw new Error('listed');
      },
      exists: async (key: string) => {
        asked.push(key);
        return (await memory.stat(key)) !== undefined;
      },
    };
    return { store, asked };
  }

  it('asks about the numbered names of its second instead of listing the store', async () => {
    const { store, asked } = createProbedStore();
    for (const sequence of [1, 2]) await store.put(`s1/compact-2026-11-21T23-45-12Z-${sequence}.json`, '[]');
    const logger = createRecordingLogger();
    const outcome = await archiveRest(rest, { store, sessionId: 's1', logger, now: () => now });
    expect(outcome.path).toBe(store.referenceFor('s1/compact-2026-11-21T23-45-12Z-3.json'));
    expect(asked).toHaveLength(32);
    expect(asked[0]).toBe('s1/compact-2026-11-21T23-45-12Z-1.json');
    expect(logger.warnings).toEqual([]);
  });
});

describe('the archive through a writer that takes parts (createExclusiveFromParts)', () => {
  const cjkRest: Message[] = [
    { role: 'user', content: '修复数据库迁移测试 😀' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '上下文压缩' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/数据.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'emoji 🧪 and "quotes"\n' }] },
      ],
    },
  ];

  /** The memory writer, taking parts; its `createExclusive` must not be used when parts are taken. */
  function createPartsWriter(fileSystem: MemoryFileSystem) {
    const partsPerCall: string[][] = [];
    const writer: FileWriter = {
      ...fileSystem.writer,
      createExclusive: async () => {
        throw new Error('createExclusive called although the writer takes parts');
      },
      createExclusiveFromParts: async (path, parts) => {
        const list = [...parts];
        partsPerCall.push(list);
        return fileSystem.writer.createExclusive(path, list.join(''));
      },
    };
    return { writer, partsPerCall };
  }

  it('streams Rest one message per part, joined exactly JSON.stringify(rest, null, 2)', async () => {
    const { fileSystem, options } = setUp();
    const { writer, partsPerCall } = createPartsWriter(fileSystem);
    const path = await archiveThroughWriter(cjkRest, { ...options, fileWriter: writer });
    expect(path).toBe(`${directory}/compact-2026-11-21T23-45-12Z-1.json`);
    expect(fileSystem.files.get(path as string)).toBe(JSON.stringify(cjkRest, null, 2));
    expect(partsPerCall).toHaveLength(1);
    expect(partsPerCall[0]).toHaveLength(cjkRest.length + 1);
  });

  it('moves to the next number with fresh parts when the name was taken meanwhile', async () => {
    const { fileSystem, options } = setUp();
    const { writer, partsPerCall } = createPartsWriter(fileSystem);
    fileSystem.files.set(`${directory}/compact-2026-11-21T23-45-12Z-1.json`, 'another compaction');
    const path = await archiveThroughWriter(cjkRest, {
      ...options,
      fileWriter: { ...writer, listDir: async () => [] },
    });
    expect(path).toBe(`${directory}/compact-2026-11-21T23-45-12Z-2.json`);
    expect(partsPerCall.map((parts) => parts.join(''))).toEqual([
      JSON.stringify(cjkRest, null, 2),
      JSON.stringify(cjkRest, null, 2),
    ]);
    expect(fileSystem.files.get(`${directory}/compact-2026-11-21T23-45-12Z-1.json`)).toBe('another compaction');
  });

  it('reuses a file that already holds exactly this content', async () => {
    const { fileSystem, options } = setUp();
    const { writer } = createPartsWriter(fileSystem);
    const path = `${directory}/compact-2026-11-21T23-45-12Z-1.json`;
    fileSystem.files.set(path, JSON.stringify(cjkRest, null, 2));
    expect(
      await archiveThroughWriter(cjkRest, { ...options, fileWriter: { ...writer, listDir: async () => [] } }),
    ).toBe(path);
    expect(fileSystem.files.size).toBe(1);
  });

  it('works with createExclusiveFromParts alone, called on the writer (this)', async () => {
    const { fileSystem, options } = setUp();
    class PartsOnlyWriter implements FileWriter {
      readonly written = new Map<string, string>();
      async ensureDir(): Promise<void> {}
      async writeFile(): Promise<void> {
        throw new Error('writeFile called although the writer creates exclusively');
      }
      async createExclusiveFromParts(
        path: string,
        parts: Iterable<string>,
      ): Promise<'created' | 'identical' | 'exists'> {
        this.written.set(path, [...parts].join(''));
        return 'created';
      }
    }
    const writer = new PartsOnlyWriter();
    const path = await archiveThroughWriter(cjkRest, { ...options, fileWriter: writer });
    expect(writer.written.get(path as string)).toBe(JSON.stringify(cjkRest, null, 2));
    expect(fileSystem.files.size).toBe(0);
  });

  it('logs a message that cannot be serialized and resolves null', async () => {
    const { fileSystem, options, logger } = setUp();
    const { writer } = createPartsWriter(fileSystem);
    const cyclic: Record<string, unknown> = { type: 'tool_use', id: 'toolu_1', name: 'bash' };
    cyclic.input = cyclic;
    const broken = [{ role: 'assistant', content: [cyclic] }] as unknown as Message[];
    expect(await archiveThroughWriter(broken, { ...options, fileWriter: writer })).toBeNull();
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/could not archive the compacted messages.*circular/);
  });
});
