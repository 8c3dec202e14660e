import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offloadToolResults } from '../../../src/index.js';
import type { ContentBlock, Message } from '../../../src/index.js';
import {
  createTemporaryDirectory,
  fixturePath,
  readFixtureMessages,
  readFixtureTranscript,
  runInProcess,
} from './cli-helpers.js';

let directory: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  directory = await createTemporaryDirectory('aco-cli-offload-');
});
afterEach(async () => {
  await directory.remove();
});

function toolResultsOf(messages: readonly Message[]): Array<{ tool_use_id: string; content: unknown }> {
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : (message.content.filter((block: ContentBlock) => block.type === 'tool_result') as never[]),
  );
}

/** Reads every offload reference of a history back from its file, as in the original. */
async function restoreReferences(messages: readonly Message[], outputDir: string): Promise<unknown[]> {
  return Promise.all(
    toolResultsOf(messages).map(async (block) => {
      const match =
        typeof block.content === 'string' ? /^\[Content offloaded to: \.\/(.+\.md)\]$/.exec(block.content) : null;
      return match === null ? block.content : readFile(join(outputDir, match[1]!), 'utf8');
    }),
  );
}

describe('agent-context offload', () => {
  it('writes the files, the new history to stdout and the stats to stderr', async () => {
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess(['offload', fixturePath('messages.json'), '--out', outputDir]);
    expect(run.exitCode).toBe(0);
    const history = JSON.parse(run.stdout) as Message[];
    expect(Array.isArray(history)).toBe(true);
    expect(run.stderr).toMatch(/^offload {2}.*messages\.json \(JSON array of messages, 11 messages\)\n/);
    expect(run.stderr).toContain(`offloaded 3 tool results to ${outputDir} (3 files)`);
    expect(run.stderr).toMatch(/freed 2,147 chars; tokens 1,073 → \d[\d,]* \(-\d+\.\d%\)/);
    expect(run.stderr).toContain('history: standard output (JSON array)');
    expect((await readdir(outputDir)).sort()).toEqual([
      '.agent-context-offload',
      'tool-result-toolu_01.md',
      'tool-result-toolu_02.md',
      'tool-result-toolu_04.md',
    ]);

    const original = await readFixtureMessages('messages.json');
    const restored = await restoreReferences(history, outputDir);
    expect(restored).toEqual(
      toolResultsOf(original).map((block) =>
        typeof block.content === 'string' ? block.content : JSON.stringify(block.content),
      ),
    );
  });

  it('gives the same history as the library on the same messages', async () => {
    const outputDir = join(directory.path, 'cli');
    const run = await runInProcess(['offload', fixturePath('claude-code-session.jsonl'), '--out', outputDir]);
    const expected = await offloadToolResults(await readFixtureMessages('claude-code-session.jsonl'), {
      outputDir: join(directory.path, 'library'),
    });
    expect(JSON.parse(run.stdout)).toEqual(expected.messages);
    expect((await readdir(outputDir)).length).toBe(expected.files.length + 1); // and the marker
  });

  it('with -o writes the history to the file and the stats to stdout', async () => {
    const outputFile = join(directory.path, 'nested', 'smaller.json');
    const run = await runInProcess([
      'offload',
      fixturePath('messages.jsonl'),
      '--out',
      join(directory.path, 'offload'),
      '-o',
      outputFile,
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('offloaded 3 tool results');
    expect(run.stdout).toContain(`history: ${outputFile} (JSON array of messages)`);
    expect(JSON.parse(await readFile(outputFile, 'utf8'))).toHaveLength(11);
  });

  it('keeps a request body a request body (system, tools, model kept)', async () => {
    const outputFile = join(directory.path, 'body.json');
    const run = await runInProcess([
      'offload',
      fixturePath('request-body.json'),
      '--out',
      join(directory.path, 'offload'),
      '--output',
      outputFile,
    ]);
    expect(run.exitCode).toBe(0);
    const original = JSON.parse(await readFile(fixturePath('request-body.json'), 'utf8')) as Record<string, unknown>;
    const written = JSON.parse(await readFile(outputFile, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(Object.keys(original));
    expect({ ...written, messages: undefined }).toEqual({ ...original, messages: undefined });
    expect(written.messages).toHaveLength((original.messages as unknown[]).length);
    expect(JSON.stringify(written.messages)).toContain('[Content offloaded to: ./tool-result-toolu_02.md]');
  });

  it('writes a Claude Code log as a JSON array of messages', async () => {
    const run = await runInProcess([
      'offload',
      fixturePath('claude-code-session.jsonl'),
      '--out',
      join(directory.path, 'offload'),
    ]);
    const history = JSON.parse(run.stdout) as Message[];
    expect(history.map((message) => message.role)).toEqual([
      'user',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
    ]);
    expect(run.stderr).toContain('(Claude Code session log, 10 messages)');
    expect(run.stderr).toContain('offloaded 5 tool results');
  });

  it('reads standard input with -', async () => {
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess(['offload', '-', '--out', outputDir], {
      stdin: await readFile(fixturePath('messages.json'), 'utf8'),
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/^offload {2}stdin /);
    expect(await readdir(outputDir)).toHaveLength(4); // three results and the marker
  });

  it('follows --char-threshold and --exclude-tools', async () => {
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess([
      'offload',
      fixturePath('messages.json'),
      '--out',
      outputDir,
      '--char-threshold',
      '200',
      '--exclude-tools',
      'read_file,edit_file',
    ]);
    expect(run.exitCode).toBe(0);
    expect((await readdir(outputDir)).sort()).toEqual([
      '.agent-context-offload',
      'tool-result-toolu_02.md',
      'tool-result-toolu_04.md',
    ]);
    expect(run.stderr).toContain('thresholds: 200 chars, ratio 0.2');
  });

  it('writes nothing and says why when the ratio gate skips; the history is unchanged', async () => {
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess([
      'offload',
      fixturePath('messages.json'),
      '--out',
      outputDir,
      '--ratio-threshold',
      '0.9',
    ]);
    expect(run.exitCode).toBe(0);
    expect(existsSync(outputDir)).toBe(false);
    expect(run.stderr).toContain(
      'nothing offloaded: the 3 results that qualify are 77.8% of the history, below the ratio threshold (90.0%)',
    );
    expect(JSON.parse(run.stdout)).toEqual(await readFixtureMessages('messages.json'));
  });

  it('follows OFFLOAD_CHAR_THRESHOLD and OFFLOAD_RATIO_THRESHOLD', async () => {
    const run = await runInProcess(['offload', fixturePath('messages.json'), '--out', join(directory.path, 'o')], {
      env: { OFFLOAD_CHAR_THRESHOLD: '100000', OFFLOAD_RATIO_THRESHOLD: '0' },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('nothing offloaded: no tool result has 100,000 chars or more (char threshold)');
  });

  it.each([
    ['0', '0'],
    ['-5', '-5'],
  ])('exits 2 for --char-threshold %s, naming the flag, before writing anything', async (value, shown) => {
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess([
      'offload',
      fixturePath('messages.json'),
      '--out',
      outputDir,
      '--char-threshold',
      value,
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      `agent-context: --char-threshold must be a number >= 1, got "${shown}"\nRun "agent-context offload --help" for usage.\n`,
    );
    expect(existsSync(outputDir)).toBe(false);
  });

  it('-o may name the input itself: the file is replaced whole, atomically', async () => {
    const path = join(directory.path, 'h.json');
    await copyFile(fixturePath('messages.json'), path);
    const outputDir = join(directory.path, 'offload');
    const run = await runInProcess(['offload', path, '--out', outputDir, '-o', path]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`history: ${path} (JSON array)`);
    const history = JSON.parse(await readFile(path, 'utf8')) as Message[];
    const expected = await offloadToolResults(await readFixtureMessages('messages.json'), {
      outputDir: join(directory.path, 'library'),
    });
    expect(history).toEqual(expected.messages);
    expect((await readdir(directory.path)).sort()).toEqual(['h.json', 'library', 'offload']);
  });

  it('leaves the input as it was when -o cannot be written', async () => {
    const path = join(directory.path, 'h.json');
    await copyFile(fixturePath('messages.json'), path);
    const original = await readFile(path);
    // The output's directory is a file: nothing can be written there.
    const run = await runInProcess([
      'offload',
      path,
      '--out',
      join(directory.path, 'offload'),
      '-o',
      join(path, 'out.json'),
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^agent-context: cannot write ${path}/out\\.json: `));
    expect((await readFile(path)).equals(original)).toBe(true);
  });

  it('exits 1 when the output directory cannot be written', async () => {
    const blocker = join(directory.path, 'file');
    await runInProcess(['offload', fixturePath('messages.json'), '--out', join(directory.path, 'ok'), '-o', blocker]);
    const run = await runInProcess(['offload', fixturePath('messages.json'), '--out', join(blocker, 'sub')]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it("offloads a request body's results only (its system message is never written as a result)", async () => {
    const transcript = await readFixtureTranscript('request-body-string-system.json');
    const run = await runInProcess([
      'offload',
      fixturePath('request-body-string-system.json'),
      '--out',
      join(directory.path, 'o'),
    ]);
    const written = JSON.parse(run.stdout) as { system: unknown; messages: unknown[] };
    expect(written.system).toBe('You are a coding agent.');
    expect(written.messages).toHaveLength(transcript.messages.length - 1);
  });
});
