import { describe, expect, it, vi } from 'vitest';
import { compactMessagesWith, type CompactPorts } from '../../../../src/core/compact/compact.js';
import type { ResolvedCompactOptions } from '../../../../src/core/compact/compact-options.js';
import { createExtractiveSummarizer } from '../../../../src/core/compact/summary/extractive-summarizer.js';
import { parseLedger, stripLedger } from '../../../../src/core/compact/summary/ledger.js';
import { computeSummaryMaxTokens } from '../../../../src/core/compact/summary/summarize-with-llm.js';
import { SummarizerFailedError, type ContextError } from '../../../../src/core/errors.js';
import { appendPreview, buildBatchReference } from '../../../../src/core/offload/offload-reference.js';
import { countHistoryTokens, MESSAGE_TOKEN_OVERHEAD } from '../../../../src/core/text/tokens.js';
import type { ContentStore } from '../../../../src/core/ports.js';
import type { Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  archiveTarget,
  charCounter,
  createRecordingLogger,
  createRecordingSleep,
  createResolvedOptions,
  createScriptedSummarizer,
  deepFreeze,
  MemoryFileSystem,
  readFileTurn,
} from '../../../fixtures/compact-fixtures.js';

const now = new Date('2026-11-21T23:45:12Z');
const archive1 = '/work/.compact/default/compact-2026-11-21T23-45-12Z-1.json';
const system: Message = { role: 'system', content: 'You are a coding agent.' };

function setUp(
  options: {
    files?: Record<string, string>;
    script?: Parameters<typeof createScriptedSummarizer>[0];
    resolved?: Partial<ResolvedCompactOptions>;
  } = {},
) {
  const fileSystem = new MemoryFileSystem(
    options.files ?? { '/work/src/a.ts': 'export const a = 1;', '/work/README.md': '# Readme' },
  );
  const summarizer = createScriptedSummarizer(
    options.script ?? ['## Goals & Decisions\nFix the bug.'],
    fileSystem.events,
  );
  const logger = createRecordingLogger();
  const sleep = createRecordingSleep();
  const ports: CompactPorts = {
    summarizer,
    fileReader: fileSystem.reader,
    ...archiveTarget(fileSystem.writer),
    tokenCounter: charCounter,
    logger,
    sleep,
    now: () => now,
  };
  const resolved = createResolvedOptions({ force: true, ...options.resolved });
  return {
    fileSystem,
    summarizer,
    logger,
    sleep,
    ports,
    resolved,
    run: (messages: readonly Message[]) => compactMessagesWith(messages, resolved, ports),
  };
}

/** What a read returned: long enough that a summary and the restored files take less room. */
const readOutput = (path: string): string => `contents of ${path} as the tool printed them\n${'.'.repeat(1000)}`;

/** A history of a system prompt and turns that read two files. */
function createHistory(): Message[] {
  return [
    system,
    { role: 'user', content: 'Fix the bug in src/a.ts.' },
    ...readFileTurn('README.md', readOutput('README.md')),
    ...readFileTurn('src/a.ts', readOutput('src/a.ts')),
    { role: 'assistant', content: 'Found it.' },
  ];
}

/** The ledger section `createHistory()` gets, with the archive it was written to. */
const historyLedger = (archive: string): string =>
  [
    '## Context Ledger',
    'Facts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.',
    `- Archive of the compacted messages: "${archive}"`,
    '- Task: "Fix the bug in src/a.ts."',
    '- Latest request: the task above',
    '- Files read: ["README.md", "src/a.ts"]',
  ].join('\n');

/** An automatic compaction: the trigger (at any size), not `force`. */
const automatic: Partial<ResolvedCompactOptions> = { force: false, compactThresholdRatio: 0 };

/** A user message of exactly `tokens` tokens with the character counter. */
const messageOfTokens = (tokens: number, role: 'user' | 'assistant' = 'user'): Message => ({
  role,
  content: 'x'.repeat(tokens - MESSAGE_TOKEN_OVERHEAD),
});

describe('compactMessagesWith', () => {
  it('replaces everything after Head with the summary pair and restores the recently read files', async () => {
    const { run, summarizer } = setUp();
    const history = createHistory();
    const result = await run(history);
    expect(result.compacted).toBe(true);
    expect(result.skippedReason).toBeUndefined();
    expect(result.summary).toBe(`## Goals & Decisions\nFix the bug.\n\n${historyLedger(archive1)}`);
    expect(result.originalMessagesPath).toBe(archive1);
    expect(result.archiveReference).toBe(archive1);
    expect(result.messages).toEqual([
      system,
      {
        role: 'user',
        content: `[Conversation compressed]\n\n## Goals & Decisions\nFix the bug.\n\n${historyLedger(archive1)}`,
      },
      {
        role: 'assistant',
        content: 'Understood. I have the context from the compressed conversation. Continuing work.',
      },
      { role: 'user', content: '[Restored after compact] src/a.ts:\nexport const a = 1;' },
      { role: 'assistant', content: 'Noted, file content restored.' },
      { role: 'user', content: '[Restored after compact] README.md:\n# Readme' },
      { role: 'assistant', content: 'Noted, file content restored.' },
    ]);
    expect(result.messages[0]).toBe(system);
    expect(summarizer.calls).toHaveLength(1);
    expect(summarizer.calls[0]?.messages).toEqual(history.slice(1));
    expect(summarizer.calls[0]?.options).toEqual({ maxWords: 1200 });
  });

  it('reports the stats of a compaction', async () => {
    const { run, ports } = setUp();
    const history = createHistory();
    const result = await run(history);
    expect(result.stats.originalTokenCount).toBe(countHistoryTokens(history, { tokenCounter: ports.tokenCounter }));
    expect(result.stats.compactedTokenCount).toBe(
      countHistoryTokens(result.messages, { tokenCounter: ports.tokenCounter }),
    );
    expect(result.stats).toMatchObject({
      compactedMessageCount: history.length - 1,
      retainedMessageCount: 1,
      restoredFileCount: 2,
      restoredTokenCount: 'export const a = 1;'.length + '# Readme'.length,
    });
    expect(result.stats.compactionRatio).toBeCloseTo(
      result.stats.compactedTokenCount / result.stats.originalTokenCount,
      12,
    );
  });

  it('without read_file calls, yields Head + summary pair only', async () => {
    const { run } = setUp();
    const result = await run([system, { role: 'user', content: 'hello' }, messageOfTokens(1000, 'assistant')]);
    expect(result.compacted).toBe(true);
    expect(result.messages).toHaveLength(3);
    expect(result.stats.restoredFileCount).toBe(0);
    expect(result.stats.restoredTokenCount).toBe(0);
  });

  it('skips a deleted file and a file over the per-file limit, restoring the others', async () => {
    const { run, logger } = setUp({
      files: { '/work/big.ts': 'b'.repeat(100), '/work/ok.ts': 'ok' },
      resolved: { maxRestoreTokensPerFile: 50 },
    });
    const result = await run([
      { role: 'user', content: 'go' },
      ...readFileTurn('ok.ts', readOutput('ok.ts')),
      ...readFileTurn('deleted.ts'),
      ...readFileTurn('big.ts', readOutput('big.ts')),
    ]);
    expect(result.compacted).toBe(true);
    expect(
      result.messages
        .filter((message) => String(message.content).startsWith('[Restored after compact]'))
        .map((message) => message.content),
    ).toEqual(['[Restored after compact] ok.ts:\nok']);
    expect(logger.warnings).toEqual(['restore: skipped "deleted.ts": no file at /work/deleted.ts']);
  });

  describe('trigger', () => {
    // limit 1000 × ratio 0.5 → 500 tokens
    it('compacts a history of exactly the threshold', async () => {
      const { run } = setUp({ resolved: { force: false } });
      const result = await run([messageOfTokens(250, 'assistant'), messageOfTokens(250, 'assistant')]);
      expect(result.compacted).toBe(true);
      expect(result.stats.originalTokenCount).toBe(500);
    });

    it('skips one token below the threshold: input array itself, stats 0, nothing written', async () => {
      const { run, fileSystem, summarizer } = setUp({ resolved: { force: false } });
      const history = [messageOfTokens(250), messageOfTokens(249, 'assistant')];
      const result = await run(history);
      expect(result).toEqual({
        messages: history,
        compacted: false,
        skippedReason: 'below-threshold',
        originalMessagesPath: null,
        archiveReference: null,
        stats: {
          originalTokenCount: 0,
          compactedTokenCount: 0,
          compactionRatio: 0,
          compactedMessageCount: 0,
          retainedMessageCount: 0,
          restoredFileCount: 0,
          restoredTokenCount: 0,
        },
      });
      expect(result.messages).toBe(history);
      expect(fileSystem.events).toEqual([]);
      expect(summarizer.calls).toHaveLength(0);
    });

    it('skips an empty history as below-threshold, even with ratio 0', async () => {
      const { run } = setUp({ resolved: { force: false, compactThresholdRatio: 0 } });
      expect((await run([])).skippedReason).toBe('below-threshold');
    });

    it('compacts below the threshold with force', async () => {
      const { run } = setUp({ resolved: { force: true } });
      expect((await run([messageOfTokens(450, 'assistant')])).compacted).toBe(true);
    });

    it('uses the provider figure (lastUsage) for the trigger and the original count', async () => {
      const history = [messageOfTokens(400, 'assistant'), messageOfTokens(10, 'assistant')];
      const { run } = setUp({ resolved: { force: false, lastUsage: { inputTokens: 490, messageCount: 1 } } });
      const result = await run(history);
      expect(result.compacted).toBe(true);
      expect(result.stats.originalTokenCount).toBe(500);
    });

    it('scales local estimates with tokenSafetyFactor', async () => {
      const { run } = setUp({ resolved: { force: false, tokenSafetyFactor: 2 } });
      expect((await run([messageOfTokens(450, 'assistant')])).compacted).toBe(true);
    });
  });

  describe('nothing to compact', () => {
    it('skips when Rest is empty (only system messages), writing nothing', async () => {
      const { run, fileSystem } = setUp();
      const history = [system, { role: 'system' as const, content: 'more rules' }];
      const result = await run(history);
      expect(result).toMatchObject({
        compacted: false,
        skippedReason: 'nothing-to-compact',
        originalMessagesPath: null,
      });
      expect(result.messages).toBe(history);
      expect(fileSystem.events).toEqual([]);
    });

    it('skips an empty history with force as nothing-to-compact', async () => {
      const { run } = setUp();
      expect((await run([])).skippedReason).toBe('nothing-to-compact');
    });
  });

  describe('persistence', () => {
    it('writes the archive of Rest before summarizing', async () => {
      const { run, fileSystem } = setUp();
      const history = createHistory();
      await run(history);
      const archiveIndex = fileSystem.events.indexOf(`createExclusive ${archive1}`);
      expect(archiveIndex).toBeGreaterThanOrEqual(0);
      expect(archiveIndex).toBeLessThan(fileSystem.events.indexOf('summarize'));
      expect(JSON.parse(fileSystem.files.get(archive1) as string)).toEqual(history.slice(1));
    });

    it('continues the sequence from the archives of the same second on disk', async () => {
      const { run, fileSystem } = setUp();
      fileSystem.files.set('/work/.compact/default/compact-2026-11-21T23-45-12Z-6.json', '[]');
      expect((await run(createHistory())).originalMessagesPath).toBe(
        '/work/.compact/default/compact-2026-11-21T23-45-12Z-7.json',
      );
    });

    it('skips compaction when the archive cannot be written: the input itself, archive-failed, the error, no summary asked', async () => {
      const { run, fileSystem, logger, summarizer } = setUp();
      fileSystem.failWrites = true;
      const history = createHistory();
      const result = await run(history);
      expect(result).toMatchObject({ compacted: false, skippedReason: 'archive-failed', originalMessagesPath: null });
      expect(result.messages).toBe(history);
      expect(String(result.error)).toMatch(/EROFS/);
      expect(result.stats.originalTokenCount).toBe(0);
      expect(summarizer.calls).toHaveLength(0);
      expect(logger.warnings).toHaveLength(2);
      expect(logger.warnings[0]).toMatch(/could not archive the compacted messages.*EROFS/);
      expect(logger.warnings[1]).toMatch(/skipped, the history is left as it was \(pass archive: 'best-effort'/);
    });

    it("with archive: 'best-effort', logs an archive write failure and compacts with originalMessagesPath null", async () => {
      const { run, fileSystem, logger } = setUp({ resolved: { archive: 'best-effort' } });
      fileSystem.failWrites = true;
      const result = await run(createHistory());
      expect(result.compacted).toBe(true);
      expect(result.originalMessagesPath).toBeNull();
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/could not archive the compacted messages.*EROFS/);
    });
  });

  describe('retry and failure', () => {
    it('retries a failing summarizer with exponential backoff, then compacts', async () => {
      const { run, sleep, summarizer } = setUp({ script: [new Error('529 overloaded'), new Error('503'), 'finally'] });
      const result = await run(createHistory());
      expect(result.compacted).toBe(true);
      expect(result.summary).toMatch(/^finally\n\n## Context Ledger\n/);
      expect(summarizer.calls).toHaveLength(3);
      expect(sleep.delays).toEqual([1000, 2000]);
    });

    it('logs each failed attempt and its retry at warn, so the default logger shows them', async () => {
      const { run, logger } = setUp({ script: [new Error('529 overloaded'), 'finally'] });
      await run(createHistory());
      expect(logger.warnings).toEqual(['compact: summary attempt 1 failed (529 overloaded); retrying in 1000 ms']);
    });

    it('when every attempt fails, returns the input array itself, summarizer-failed and the last error', async () => {
      const last = new Error('500 third');
      const { run, sleep, summarizer, logger } = setUp({
        script: [new Error('500 first'), new Error('500 second'), last],
      });
      const history = createHistory();
      const result = await run(history);
      expect(result.compacted).toBe(false);
      expect(result.messages).toBe(history);
      expect(result.skippedReason).toBe('summarizer-failed');
      expect(result.error).toBe(last);
      expect(result.summary).toBeUndefined();
      expect(result.stats).toEqual({
        originalTokenCount: 0,
        compactedTokenCount: 0,
        compactionRatio: 0,
        compactedMessageCount: 0,
        retainedMessageCount: 0,
        restoredFileCount: 0,
        restoredTokenCount: 0,
      });
      expect(result.originalMessagesPath).toBe(archive1);
      expect(summarizer.calls).toHaveLength(3);
      expect(sleep.delays).toEqual([1000, 2000]);
      expect(logger.warnings.at(-1)).toBe(
        'compact: every summary attempt failed (500 third); the history is left as it was',
      );
    });

    it('counts a blank summary as a failure', async () => {
      const { run, summarizer } = setUp({ script: ['   '], resolved: { maxRetries: 1 } });
      const result = await run(createHistory());
      expect(result.skippedReason).toBe('summarizer-failed');
      expect(result.error).toBeInstanceOf(SummarizerFailedError);
      expect((result.error as ContextError).code).toBe('SUMMARIZER_FAILED');
      expect(summarizer.calls).toHaveLength(2);
    });

    it('makes one attempt only with maxRetries 0', async () => {
      const { run, summarizer } = setUp({ script: [new Error('no')], resolved: { maxRetries: 0 } });
      expect((await run(createHistory())).skippedReason).toBe('summarizer-failed');
      expect(summarizer.calls).toHaveLength(1);
    });

    it('honours retryAfterMs from a client error', async () => {
      const { run, sleep } = setUp({ script: [Object.assign(new Error('429'), { retryAfterMs: 1500 }), 'ok'] });
      await run(createHistory());
      expect(sleep.delays).toEqual([1500]);
    });
  });

  describe('abort', () => {
    it('rejects with the reason before doing anything when already aborted', async () => {
      const controller = new AbortController();
      const reason = new Error('user cancelled');
      controller.abort(reason);
      const { run, fileSystem } = setUp({ resolved: { signal: controller.signal } });
      await expect(run(createHistory())).rejects.toBe(reason);
      expect(fileSystem.events).toEqual([]);
    });

    it('rejects with the reason when aborted while summarizing, with no retry', async () => {
      const controller = new AbortController();
      const reason = new DOMException('aborted', 'AbortError');
      const { run, summarizer, sleep } = setUp({
        resolved: { signal: controller.signal },
        script: [
          async () => {
            controller.abort(reason);
            throw new Error('request aborted');
          },
        ],
      });
      await expect(run(createHistory())).rejects.toBe(reason);
      expect(summarizer.calls).toHaveLength(1);
      expect(sleep.delays).toEqual([]);
    });

    it('rejects with the reason at once when the summarizer ignores the signal and never settles', async () => {
      const controller = new AbortController();
      const reason = new Error('user cancelled');
      const { run } = setUp({
        resolved: { signal: controller.signal },
        script: [
          () => {
            setTimeout(() => controller.abort(reason), 5);
            return new Promise<string>(() => undefined);
          },
        ],
      });
      vi.useFakeTimers();
      try {
        const compaction = expect(run(createHistory())).rejects.toBe(reason);
        await vi.advanceTimersByTimeAsync(5);
        await compaction;
      } finally {
        vi.useRealTimers();
      }
    });

    it('ignores the late result of a summarizer that ignored the abort', async () => {
      const controller = new AbortController();
      const reason = new Error('user cancelled');
      let fail: (error: Error) => void = () => undefined;
      const { run } = setUp({
        resolved: { signal: controller.signal },
        script: [
          () => {
            controller.abort(reason);
            return new Promise<string>((_resolve, reject) => (fail = reject));
          },
        ],
      });
      await expect(run(createHistory())).rejects.toBe(reason);
      // a rejection after the abort must not surface as an unhandled rejection (vitest fails the run on one):
      // Node reports one once the microtasks have run, before the next turn of the event loop
      fail(new Error('late failure'));
      await new Promise((resolve) => setImmediate(resolve));
    });

    it('passes the signal to the summarizer', async () => {
      const controller = new AbortController();
      const { run, summarizer } = setUp({ resolved: { signal: controller.signal } });
      await run(createHistory());
      expect(summarizer.calls[0]?.options.signal).toBe(controller.signal);
    });
  });

  it('appends the resume message when asked', async () => {
    const { run } = setUp({ resolved: { resumeMessage: 'Continue with the task.' } });
    const result = await run(createHistory());
    expect(result.messages.at(-1)).toEqual({ role: 'user', content: 'Continue with the task.' });
  });

  it('never mutates a deep-frozen input', async () => {
    const { run } = setUp();
    const history = deepFreeze(createHistory());
    const snapshot = structuredClone(history);
    const result = await run(history);
    expect(result.compacted).toBe(true);
    expect(history).toEqual(snapshot);
  });

  it('compacts again after compaction; the previous summary and restored files are compacted too', async () => {
    const { run, summarizer, fileSystem } = setUp({
      files: { '/work/src/a.ts': 'A', '/work/README.md': 'R', '/work/new.ts': 'N' },
      script: ['first summary', 'second summary'],
      resolved: { maxRestoreFiles: 2 },
    });
    const first = await run(createHistory());
    expect(first.compacted).toBe(true);
    const continued: Message[] = [
      ...first.messages,
      { role: 'user', content: 'Now add a test.' },
      ...readFileTurn('new.ts', readOutput('new.ts')),
      { role: 'assistant', content: 'Added.' },
    ];
    const second = await run(continued);
    expect(second.compacted).toBe(true);
    expect(summarizer.calls[1]?.messages).toEqual(continued.slice(1));
    expect(summarizer.calls[1]?.messages[0]?.content).toBe(
      `[Conversation compressed]\n\nfirst summary\n\n${historyLedger(archive1)}`,
    );
    const archive2 = '/work/.compact/default/compact-2026-11-21T23-45-12Z-2.json';
    // the first ledger carries over: its task, its archive, its files before the new ones
    const secondLedger = [
      '## Context Ledger',
      'Facts kept by compaction. The read tool opens any reference below (pass it as ref); what a list leaves out is in the archives.',
      `- Archive of the compacted messages: "${archive2}"`,
      `- Earlier archives: ["${archive1}"]`,
      '- Task: "Fix the bug in src/a.ts."',
      '- Latest request: "Now add a test."',
      '- Files read: ["src/a.ts", "README.md", "new.ts"]',
    ].join('\n');
    expect(second.messages.map((message) => message.content)).toEqual([
      system.content,
      `[Conversation compressed]\n\nsecond summary\n\n${secondLedger}`,
      'Understood. I have the context from the compressed conversation. Continuing work.',
      '[Restored after compact] new.ts:\nN',
      'Noted, file content restored.',
      // restored by the first compaction, so still among the two most recent reads
      '[Restored after compact] src/a.ts:\nA',
      'Noted, file content restored.',
    ]);
    expect(second.originalMessagesPath).toBe(archive2);
    expect(fileSystem.files.has(archive1)).toBe(true);
  });

  describe('recoverable compaction: the summary names its archive and carries a ledger', () => {
    /** A history whose tool results were offloaded (batch, direct, with a preview), with a failed command. */
    function createOffloadedHistory(): Message[] {
      return [
        system,
        { role: 'user', content: 'Make the tests pass.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: 'src/a.ts' } },
            { type: 'tool_use', id: 'toolu_grep', name: 'Grep', input: { pattern: 'TODO', path: 'src' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_read',
              content: '[Content offloaded to: ./tool-result-toolu_read.md]',
            },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_grep',
              content: [{ type: 'text', text: '[Tool result offloaded to file: /srv/offload/s1/toolu_grep.md]' }],
            },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_test',
              is_error: true,
              content: appendPreview(
                buildBatchReference('./tool-result-toolu_test.md'),
                'AssertionError: expected 1 to be 2\nat a.ts',
                { headChars: 500, tailChars: 0 },
              ),
            },
          ],
        },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_edit',
              name: 'Edit',
              input: { file_path: 'src/a.ts', old_string: '1', new_string: '2' },
            },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_edit', content: 'ok' }] },
        { role: 'assistant', content: 'Fixed the constant. '.repeat(500) },
      ];
    }

    it('names the archive and lists every offloaded result of Rest (tool, id, input, reference) in the summary message', async () => {
      const { run } = setUp();
      const result = await run(createOffloadedHistory());
      expect(result.compacted).toBe(true);
      const summaryMessage = String(result.messages[1]?.content);
      expect(summaryMessage).toContain(`- Archive of the compacted messages: "${archive1}"`);
      expect(summaryMessage).toContain(
        [
          '- Offloaded tool results [tool, id, input, reference]:',
          '  - ["Read","toolu_read","src/a.ts","./tool-result-toolu_read.md"]',
          '  - ["Grep","toolu_grep","TODO in src","/srv/offload/s1/toolu_grep.md"]',
          '  - ["Bash","toolu_test","npm test","./tool-result-toolu_test.md"]',
        ].join('\n'),
      );
    });

    it('merges the ledger into the summary whoever wrote it: files read and edited, commands, last error, requests', async () => {
      const { run, ports, resolved } = setUp();
      const extractive = await compactMessagesWith(createOffloadedHistory(), resolved, {
        ...ports,
        summarizer: createExtractiveSummarizer(),
      });
      const scripted = await run(createOffloadedHistory());
      for (const result of [extractive, scripted]) {
        expect(result.compacted).toBe(true);
        expect(result.summary).toContain(
          [
            '- Task: "Make the tests pass."',
            '- Latest request: the task above',
            '- Files read: ["src/a.ts"]',
            '- Files edited: ["src/a.ts"]',
            '- Commands run: ["npm test"]',
            '- Last error: {"tool":"Bash","id":"toolu_test","input":"npm test","error":"AssertionError: expected 1 to be 2"}',
          ].join('\n'),
        );
      }
      expect(stripLedger(scripted.summary ?? '')).toBe('## Goals & Decisions\nFix the bug.');
      expect(extractive.summary?.startsWith('## Goals & Decisions\n')).toBe(true);
      // the same facts, only the archives differ (the second run took the next name)
      expect(extractive.ledger).toEqual({ ...scripted.ledger, archiveReference: archive1 });
    });

    it('returns the ledger it wrote, which reads back from the summary', async () => {
      const { run } = setUp();
      const result = await run(createOffloadedHistory());
      expect(result.ledger?.archiveReference).toBe(archive1);
      expect(parseLedger(result.summary ?? '')).toEqual(result.ledger);
    });

    it("names the store's reference of the archive when compacting into a store", async () => {
      const store = createMemoryStore();
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createHistory(), resolved, { ...ports, ...archiveTarget(store) });
      expect(result.archiveReference).toMatch(/^memory:\/\/.*default\/compact-2026-11-21T23-45-12Z-1\.json$/);
      expect(result.archiveReference).toBe(store.referenceFor('default/compact-2026-11-21T23-45-12Z-1.json'));
      expect(result.summary).toContain(
        `- Archive of the compacted messages: ${JSON.stringify(result.archiveReference)}`,
      );
    });

    it("says there is no archive when it could not be written (archive: 'best-effort')", async () => {
      const { run, fileSystem } = setUp({ resolved: { archive: 'best-effort' } });
      fileSystem.failWrites = true;
      const result = await run(createHistory());
      expect(result.compacted).toBe(true);
      expect(result.archiveReference).toBeNull();
      expect(result.summary).toContain('- Archive of the compacted messages: none (the archive could not be written)');
    });

    it('carries the ledger over a later compaction: offloaded results, the last error and the archive stay reachable', async () => {
      const { run } = setUp({ script: ['first summary', 'second summary'] });
      const first = await run(createOffloadedHistory());
      const second = await run([
        ...first.messages,
        { role: 'user', content: 'Now update the docs.' },
        messageOfTokens(1000, 'assistant'),
      ]);
      expect(second.compacted).toBe(true);
      expect(second.ledger).toMatchObject({
        archiveReference: '/work/.compact/default/compact-2026-11-21T23-45-12Z-2.json',
        earlierArchiveReferences: { items: [archive1], omittedCount: 0 },
        task: 'Make the tests pass.',
        latestRequest: 'Now update the docs.',
        commands: { items: ['npm test'], omittedCount: 0 },
        lastError: {
          toolName: 'Bash',
          toolUseId: 'toolu_test',
          input: 'npm test',
          message: 'AssertionError: expected 1 to be 2',
        },
      });
      expect(second.ledger?.offloadedResults.items.map((entry) => entry.toolUseId)).toEqual([
        'toolu_read',
        'toolu_grep',
        'toolu_test',
      ]);
    });

    it('does not take the resume message for the latest request', async () => {
      const { run } = setUp({
        script: ['first summary', 'second summary'],
        resolved: { resumeMessage: 'Continue with the task.' },
      });
      const first = await run(createOffloadedHistory());
      expect(first.messages.at(-1)?.content).toBe('Continue with the task.');
      const second = await run([...first.messages, messageOfTokens(1000, 'assistant')]);
      expect(second.ledger?.latestRequest).toBe('Make the tests pass.');
    });
  });

  describe('a last error offloaded before compaction (its error line read back from the store)', () => {
    /** A vitest log over 8 KB whose failure is at its end, as a test runner prints it. */
    const testLog = [
      ' RUN  v3.2.4 /repo',
      ...Array.from({ length: 1000 }, (_, index) => ` ✓ tests/round.test.ts > rounds case ${index} 0ms`),
      ' FAIL  tests/tax.test.ts > splitInclusiveAmount > uses the invoice mode',
      'AssertionError: expected { netMinor: 2336 } to deeply equal { netMinor: 2337 }',
      ' Test Files  1 failed | 4 passed (5)',
    ].join('\n');
    const key = 'tool-result-toolu_test.md';

    /** A session whose failing `npm test` result holds `reference` in place of its log. */
    function createFailedTestHistory(reference: string): Message[] {
      return [
        system,
        { role: 'user', content: 'Make the tests pass.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_test', is_error: true, content: buildBatchReference(reference) },
          ],
        },
        { role: 'assistant', content: 'Looking into the rounding. '.repeat(400) },
      ];
    }

    /** `store` with every `stat` and `get` recorded. */
    function recordReads(store: ContentStore): { store: ContentStore; reads: string[] } {
      const reads: string[] = [];
      return {
        reads,
        store: {
          ...store,
          stat: (readKey) => (reads.push(`stat ${readKey}`), store.stat(readKey)),
          get: (readKey, range) => (
            reads.push(`get ${readKey} ${JSON.stringify(range ?? null)}`),
            store.get(readKey, range)
          ),
        },
      };
    }

    it('puts the error line of the offloaded log in the Last error, next to its reference', async () => {
      const store = createMemoryStore();
      await store.putIfAbsent(key, testLog);
      const reference = store.referenceFor(key);
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createFailedTestHistory(reference), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.compacted).toBe(true);
      expect(result.ledger?.lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'toolu_test',
        input: 'npm test',
        message: 'AssertionError: expected { netMinor: 2336 } to deeply equal { netMinor: 2337 }',
        reference,
      });
      expect(result.summary).toContain(
        `- Last error: {"tool":"Bash","id":"toolu_test","input":"npm test","error":"AssertionError: expected { netMinor: 2336 } to deeply equal { netMinor: 2337 }","ref":"${reference}"}`,
      );
    });

    it('reads only its first and last 16 KB, by ranges', async () => {
      const memory = createMemoryStore();
      await memory.putIfAbsent(key, testLog);
      const size = (await memory.stat(key))!.size;
      expect(size).toBeGreaterThan(2 * 16_384);
      const { store, reads } = recordReads(memory);
      const { ports, resolved } = setUp();
      await compactMessagesWith(createFailedTestHistory(memory.referenceFor(key)), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(reads).toEqual([
        `stat ${key}`,
        `get ${key} {"offset":0,"length":16384}`,
        `get ${key} {"offset":${size - 16_384},"length":16384}`,
      ]);
    });

    it('reads a short log whole, and takes its error line by the inline rule', async () => {
      const store = createMemoryStore();
      await store.putIfAbsent(key, 'RUN v3.2.4\nTypeError: total is undefined\n    at tax.ts:12');
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createFailedTestHistory(store.referenceFor(key)), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.ledger?.lastError?.message).toBe('TypeError: total is undefined');
    });

    it('keeps the reference alone and still compacts when the store cannot read it, with a warning', async () => {
      const memory = createMemoryStore();
      await memory.putIfAbsent(key, testLog);
      const reference = memory.referenceFor(key);
      const store: ContentStore = { ...memory, stat: () => Promise.reject(new Error('connection reset (test)')) };
      const { ports, resolved, logger } = setUp();
      const result = await compactMessagesWith(createFailedTestHistory(reference), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.compacted).toBe(true);
      expect(result.ledger?.lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'toolu_test',
        input: 'npm test',
        message: buildBatchReference(reference),
      });
      expect(logger.warnings).toContain(
        `compact: could not read ${JSON.stringify(reference)} back (connection reset (test)); it is judged by the reference the history holds`,
      );
    });

    it('keeps the reference alone when nothing is stored under it (pruned)', async () => {
      const store = createMemoryStore();
      const { ports, resolved, logger } = setUp();
      const result = await compactMessagesWith(createFailedTestHistory(store.referenceFor(key)), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.compacted).toBe(true);
      expect(result.ledger?.lastError?.message).toBe(buildBatchReference(store.referenceFor(key)));
      expect(result.ledger?.lastError?.reference).toBeUndefined();
      expect(logger.warnings).toEqual([]);
    });

    it.each([
      ['another store', () => createMemoryStore({ name: 'other' }).referenceFor(key)],
      [
        'a key this package did not offload',
        (store: ContentStore) => store.referenceFor('notes/tool-result-toolu_test.txt'),
      ],
      ['a path outside the store', () => '/etc/passwd'],
    ])('does not read a reference of %s', async (_, referenceOf) => {
      const memory = createMemoryStore();
      await memory.putIfAbsent(key, testLog);
      await memory.putIfAbsent('notes/tool-result-toolu_test.txt', testLog);
      const { store, reads } = recordReads(memory);
      const reference = referenceOf(memory);
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createFailedTestHistory(reference), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.compacted).toBe(true);
      expect(reads).toEqual([]);
      expect(result.ledger?.lastError).toEqual({
        toolName: 'Bash',
        toolUseId: 'toolu_test',
        input: 'npm test',
        message: buildBatchReference(reference),
      });
    });

    it('without a store (a file writer only writes), keeps the reference alone', async () => {
      const { run } = setUp();
      const result = await run(createFailedTestHistory('./tool-result-toolu_test.md'));
      expect(result.compacted).toBe(true);
      expect(result.ledger?.lastError?.message).toBe(buildBatchReference('./tool-result-toolu_test.md'));
    });
  });

  describe('Commands run: an offloaded command is listed by its text, not its reference', () => {
    const key = 'default/tool-input-toolu_write-0123456789abcdef.md';
    const heredoc = `cat > src/importer.ts <<'EOF'\n${'export const skipBlank = (line: string) => line.trim() !== "";\n'.repeat(60)}EOF`;

    function createHeredocHistory(reference: string, output = ''): Message[] {
      return [
        system,
        { role: 'user', content: 'Make the importer skip blank lines.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_write', name: 'Bash', input: { command: buildBatchReference(reference) } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_write', content: output }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_test', name: 'Bash', input: { command: 'npm test' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_test', content: 'all passed' }] },
        { role: 'assistant', content: 'Done. '.repeat(400) },
      ];
    }

    it('lists the start of the command the store holds, cut, with the cut marked', async () => {
      const store = createMemoryStore();
      await store.putIfAbsent(key, heredoc);
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createHeredocHistory(store.referenceFor(key)), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      const [written, tested] = result.ledger?.commands.items ?? [];
      expect(written).toMatch(/^cat > src\/importer\.ts <<'EOF'\nexport const skipBlank/);
      expect(written).toMatch(/ \[…\]$/);
      expect(written!.length).toBeLessThanOrEqual(160);
      expect(tested).toBe('npm test');
      expect(result.summary).not.toContain('Content offloaded to');
    });

    it("describes the command's offloaded result by the command's start too, not by its cut reference", async () => {
      const store = createMemoryStore();
      await store.putIfAbsent(key, heredoc);
      const outputKey = 'default/tool-result-toolu_write.md';
      await store.putIfAbsent(outputKey, 'wrote src/importer.ts\n'.repeat(200));
      const history = createHeredocHistory(store.referenceFor(key), buildBatchReference(store.referenceFor(outputKey)));
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(history, resolved, { ...ports, ...archiveTarget(store) });
      const [entry] = result.ledger?.offloadedResults.items ?? [];
      expect(entry?.toolUseId).toBe('toolu_write');
      expect(entry?.input).toMatch(/^cat > src\/importer\.ts <<'EOF' export const skipBlank.*…$/);
    });

    it('names the whole reference, uncut, when the command cannot be read back', async () => {
      const store = createMemoryStore();
      const reference = store.referenceFor(`default/tool-input-toolu_write-${'f'.repeat(16)}.md`);
      const { ports, resolved } = setUp();
      const result = await compactMessagesWith(createHeredocHistory(reference), resolved, {
        ...ports,
        ...archiveTarget(store),
      });
      expect(result.ledger?.commands.items[0]).toBe(`[command offloaded to ${reference}]`);
    });
  });

  describe('a summary far over its budget', () => {
    const budget = computeSummaryMaxTokens(1200);
    const runaway = 'The same line again and again.\n'.repeat(135_300); // 4 MB
    // what the summarizer returned, as compaction takes it (trimmed)
    const returned = runaway.trim();

    it('cuts the summary to its budget with a marker, and warns', async () => {
      const { run, logger } = setUp({ script: [runaway] });
      const result = await run([system, { role: 'user', content: 'Fix it.' }, messageOfTokens(20_000, 'assistant')]);
      expect(result.compacted).toBe(true);
      const text = stripLedger(result.summary ?? '');
      expect(charCounter.count(text)).toBeLessThanOrEqual(budget);
      expect(
        text.endsWith(
          `\n\n[… summary cut to its budget of 3,856 tokens: the summarizer returned ${returned.length.toLocaleString('en-US')} characters]`,
        ),
      ).toBe(true);
      expect(text.startsWith('The same line again and again.\n')).toBe(true);
      expect(logger.warnings).toContain(
        `compact: the summary (${returned.length} characters) is over its budget of ${budget} tokens; it was cut to fit`,
      );
      // the ledger is never cut
      expect(result.summary).toContain('- Task: "Fix it."');
    });

    it('keeps a summary of exactly its budget as it is', async () => {
      const exact = 'x'.repeat(budget);
      const { run } = setUp({ script: [exact] });
      const result = await run([system, { role: 'user', content: 'Fix it.' }, messageOfTokens(20_000, 'assistant')]);
      expect(stripLedger(result.summary ?? '')).toBe(exact);
    });

    it("skips a 4 MB summary of a 797-character history as 'no-gain' when the trigger compacts: the history kept, the archive written", async () => {
      const { run, fileSystem, logger } = setUp({ script: [runaway], resolved: automatic });
      const history: Message[] = [
        system,
        { role: 'user', content: 'Fix it.' },
        messageOfTokens(797 - 2 * MESSAGE_TOKEN_OVERHEAD - 7 - 23, 'assistant'),
      ];
      const result = await run(history);
      expect(result.compacted).toBe(false);
      expect(result.skippedReason).toBe('no-gain');
      expect(result.messages).toBe(history);
      expect(result.originalMessagesPath).toBe(archive1);
      expect(result.archiveReference).toBe(archive1);
      expect(JSON.parse(fileSystem.files.get(archive1) as string)).toEqual(history.slice(1));
      expect(result.summary).toBeUndefined();
      expect(result.stats.compactedTokenCount).toBe(0);
      expect(logger.warnings.at(-1)).toMatch(
        /^compact: skipped, the compacted history \(\d+ tokens\) would not be smaller than the history \(\d+ tokens\); the history is left as it was$/,
      );
    });
  });

  describe("no gain ('no-gain'): only the trigger's own compactions are skipped", () => {
    /** A summarizer of `length` characters, so that the result's size is set to the token. */
    const summaryOfLength = (length: number): string => 'y'.repeat(length);

    it('skips a compaction whose result would be exactly as large as its input, and keeps one a token smaller', async () => {
      const history = createHistory();
      const inputTokens = countHistoryTokens(history, { tokenCounter: charCounter });
      const probe = await setUp({ script: [summaryOfLength(1)], resolved: automatic }).run(history);
      expect(probe.compacted).toBe(true);
      const equalLength = 1 + inputTokens - probe.stats.compactedTokenCount;
      const equal = await setUp({ script: [summaryOfLength(equalLength)], resolved: automatic }).run(history);
      expect(equal).toMatchObject({ compacted: false, skippedReason: 'no-gain', originalMessagesPath: archive1 });
      expect(equal.messages).toBe(history);
      const smaller = await setUp({ script: [summaryOfLength(equalLength - 1)], resolved: automatic }).run(history);
      expect(smaller.compacted).toBe(true);
      expect(smaller.stats.compactedTokenCount).toBe(inputTokens - 1);
    });

    it('returns the ledger with a no-gain skip, so a caller still knows the archive', async () => {
      const { run } = setUp({ resolved: automatic });
      const result = await run([system, { role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
      expect(result.skippedReason).toBe('no-gain');
      expect(result.ledger?.archiveReference).toBe(archive1);
    });

    it('measures the gain as the trigger measured the history: a 5-message history anchored at 190,000 tokens is compacted', async () => {
      const history: Message[] = [
        { role: 'user', content: 'Summarize the design doc.' },
        { role: 'assistant', content: 'Reading it.' },
        { role: 'user', content: 'Go on.' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Thanks.' },
      ];
      const lastUsage = { inputTokens: 190_000, messageCount: 4 };
      const { run } = setUp({ resolved: { force: false, contextTokenLimit: 200_000, lastUsage } });
      const result = await run(history);
      expect(countHistoryTokens(history, { tokenCounter: charCounter })).toBeLessThan(result.stats.compactedTokenCount);
      expect(result.compacted).toBe(true);
      expect(result.skippedReason).toBeUndefined();
      expect(result.stats.originalTokenCount).toBeGreaterThan(190_000);
    });

    it('force compacts a small history all the same: the summary pair replaces it, though it is larger', async () => {
      const { run } = setUp({ resolved: { force: true } });
      const history: Message[] = [system, { role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }];
      const result = await run(history);
      expect(result.compacted).toBe(true);
      expect(result.skippedReason).toBeUndefined();
      expect(result.stats.compactedTokenCount).toBeGreaterThan(result.stats.originalTokenCount);
      expect(result.messages[1]?.content).toContain('- Task: "hello"');
      expect(result.archiveReference).toBe(archive1);
    });

    it('force still cuts a runaway summary to its budget', async () => {
      const runaway = 'The same line again and again.\n'.repeat(10_000);
      const { run } = setUp({ script: [runaway], resolved: { force: true } });
      const result = await run([system, { role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
      expect(result.compacted).toBe(true);
      expect(charCounter.count(stripLedger(result.summary ?? ''))).toBeLessThanOrEqual(computeSummaryMaxTokens(1200));
    });
  });
});

describe("compactMessagesWith and a provider's own compaction", () => {
  it('keeps everything through the newest compaction block as it is and summarizes only after it', async () => {
    const { run, summarizer } = setUp();
    const providerHead: Message = {
      role: 'assistant',
      content: [
        { type: 'compaction', content: 'Summary by the provider.', encrypted_content: 'EuYBopaque==' },
        { type: 'text', text: 'Continuing.' },
      ],
    };
    const history = deepFreeze([
      system,
      { role: 'user' as const, content: 'Fix the bug.' },
      providerHead,
      ...createHistory().slice(1),
    ]);
    const result = await run(history);

    expect(result.compacted).toBe(true);
    expect(summarizer.calls[0]?.messages).toEqual(history.slice(3));
    history.slice(0, 3).forEach((message, index) => expect(result.messages[index]).toBe(message));
  });
});
