import { describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { createToolResultOffloader, offloadToolResult } from '../../../src/api/direct-offload.js';
import { offloadToolResults, offloadToolResultsWithWriter } from '../../../src/api/offload.js';
import type { ContentStore } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';
import { blocksOf, text, toolResult, toolUse, userMessage, assistantMessage } from '../../fixtures/offload-fixtures.js';
import { charCounter, createRecordingLogger, createScriptedSummarizer } from '../../fixtures/compact-fixtures.js';

async function keysOf(store: ContentStore, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys.sort();
}

describe('the store option: offloaded content in any store', () => {
  describe('offloadToolResults', () => {
    it('writes each large result under tool-result-<id>.md and references it by the store reference', async () => {
      const store = createMemoryStore({ name: 'tests' });
      const messages = [assistantMessage(toolUse('a')), userMessage(toolResult('a', text(300)))];
      const result = await offloadToolResults(messages, { store });
      expect(await keysOf(store)).toEqual(['tool-result-a.md']);
      expect(await store.get('tool-result-a.md')).toBe(text(300));
      expect(result.files).toEqual(['memory://tests/tool-result-a.md']);
      expect(blocksOf(result.messages[1])[0]!.content).toBe('[Content offloaded to: memory://tests/tool-result-a.md]');
    });

    it('never overwrites another content in the store: the next suffix is taken, and a rerun writes nothing new', async () => {
      const store = createMemoryStore();
      await store.putIfAbsent('tool-result-a.md', 'someone else');
      const messages = [userMessage(toolResult('a', text(300)))];
      const first = await offloadToolResults(messages, { store });
      const second = await offloadToolResults(messages, { store });
      expect(first.files).toEqual(['memory://default/tool-result-a-1.md']);
      expect(second.files).toEqual(first.files);
      expect(await store.get('tool-result-a.md')).toBe('someone else');
      expect(await keysOf(store)).toEqual(['tool-result-a-1.md', 'tool-result-a.md']);
    });

    it('rejects reference "relative" with a store that is not a file store, naming why', async () => {
      await expect(
        offloadToolResults([userMessage(toolResult('a', text(300)))], {
          store: createMemoryStore(),
          reference: 'relative',
        }),
      ).rejects.toThrow(/reference "relative" needs a file store/);
    });

    it('rejects both store and outputDir, and an object that is not a store', async () => {
      const messages = [userMessage(toolResult('a', text(300)))];
      await expect(offloadToolResults(messages, { store: createMemoryStore(), outputDir: 'x' })).rejects.toThrow(
        /either store or outputDir, not both/,
      );
      await expect(offloadToolResults(messages, { store: {} as ContentStore })).rejects.toMatchObject({
        code: 'INVALID_OPTION',
        message: expect.stringContaining('store must be a ContentStore'),
      });
    });

    it('accepts a FileWriter with writeFile alone (no ensureDir), as an object store needs none', async () => {
      const written = new Map<string, string>();
      const writer = { writeFile: async (path: string, content: string) => void written.set(path, content) };
      const result = await offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], 'out', writer);
      expect(result.files).toEqual(['out/tool-result-a.md']);
      expect(written.get('out/tool-result-a.md')).toBe(text(300));
    });
  });

  describe('direct offload', () => {
    it('puts each result under <sessionId>/<id>.md and overwrites the same id', async () => {
      const store = createMemoryStore({ name: 'direct' });
      const first = await offloadToolResult(userMessage(toolResult('t', 'one')), { sessionId: 's1', store });
      await offloadToolResult(userMessage(toolResult('t', 'two')), { sessionId: 's1', store });
      expect(first.file).toBe('memory://direct/s1/t.md');
      expect(blocksOf(first.message)[0]!.content).toBe('[Tool result offloaded to file: memory://direct/s1/t.md]');
      expect(await store.get('s1/t.md')).toBe('two');
    });

    it('offloads through the middleware into the store', async () => {
      const store = createMemoryStore();
      const offload = createToolResultOffloader({ sessionId: 's2', store, threshold: 10 });
      const message = await offload(userMessage(toolResult('big', text(50)), toolResult('small', 'ok')));
      expect(await keysOf(store)).toEqual(['s2/big.md']);
      expect(blocksOf(message)[1]!.content).toBe('ok');
    });

    it('rejects a store together with a writer', () => {
      expect(() =>
        createToolResultOffloader({
          sessionId: 's',
          store: createMemoryStore(),
          writer: { writeFile: async () => undefined } as never,
        }),
      ).toThrow(/either store or writer/);
    });
  });

  describe('compactMessages', () => {
    const history: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Fix the bug.' },
      // long enough that the summary (and its ledger) take less room: else compaction skips with 'no-gain'
      { role: 'assistant', content: `Fixed. ${'The cause was an off-by-one in the loop. '.repeat(40)}` },
    ];

    it('archives Rest in the store under <sessionId>/compact-<time>-<n>.json and names it by its reference', async () => {
      const store = createMemoryStore({ name: 'archive' });
      const result = await compactMessages(history, {
        store,
        sessionId: 'run-1',
        force: true,
        summarizer: createScriptedSummarizer(['## Goals & Decisions\nFix it.']),
        tokenCounter: charCounter,
        logger: createRecordingLogger(),
        maxRestoreFiles: 0,
      });
      expect(result.compacted).toBe(true);
      const [key] = await keysOf(store, 'run-1/');
      expect(key).toMatch(/^run-1\/compact-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-1\.json$/);
      expect(result.originalMessagesPath).toBe(`memory://archive/${key}`);
      expect(JSON.parse((await store.get(key!))!)).toEqual(history.slice(1));
    });

    it('skips compaction (archive-failed) when the store cannot take the archive, leaving the history as it was', async () => {
      const store = createMemoryStore();
      const failing: ContentStore = { ...store, putIfAbsent: () => Promise.reject(new Error('connection refused')) };
      const result = await compactMessages(history, {
        store: failing,
        force: true,
        summarizer: createScriptedSummarizer(['summary']),
        tokenCounter: charCounter,
        logger: createRecordingLogger(),
        maxRestoreFiles: 0,
      });
      expect(result).toMatchObject({ compacted: false, skippedReason: 'archive-failed' });
      expect(result.messages).toBe(history);
    });

    it('rejects store together with fileWriter or outputDir', async () => {
      await expect(
        compactMessages(history, { store: createMemoryStore(), outputDir: 'x', force: true }),
      ).rejects.toThrow(/pass store, or fileWriter\/outputDir, not both/);
    });
  });
});
