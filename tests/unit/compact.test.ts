import { describe, expect, it } from 'vitest';
import { compactMessagesWith, type CompactPorts } from '../../src/core/compact/compact.js';
import type { ResolvedCompactOptions } from '../../src/core/compact/compact-options.js';
import { SummarizerFailedError, type ContextError } from '../../src/core/errors.js';
import { countHistoryTokens, MESSAGE_TOKEN_OVERHEAD } from '../../src/core/tokens.js';
import type { Message } from '../../src/core/types.js';
import {
  charCounter,
  createRecordingLogger,
  createRecordingSleep,
  createResolvedOptions,
  createScriptedSummarizer,
  deepFreeze,
  MemoryFileSystem,
  readFileTurn,
} from './compact-fixtures.js';

const now = new Date('2026-11-21T23:45:12Z');
const archive1 = '/work/.compact/default/compact-2026-11-21T23-45-12Z-1.json';
const system: Message = { role: 'system', content: 'You are a coding agent.' };

function setUp(options: { files?: Record<string, string>; script?: Parameters<typeof createScriptedSummarizer>[0]; resolved?: Partial<ResolvedCompactOptions> } = {}) {
  const fileSystem = new MemoryFileSystem(options.files ?? { '/work/src/a.ts': 'export const a = 1;', '/work/README.md': '# Readme' });
  const summarizer = createScriptedSummarizer(options.script ?? ['## Goals & Decisions\nFix the bug.'], fileSystem.events);
  const logger = createRecordingLogger();
  const sleep = createRecordingSleep();
  const ports: CompactPorts = { summarizer, fileReader: fileSystem.reader, fileWriter: fileSystem.writer, tokenCounter: charCounter, logger, sleep, now: () => now };
  const resolved = createResolvedOptions({ force: true, ...options.resolved });
  return { fileSystem, summarizer, logger, sleep, ports, resolved, run: (messages: readonly Message[]) => compactMessagesWith(messages, resolved, ports) };
}

/** A history of a system prompt and turns that read two files. */
function createHistory(): Message[] {
  return [system, { role: 'user', content: 'Fix the bug in src/a.ts.' }, ...readFileTurn('README.md'), ...readFileTurn('src/a.ts'), { role: 'assistant', content: 'Found it.' }];
}

/** A user message of exactly `tokens` tokens with the character counter. */
const messageOfTokens = (tokens: number, role: 'user' | 'assistant' = 'user'): Message => ({ role, content: 'x'.repeat(tokens - MESSAGE_TOKEN_OVERHEAD) });

describe('compactMessagesWith (spec 05)', () => {
  it('UC-001: replaces everything after Head with the summary pair and restores the recently read files', async () => {
    const { run, summarizer } = setUp();
    const history = createHistory();
    const result = await run(history);
    expect(result.compacted).toBe(true);
    expect(result.skippedReason).toBeUndefined();
    expect(result.summary).toBe('## Goals & Decisions\nFix the bug.');
    expect(result.originalMessagesPath).toBe(archive1);
    expect(result.messages).toEqual([
      system,
      { role: 'user', content: '[Conversation compressed]\n\n## Goals & Decisions\nFix the bug.' },
      { role: 'assistant', content: 'Understood. I have the context from the compressed conversation. Continuing work.' },
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

  it('F-009: reports the stats of a compaction', async () => {
    const { run, ports } = setUp();
    const history = createHistory();
    const result = await run(history);
    expect(result.stats.originalTokenCount).toBe(countHistoryTokens(history, { tokenCounter: ports.tokenCounter }));
    expect(result.stats.compactedTokenCount).toBe(countHistoryTokens(result.messages, { tokenCounter: ports.tokenCounter }));
    expect(result.stats).toMatchObject({ compactedMessageCount: history.length - 1, retainedMessageCount: 1, restoredFileCount: 2, restoredTokenCount: 'export const a = 1;'.length + '# Readme'.length });
    expect(result.stats.compactionRatio).toBeCloseTo(result.stats.compactedTokenCount / result.stats.originalTokenCount, 12);
  });

  it('UC-002: without read_file calls, yields Head + summary pair only', async () => {
    const { run } = setUp();
    const result = await run([system, { role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
    expect(result.messages).toHaveLength(3);
    expect(result.stats.restoredFileCount).toBe(0);
    expect(result.stats.restoredTokenCount).toBe(0);
  });

  it('UC-003 / UC-004: skips a deleted file and a file over the per-file limit, restoring the others', async () => {
    const { run, logger } = setUp({ files: { '/work/big.ts': 'b'.repeat(100), '/work/ok.ts': 'ok' }, resolved: { maxRestoreTokensPerFile: 50 } });
    const result = await run([{ role: 'user', content: 'go' }, ...readFileTurn('ok.ts'), ...readFileTurn('deleted.ts'), ...readFileTurn('big.ts')]);
    expect(result.compacted).toBe(true);
    expect(result.messages.filter((message) => String(message.content).startsWith('[Restored after compact]')).map((message) => message.content)).toEqual([
      '[Restored after compact] ok.ts:\nok',
    ]);
    expect(logger.warnings).toEqual(['restore: skipped "deleted.ts": no file at /work/deleted.ts']);
  });

  describe('trigger (v1 F-002)', () => {
    // limit 1000 × ratio 0.5 → 500 tokens
    it('compacts a history of exactly the threshold', async () => {
      const { run } = setUp({ resolved: { force: false } });
      const result = await run([messageOfTokens(250), messageOfTokens(250, 'assistant')]);
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
        stats: { originalTokenCount: 0, compactedTokenCount: 0, compactionRatio: 0, compactedMessageCount: 0, retainedMessageCount: 0, restoredFileCount: 0, restoredTokenCount: 0 },
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
      expect((await run([messageOfTokens(10)])).compacted).toBe(true);
    });

    it('uses the provider figure (lastUsage) for the trigger and the original count', async () => {
      const history = [messageOfTokens(10), messageOfTokens(10, 'assistant')];
      const { run } = setUp({ resolved: { force: false, lastUsage: { inputTokens: 490, messageCount: 1 } } });
      const result = await run(history);
      expect(result.compacted).toBe(true);
      expect(result.stats.originalTokenCount).toBe(500);
    });

    it('scales local estimates with tokenSafetyFactor', async () => {
      const { run } = setUp({ resolved: { force: false, tokenSafetyFactor: 2 } });
      expect((await run([messageOfTokens(250)])).compacted).toBe(true);
    });
  });

  describe('nothing to compact', () => {
    it('skips when Rest is empty (only system messages), writing nothing', async () => {
      const { run, fileSystem } = setUp();
      const history = [system, { role: 'system' as const, content: 'more rules' }];
      const result = await run(history);
      expect(result).toMatchObject({ compacted: false, skippedReason: 'nothing-to-compact', originalMessagesPath: null });
      expect(result.messages).toBe(history);
      expect(fileSystem.events).toEqual([]);
    });

    it('skips an empty history with force as nothing-to-compact', async () => {
      const { run } = setUp();
      expect((await run([])).skippedReason).toBe('nothing-to-compact');
    });
  });

  describe('persistence (v1 F-006)', () => {
    it('writes the archive of Rest before summarizing', async () => {
      const { run, fileSystem } = setUp();
      const history = createHistory();
      await run(history);
      const archiveIndex = fileSystem.events.indexOf(`createExclusive ${archive1}`);
      expect(archiveIndex).toBeGreaterThanOrEqual(0);
      expect(archiveIndex).toBeLessThan(fileSystem.events.indexOf('summarize'));
      expect(JSON.parse(fileSystem.files.get(archive1) as string)).toEqual(history.slice(1));
    });

    it('continues the sequence from the archives on disk', async () => {
      const { run, fileSystem } = setUp();
      fileSystem.files.set('/work/.compact/default/compact-2026-01-01T00-00-00Z-6.json', '[]');
      expect((await run(createHistory())).originalMessagesPath).toBe('/work/.compact/default/compact-2026-11-21T23-45-12Z-7.json');
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

    it("with archive: 'best-effort', logs an archive write failure and compacts with originalMessagesPath null (v1 F-006)", async () => {
      const { run, fileSystem, logger } = setUp({ resolved: { archive: 'best-effort' } });
      fileSystem.failWrites = true;
      const result = await run(createHistory());
      expect(result.compacted).toBe(true);
      expect(result.originalMessagesPath).toBeNull();
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]).toMatch(/could not archive the compacted messages.*EROFS/);
    });
  });

  describe('retry and failure (v1 F-007, UC-006)', () => {
    it('retries a failing summarizer with exponential backoff, then compacts', async () => {
      const { run, sleep, summarizer } = setUp({ script: [new Error('529 overloaded'), new Error('503'), 'finally'] });
      const result = await run(createHistory());
      expect(result.compacted).toBe(true);
      expect(result.summary).toBe('finally');
      expect(summarizer.calls).toHaveLength(3);
      expect(sleep.delays).toEqual([1000, 2000]);
    });

    it('logs each failed attempt and its retry at warn, so the default logger shows them', async () => {
      const { run, logger } = setUp({ script: [new Error('529 overloaded'), 'finally'] });
      await run(createHistory());
      expect(logger.warnings).toEqual(['compact: summary attempt 1 failed (529 overloaded); retrying in 1000 ms']);
    });

    it('UC-006: when every attempt fails, returns the input array itself, summarizer-failed and the last error', async () => {
      const last = new Error('500 third');
      const { run, sleep, summarizer, logger } = setUp({ script: [new Error('500 first'), new Error('500 second'), last] });
      const history = createHistory();
      const result = await run(history);
      expect(result.compacted).toBe(false);
      expect(result.messages).toBe(history);
      expect(result.skippedReason).toBe('summarizer-failed');
      expect(result.error).toBe(last);
      expect(result.summary).toBeUndefined();
      expect(result.stats).toEqual({ originalTokenCount: 0, compactedTokenCount: 0, compactionRatio: 0, compactedMessageCount: 0, retainedMessageCount: 0, restoredFileCount: 0, restoredTokenCount: 0 });
      expect(result.originalMessagesPath).toBe(archive1);
      expect(summarizer.calls).toHaveLength(3);
      expect(sleep.delays).toEqual([1000, 2000]);
      expect(logger.warnings.at(-1)).toBe('compact: every summary attempt failed (500 third); the history is left as it was');
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
      await expect(run(createHistory())).rejects.toBe(reason);
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
      // a rejection after the abort must not surface as an unhandled rejection (vitest fails the run on one)
      fail(new Error('late failure'));
      await new Promise((resolve) => setTimeout(resolve, 10));
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

  it('UC-005: compacts again after compaction; the previous summary and restored files are compacted too', async () => {
    const { run, summarizer, fileSystem } = setUp({
      files: { '/work/src/a.ts': 'A', '/work/README.md': 'R', '/work/new.ts': 'N' },
      script: ['first summary', 'second summary'],
      resolved: { maxRestoreFiles: 2 },
    });
    const first = await run(createHistory());
    expect(first.compacted).toBe(true);
    const continued: Message[] = [...first.messages, { role: 'user', content: 'Now add a test.' }, ...readFileTurn('new.ts'), { role: 'assistant', content: 'Added.' }];
    const second = await run(continued);
    expect(second.compacted).toBe(true);
    expect(summarizer.calls[1]?.messages).toEqual(continued.slice(1));
    expect(summarizer.calls[1]?.messages[0]?.content).toBe('[Conversation compressed]\n\nfirst summary');
    expect(second.messages.map((message) => message.content)).toEqual([
      system.content,
      '[Conversation compressed]\n\nsecond summary',
      'Understood. I have the context from the compressed conversation. Continuing work.',
      '[Restored after compact] new.ts:\nN',
      'Noted, file content restored.',
      // restored by the first compaction, so still among the two most recent reads
      '[Restored after compact] src/a.ts:\nA',
      'Noted, file content restored.',
    ]);
    expect(second.originalMessagesPath).toBe('/work/.compact/default/compact-2026-11-21T23-45-12Z-2.json');
    expect(fileSystem.files.has(archive1)).toBe(true);
  });
});
