/**
 * `offloadToolResultsWithWriter`: batch offload through a caller's FileWriter, here the real
 * `NodeFileWriter` in a temp directory or a writer made of some of its methods (a writer with
 * only `ensureDir` and `writeFile` gets plain writes). Writers that fail are small fakes, one per
 * fault: a write refused by the OS, a directory that cannot be created, a writer that never
 * creates anything.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadToolResultsWithWriter } from '../../../src/api/offload.js';
import { ContextError, WriteFailedError } from '../../../src/core/errors.js';
import type { FileWriter } from '../../../src/core/ports.js';
import { NodeFileWriter } from '../../../src/infrastructure/node-file-writer.js';
import {
  blocksOf,
  clearOffloadEnvironment,
  conversation,
  deepFreeze,
  text,
  toolResult,
  userMessage,
} from '../../fixtures/offload-fixtures.js';

let root: string;
const node = new NodeFileWriter();

clearOffloadEnvironment();
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-offload-writer-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A writer with only the two methods every FileWriter has, writing real files. */
function createPlainWriter(): FileWriter {
  return { ensureDir: node.ensureDir, writeFile: node.writeFile };
}

/** A plain writer whose write of a path fails with what `fail` returns for it (nothing: the write happens). */
function createFailingWriter(fail: (path: string) => unknown): FileWriter {
  return {
    ensureDir: node.ensureDir,
    writeFile: async (path, content) => {
      const failure = fail(path);
      if (failure !== undefined) throw failure;
      await node.writeFile(path, content);
    },
  };
}

/** The files under `directory`, but the package's marker, with their contents. */
async function readFiles(directory: string): Promise<Record<string, string>> {
  const names = (await readdir(directory)).filter((name) => name !== '.agent-context-offload').sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(join(directory, name), 'utf8')] as const)),
  );
}

describe('offloadToolResultsWithWriter: paths and references', () => {
  it('creates the output directory and its parents before writing into it', async () => {
    const outputDir = join(root, 'deep', 'nested', 'out');
    await offloadToolResultsWithWriter(conversation(text(200)), outputDir, createPlainWriter());
    expect(await readFiles(outputDir)).toEqual({ 'tool-result-toolu_01abc.md': text(200) });
  });

  it('lists absolute paths when the writer resolves them, while references stay relative', async () => {
    const outputDir = relative(process.cwd(), join(root, 'rel'));
    const result = await offloadToolResultsWithWriter(conversation(text(200)), outputDir, node);
    expect(result.files).toEqual([join(root, 'rel', 'tool-result-toolu_01abc.md')]);
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-toolu_01abc.md]');
  });

  it('joins outputDir and the name with one slash when the writer does not resolve paths', async () => {
    const result = await offloadToolResultsWithWriter(conversation(text(200)), `${root}/`, createPlainWriter());
    expect(result.files).toEqual([`${root}/tool-result-toolu_01abc.md`]);
  });

  it("writes the file's path into the reference with reference: 'absolute'", async () => {
    const result = await offloadToolResultsWithWriter(conversation(text(200)), root, node, { reference: 'absolute' });
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
      `[Content offloaded to: ${join(root, 'tool-result-toolu_01abc.md')}]`,
    );
  });
});

describe('offloadToolResultsWithWriter: a writer of only ensureDir and writeFile', () => {
  it('writes under the planned name, replacing what was there: it cannot tell whether a file exists', async () => {
    await writeFile(join(root, 'tool-result-t.md'), 'old');
    const result = await offloadToolResultsWithWriter(
      [userMessage(toolResult('t', text(200)))],
      root,
      createPlainWriter(),
    );
    expect(await readFiles(root)).toEqual({ 'tool-result-t.md': text(200) });
    expect(result.files).toEqual([`${root}/tool-result-t.md`]);
  });

  it('gives a, a (duplicate) and a-1 three files: no content lost', async () => {
    const messages = [
      userMessage(toolResult('a', text(150, 'p')), toolResult('a', text(150, 'q')), toolResult('a-1', text(150, 'r'))),
    ];
    const result = await offloadToolResultsWithWriter(messages, root, createPlainWriter());
    expect(new Set(result.files).size).toBe(3);
    expect(await Promise.all(result.files.map((file) => readFile(file, 'utf8')))).toEqual([
      text(150, 'p'),
      text(150, 'q'),
      text(150, 'r'),
    ]);
  });
});

describe('offloadToolResultsWithWriter: a writer that lists its directory', () => {
  it('lists the directory once after a taken name and creates no file per name tried', async () => {
    for (let index = 0; index < 50; index++)
      await writeFile(join(root, index === 0 ? 'tool-result-a.md' : `tool-result-a-${index}.md`), `other ${index}`);
    // counting calls is the point here: one listing, not one probe per taken name
    const calls = { listDir: 0, create: 0 };
    const counting: FileWriter = {
      ...node,
      listDir: (path) => (calls.listDir++, node.listDir(path)),
      createExclusive: (path, content) => (calls.create++, node.createExclusive(path, content)),
      createExclusiveFromParts: (path, parts) => (calls.create++, node.createExclusiveFromParts(path, parts)),
    };
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], root, counting);
    expect(result.files).toEqual([join(root, 'tool-result-a-50.md')]);
    expect(calls).toEqual({ listDir: 1, create: 2 });
  });

  it('finds an identical file among the taken suffixes, so a rerun in a shared directory writes nothing new', async () => {
    await writeFile(join(root, 'tool-result-a.md'), 'other');
    await writeFile(join(root, 'tool-result-a-1.md'), text(300));
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], root, node);
    expect(result.files).toEqual([join(root, 'tool-result-a-1.md')]);
    expect(await readFiles(root)).toEqual({ 'tool-result-a.md': 'other', 'tool-result-a-1.md': text(300) });
  });
});

describe('offloadToolResultsWithWriter: bad options', () => {
  /** A writer that must not be reached: a write through it fails the test's assertion on the error. */
  const unreachable: FileWriter = {
    ensureDir: () => Promise.reject(new Error('ensureDir reached')),
    writeFile: () => Promise.reject(new Error('writeFile reached')),
  };

  it('rejects an empty outputDir and a writer without its methods', async () => {
    await expect(offloadToolResultsWithWriter(conversation(text(500)), '', unreachable)).rejects.toThrow(
      /outputDir must be a non-blank string, got ""/,
    );
    await expect(
      offloadToolResultsWithWriter(conversation(text(500)), root, { ensureDir: async () => undefined } as never),
    ).rejects.toThrow(/writer must be a FileWriter with a writeFile method/);
  });

  it.each([['out\nput'], ['out\u001b[31m'], ['   '], ['a\u0000b']])(
    'refuses the outputDir %j before anything is written',
    async (outputDir) => {
      await expect(
        offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], outputDir, unreachable),
      ).rejects.toMatchObject({
        code: 'INVALID_OPTION',
        message: expect.stringMatching(/^outputDir must (be a non-blank string|not contain control characters)/),
      });
    },
  );
});

describe('offloadToolResultsWithWriter: faults', () => {
  it('rejects a failed write with WRITE_FAILED, the OS error as cause, and the input unchanged', async () => {
    const cause = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const writer = createFailingWriter((path) => (path.endsWith('b.md') ? cause : undefined));
    const messages = deepFreeze([userMessage(toolResult('a', text(300))), userMessage(toolResult('b', text(300)))]);
    const snapshot = structuredClone(messages);
    const error: unknown = await offloadToolResultsWithWriter(messages, root, writer).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WriteFailedError);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause, message: expect.stringContaining('tool-result-b.md') });
    expect(messages).toEqual(snapshot);
  });

  it('rejects with WRITE_FAILED when the directory cannot be created, writing nothing', async () => {
    const cause = new Error('EACCES');
    const writer: FileWriter = { ensureDir: () => Promise.reject(cause), writeFile: node.writeFile };
    const error: unknown = await offloadToolResultsWithWriter(conversation(text(300)), join(root, 'out'), writer).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause });
    expect(await readdir(root)).toEqual([]);
  });

  it('passes a ContextError from the writer through as it is', async () => {
    const own = new WriteFailedError('disk quota', { cause: new Error('EDQUOT') });
    await expect(
      offloadToolResultsWithWriter(
        conversation(text(300)),
        root,
        createFailingWriter(() => own),
      ),
    ).rejects.toBe(own);
    expect(own).toBeInstanceOf(ContextError);
  });

  it('fails with WRITE_FAILED rather than spinning when a writer never creates anything', async () => {
    const writer: FileWriter = { ...createPlainWriter(), createExclusive: async () => 'exists' };
    await expect(
      offloadToolResultsWithWriter([userMessage(toolResult('t', text(200)))], root, writer),
    ).rejects.toMatchObject({
      code: 'WRITE_FAILED',
      message: expect.stringContaining('no free file name'),
    });
  });

  it('starts no write after a failure and settles the running ones before rejecting', async () => {
    let running = 0;
    let maxRunning = 0;
    let started = 0;
    const writer: FileWriter = {
      ensureDir: async () => undefined,
      writeFile: async (path) => {
        started++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        // a few turns of the microtask queue: the writes overlap, and the first to fail is r0
        for (let turn = 0; turn < 3; turn++) await Promise.resolve();
        running--;
        if (path.endsWith('r0.md')) throw new Error('EIO');
      },
    };
    const messages = Array.from({ length: 100 }, (_, index) => userMessage(toolResult(`r${index}`, text(200))));
    await expect(offloadToolResultsWithWriter(messages, root, writer)).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(running).toBe(0);
    expect(maxRunning).toBeGreaterThan(1);
    expect(maxRunning).toBeLessThanOrEqual(16);
    expect(started).toBeLessThan(100);
  });
});
