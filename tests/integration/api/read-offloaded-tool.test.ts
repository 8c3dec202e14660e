import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { offloadToolResult } from '../../../src/api/direct-offload.js';
import { offloadToolResults } from '../../../src/api/offload.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import type { ByteRange, ContentStore } from '../../../src/core/ports.js';
import { DEFAULT_READ_CHUNK_BYTES } from '../../../src/core/read/read-offloaded.js';
import type { Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import { createRecordingLogger, createScriptedSummarizer } from '../../fixtures/compact-fixtures.js';

let directory: string;

beforeEach(async () => {
  vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', undefined);
  vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', undefined);
  directory = await mkdtemp(join(tmpdir(), 'aco-read-tool-'));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(directory, { recursive: true, force: true });
});

/** A store that counts its range reads and the bytes they ask for. */
function countReads(store: ContentStore): {
  store: ContentStore;
  reads: { calls: number; bytes: number; whole: number };
} {
  const reads = { calls: 0, bytes: 0, whole: 0 };
  return {
    reads,
    store: {
      ...store,
      async get(key: string, range?: ByteRange) {
        reads.calls += 1;
        if (range?.length === undefined) reads.whole += 1;
        else reads.bytes += range.length;
        return store.get(key, range);
      },
    },
  };
}

/** About 10 MB of log lines, numbered, with a multi-byte character on every 7th. */
function buildTenMegabyteLog(): { text: string; lineCount: number } {
  const lines: string[] = [];
  let bytes = 0;
  for (let index = 1; bytes < 10 * 1024 * 1024; index += 1) {
    const line = `${String(index).padStart(7, '0')} ${index % 7 === 0 ? 'WARN données reçues — 中文 😀' : 'INFO request handled in 12 ms'} ${'.'.repeat(60)}`;
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  return { text: `${lines.join('\n')}\n`, lineCount: lines.length };
}

describe('the read tool on the file store', () => {
  it('reads the first page of a 10 MB value with one range read of one chunk', async () => {
    const fileStore = createFileStore({ dir: directory });
    const { text, lineCount } = buildTenMegabyteLog();
    await fileStore.putIfAbsent('tool-result-big.md', text);
    const { store, reads } = countReads(fileStore);
    const tool = createReadOffloadedTool({ store });

    const page = await tool.execute({ ref: '[Content offloaded to: ./tool-result-big.md]' });
    expect(page.length).toBeLessThanOrEqual(20_000);
    expect(page.startsWith('     1\t0000001 INFO request handled in 12 ms')).toBe(true);
    expect(page).toMatch(
      /\n\[lines 1-\d+ of a 10,48\d,\d{3}-byte text; more follow: call read_offloaded with \{"ref":".\/tool-result-big.md","offset":\d+\} for the next page\]$/,
    );
    expect(reads).toEqual({ calls: 1, bytes: DEFAULT_READ_CHUNK_BYTES, whole: 0 });

    // a middle page scans forward by chunks, and the next one starts from what it learned
    const middle = Math.floor(lineCount / 2);
    const middlePage = await tool.execute({ ref: './tool-result-big.md', offset: middle, limit: 3 });
    expect(middlePage.split('\n').slice(0, 3)).toEqual(
      text
        .split('\n')
        .slice(middle - 1, middle + 2)
        .map((line, index) => `${String(middle + index).padStart(6)}\t${line}`),
    );
    expect(reads.whole).toBe(0);
    const afterMiddle = reads.bytes;
    await tool.execute({ ref: './tool-result-big.md', offset: middle + 3, limit: 3 });
    // from the nearest position remembered (at most 1 MB back), not from the start: 5 MB
    expect(reads.bytes - afterMiddle).toBeLessThanOrEqual(5 * DEFAULT_READ_CHUNK_BYTES);
    expect(afterMiddle).toBeGreaterThan(5 * 1024 * 1024);
  });

  it('finds lines by pattern across the whole 10 MB value', async () => {
    const store = createFileStore({ dir: directory });
    const { text } = buildTenMegabyteLog();
    await store.putIfAbsent('tool-result-big.md', text);
    const tool = createReadOffloadedTool({ store });
    const output = await tool.execute({ ref: './tool-result-big.md', pattern: '^0099999 |^0100002 ' });
    expect(output.length).toBeLessThanOrEqual(20_000);
    expect(output).toContain(' 99999:\t0099999 INFO');
    expect(output).toContain('100002:\t0100002 WARN données reçues — 中文 😀');
    expect(output).toContain('100000-\t0100000 INFO');
    expect(output).toMatch(/\n\[2 matching lines; searched lines 1-\d+ of \d+; end of content\]$/);
  });

  it("runs the model's pattern on a linear-time engine, and tells the model its syntax", async () => {
    const store = createFileStore({ dir: directory });
    const hash = '9fceb02d0ae598e95dc970b74767f19372d61af8';
    await store.putIfAbsent('tool-result-log.md', `commit ${hash}\nMerge: 1a2b3c4\ncommit ${hash}`);
    const tool = createReadOffloadedTool({ store, contextLines: 0 });
    // a backtracking engine takes days on one such line
    expect(await tool.execute({ ref: './tool-result-log.md', pattern: '(\\w+\\s*)+:' })).toBe(
      [
        'Lines matching /(\\w+\\s*)+:/ (":" marks a match, "-" context):',
        '     2:\tMerge: 1a2b3c4',
        '[1 matching line; searched lines 1-3 of 3; end of content]',
      ].join('\n'),
    );
    expect(await tool.execute({ ref: './tool-result-log.md', pattern: '(\\w)\\1' })).toMatch(
      /^Invalid pattern .*Patterns use RE2 syntax/,
    );
    expect(tool.description).toContain('RE2 syntax');
    expect(tool.description).toContain('without backreferences or lookaround');
    expect(tool.inputSchema.properties.pattern.description).toContain('without backreferences or lookaround');
  });

  describe('with outputDir, after a real offload', () => {
    it('reads back what batch offload wrote, by its relative reference', async () => {
      const content = Array.from({ length: 300 }, (_, index) => `result line ${index + 1}`).join('\n');
      const messages: Message[] = [
        { role: 'user', content: 'list the files' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content }] },
      ];
      const result = await offloadToolResults(messages, { outputDir: directory });
      const block = (result.messages[2]!.content as Array<{ content: string }>)[0]!;
      expect(block.content).toBe('[Content offloaded to: ./tool-result-toolu_01.md]');

      const tool = createReadOffloadedTool({ outputDir: directory });
      const page = await tool.execute({ ref: block.content, offset: 299 });
      expect(page).toBe('   299\tresult line 299\n   300\tresult line 300\n[lines 299-300 of 300; end of content]');
    });

    it('reads one session of direct offload by absolute path, and refuses another session', async () => {
      const message = (id: string, text: string): Message => ({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: text }],
      });
      const mine = await offloadToolResult(message('toolu_1', 'mine\n'), { sessionId: 's1', outputDir: directory });
      const theirs = await offloadToolResult(message('toolu_1', 'theirs\n'), { sessionId: 's2', outputDir: directory });
      const referenceOf = (result: typeof mine): string =>
        (result.message.content as Array<{ content: string }>)[0]!.content;
      expect(referenceOf(mine)).toBe(`[Tool result offloaded to file: ${join(directory, 's1', 'toolu_1.md')}]`);

      const tool = createReadOffloadedTool({ outputDir: directory, sessionId: 's1' });
      expect(await tool.execute({ ref: referenceOf(mine) })).toBe('     1\tmine\n[line 1 of 1; end of content]');
      expect(await tool.execute({ ref: referenceOf(theirs) })).toBe(
        `Refused: ${JSON.stringify(join(directory, 's2', 'toolu_1.md').length > 80 ? `${join(directory, 's2', 'toolu_1.md').slice(0, 77)}...` : join(directory, 's2', 'toolu_1.md'))} belongs to another session; this tool reads only the content offloaded in session "s1".`,
      );
    });
  });

  describe('refusals', () => {
    it('never reads a file outside the directory, a relative escape, or a non-package file inside it', async () => {
      const outside = await mkdtemp(join(tmpdir(), 'aco-read-outside-'));
      try {
        await writeFile(join(outside, 'tool-result-secret.md'), 'secret');
        await writeFile(join(directory, 'notes.md'), 'private notes');
        const tool = createReadOffloadedTool({ outputDir: directory });
        for (const ref of [
          join(outside, 'tool-result-secret.md'),
          '../tool-result-secret.md',
          `./../${outside.split('/').pop()!}/tool-result-secret.md`,
          './notes.md',
          '/etc/passwd',
        ]) {
          expect(await tool.execute({ ref })).toMatch(
            /^Refused: .* is not a reference to content offloaded here, so it is not read\./,
          );
        }
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });

    it('does not follow a symlink planted under a package name', async () => {
      const outside = await mkdtemp(join(tmpdir(), 'aco-read-outside-'));
      try {
        await writeFile(join(outside, 'secret.txt'), 'secret');
        await symlink(join(outside, 'secret.txt'), join(directory, 'tool-result-evil.md'));
        const tool = createReadOffloadedTool({ outputDir: directory });
        expect(await tool.execute({ ref: './tool-result-evil.md' })).toBe(
          'No offloaded content at "./tool-result-evil.md": nothing is stored under that reference (it may have been pruned).',
        );
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });

    it('answers a missing file with a message', async () => {
      const tool = createReadOffloadedTool({ outputDir: join(directory, 'never-created') });
      expect(await tool.execute({ ref: './tool-result-nothing.md' })).toBe(
        'No offloaded content at "./tool-result-nothing.md": nothing is stored under that reference (it may have been pruned).',
      );
    });
  });

  describe('after a compaction', () => {
    /** A session that ran a build and read its long log. */
    function createSession(): Message[] {
      const log = Array.from({ length: 400 }, (_, index) =>
        index === 250
          ? 'error TS2322: Type "string" is not assignable to type "number". (src/a.ts:7)'
          : `build step ${index + 1} ok`,
      ).join('\n');
      return [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Find why the build fails.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_build', name: 'bash', input: { command: 'npm run build' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_build', is_error: true, content: log }] },
        { role: 'assistant', content: 'The build fails in src/a.ts, line 7.' },
      ];
    }

    /** The value of one ledger line of the summary message, as JSON. */
    function readLedgerLine(messages: Message[], label: string): unknown {
      const summary = String(
        messages.find((message) => String(message.content).startsWith('[Conversation compressed]'))?.content,
      );
      const line = summary.split('\n').find((text) => text.startsWith(`- ${label}: `));
      return line === undefined ? undefined : (JSON.parse(line.slice(label.length + 4)) as unknown);
    }

    const compactOptions = () => ({
      force: true,
      summarizer: createScriptedSummarizer(['## Task Status\nThe build fails.']),
      workDir: directory,
      logger: createRecordingLogger(),
    });

    it('reads the archive the summary names, after compacting into a file store: a page, then a search', async () => {
      const store = createFileStore({ dir: directory });
      const session = createSession();
      const result = await compactMessages(session, { ...compactOptions(), store });
      expect(result.compacted).toBe(true);
      const ref = readLedgerLine(result.messages, 'Archive of the compacted messages');
      expect(ref).toBe(result.archiveReference);
      expect(ref).toBe(join(directory, 'default', (ref as string).split('/').at(-1)!));

      const tool = createReadOffloadedTool({ store });
      const page = await tool.execute({ ref, limit: 5 });
      expect(page).toBe(
        [
          '     1\t[',
          '     2\t  {',
          '     3\t    "role": "user",',
          '     4\t    "content": "Find why the build fails."',
          '     5\t  },',
          `[lines 1-5 of a ${Buffer.byteLength(JSON.stringify(session.slice(1), null, 2)).toLocaleString('en-US')}-byte text; more follow: call read_offloaded with {"ref":${JSON.stringify(ref)},"offset":6} for the next page]`,
        ].join('\n'),
      );
      const found = await tool.execute({ ref, pattern: 'TS2322', limit: 1 });
      expect(found).toContain('error TS2322: Type \\"string\\" is not assignable');
    });

    it('reads the archive written under outputDir (the default file writer) with a tool over that directory and session', async () => {
      const result = await compactMessages(createSession(), { ...compactOptions(), sessionId: 'agent-7' });
      const ref = readLedgerLine(result.messages, 'Archive of the compacted messages') as string;
      expect(ref.startsWith(join(directory, '.compact', 'agent-7', 'compact-'))).toBe(true);
      const tool = createReadOffloadedTool({ outputDir: join(directory, '.compact'), sessionId: 'agent-7' });
      expect(await tool.execute({ ref, pattern: 'build fails in src' })).toContain(
        ':\t    "content": "The build fails in src/a.ts, line 7."',
      );
      const other = createReadOffloadedTool({ outputDir: join(directory, '.compact'), sessionId: 'agent-8' });
      expect(await other.execute({ ref })).toMatch(/^Refused: .* belongs to another session/);
    });

    it('opens every offloaded result the summary lists: offload, compact, then read by the listed reference', async () => {
      const store = createFileStore({ dir: directory });
      // a long explanation stays inline, so compacting the offloaded history still gains room
      const session = [
        ...createSession(),
        { role: 'user' as const, content: 'Explain it.' },
        { role: 'assistant' as const, content: 'The type of the value comes from the config. '.repeat(100) },
      ];
      const offloaded = await offloadToolResults(session, { store, charThreshold: 5000, ratioThreshold: 0 });
      const result = await compactMessages(offloaded.messages, { ...compactOptions(), store });
      expect(result.compacted).toBe(true);
      const summary = String(result.messages[1]?.content);
      const entry = summary.split('\n').find((line) => line.startsWith('  - ["'));
      const [tool, id, input, ref] = JSON.parse(entry!.slice(4)) as string[];
      expect([tool, id, input, ref]).toEqual(['bash', 'toolu_build', 'npm run build', './tool-result-toolu_build.md']);

      const readTool = createReadOffloadedTool({ store });
      expect(await readTool.execute({ ref, offset: 251, limit: 1 })).toMatch(
        /^ {3}251\terror TS2322: .*\n\[line 251 of a [\d,]+-byte text; more follow/,
      );
      // and the archive holds the reference the history had
      const archived = await readTool.execute({ ref: result.archiveReference, pattern: 'Content offloaded to' });
      expect(archived).toContain('"content": "[Content offloaded to: ./tool-result-toolu_build.md]"');
    });
  });
});
