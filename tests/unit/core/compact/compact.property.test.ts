/**
 * Invariants of counting and compaction, over generated histories (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens, estimateTokens } from '../../../../src/api/tokens.js';
import { assembleMessages, formatRestoredFileMessage } from '../../../../src/core/compact/assemble.js';
import { compactMessagesWith } from '../../../../src/core/compact/compact.js';
import { isPathInside } from '../../../../src/core/store/path-resolution.js';
import { collectRestoredFiles } from '../../../../src/core/compact/restore.js';
import { BLOCK_TOKEN_OVERHEAD, MESSAGE_TOKEN_OVERHEAD } from '../../../../src/core/text/tokens.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import {
  archiveTarget,
  charCounter,
  createRecordingLogger,
  createRecordingSleep,
  createResolvedOptions,
  createScriptedSummarizer,
  deepFreeze,
  MemoryFileSystem,
} from '../../../fixtures/compact-fixtures.js';

const text = fc.string({ maxLength: 40 });
const leafBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((value) => ({ type: 'text', text: value })),
  text.map((value) => ({ type: 'thinking', thinking: value, signature: 'sig' })),
  fc
    .record({ name: fc.constantFrom('read_file', 'bash', 'write_file'), path: text })
    .map(({ name, path }) => ({ type: 'tool_use', id: 'toolu_x', name, input: { path } })),
  fc.constant({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }),
);
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  leafBlock,
  fc
    .oneof(text, fc.array(leafBlock, { maxLength: 3 }))
    .map((content) => ({ type: 'tool_result', tool_use_id: 'toolu_x', content, is_error: false })),
);
const message: fc.Arbitrary<Message> = fc.record({
  role: fc.constantFrom('system', 'user', 'assistant'),
  content: fc.oneof(text, fc.array(block, { maxLength: 4 })),
}) as fc.Arbitrary<Message>;
const history = fc.array(message, { maxLength: 12 });

describe('countTokens invariants', () => {
  it('counts a concatenation as the sum of its parts', () => {
    fc.assert(
      fc.property(history, history, (first, second) => {
        expect(countTokens([...first, ...second], { cache: false })).toBe(
          countTokens(first, { cache: false }) + countTokens(second, { cache: false }),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('counts a message of text blocks as the sum of its texts plus exactly the per-message and per-block overhead', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 5 }), (texts) => {
        const content: ContentBlock[] = texts.map((value) => ({ type: 'text', text: value }));
        const sumOfParts = texts.reduce((sum, value) => sum + estimateTokens(value), 0);
        expect(countTokens([{ role: 'user', content }], { cache: false })).toBe(
          sumOfParts + MESSAGE_TOKEN_OVERHEAD + texts.length * BLOCK_TOKEN_OVERHEAD,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same count cached and uncached', () => {
    fc.assert(
      fc.property(history, (messages) => {
        expect(countTokens(messages)).toBe(countTokens(messages, { cache: false }));
      }),
    );
  });
});

describe('restoration invariants', () => {
  const pathPool = [
    'a.ts',
    'src/b.ts',
    './src/b.ts',
    'docs/c.md',
    '../outside.txt',
    '/etc/passwd',
    'link/secret',
    'missing.ts',
    'src/../a.ts',
    'big.bin',
    '/work/src/b.ts',
  ];
  const files: Record<string, string> = {
    '/work/a.ts': 'a'.repeat(30),
    '/work/src/b.ts': 'b'.repeat(80),
    '/work/docs/c.md': '',
    '/work/big.bin': 'z'.repeat(400),
    '/outside.txt': 'o',
    '/etc/passwd': 'root',
    '/secret/secret': 's',
  };

  it('never exceeds its three budgets and never touches anything outside workDir', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...pathPool), { maxLength: 15 }),
        fc.nat({ max: 6 }),
        fc.nat({ max: 200 }),
        fc.nat({ max: 300 }),
        async (reads, maxRestoreFiles, maxRestoreTokensPerFile, maxRestoreTokensTotal) => {
          const fileSystem = new MemoryFileSystem(files);
          fileSystem.links.set('/work/link', '/secret');
          const messages: Message[] = reads.map((path, index) => ({
            role: 'assistant',
            content: [{ type: 'tool_use', id: `t${index}`, name: 'read_file', input: { path } }],
          }));
          const restored = await collectRestoredFiles(messages, {
            workDir: '/work',
            readToolNames: ['read_file'],
            pathField: 'path',
            maxRestoreFiles,
            maxRestoreTokensPerFile,
            maxRestoreTokensTotal,
            fileReader: fileSystem.reader,
            tokenCounter: charCounter,
            logger: createRecordingLogger(),
          });
          expect(restored.length).toBeLessThanOrEqual(maxRestoreFiles);
          for (const file of restored) expect(file.tokenCount).toBeLessThanOrEqual(maxRestoreTokensPerFile);
          expect(restored.reduce((sum, file) => sum + file.tokenCount, 0)).toBeLessThanOrEqual(maxRestoreTokensTotal);
          expect(new Set(restored.map((file) => file.absolutePath)).size).toBe(restored.length);
          for (const event of fileSystem.events) {
            const [operation, path] = event.split(' ') as [string, string];
            if (operation === 'read') expect(isPathInside('/work', path) && !path.startsWith('/work/link')).toBe(true);
            expect(isPathInside('/work', path)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('assembly invariants', () => {
  it('alternates user/assistant after the head, starting with user', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 3 }),
        fc.string({ minLength: 1 }),
        fc.array(fc.tuple(text, text), { maxLength: 6 }),
        fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
        (headLength, summary, files, resumeMessage) => {
          const head: Message[] = Array.from({ length: headLength }, (_, index) => ({
            role: 'system',
            content: `rule ${index}`,
          }));
          const restored = files.map(([path, content]) => formatRestoredFileMessage(path, content));
          const assembled = assembleMessages(head, summary, restored, { resumeMessage });
          expect(assembled.slice(0, headLength)).toEqual(head);
          assembled
            .slice(headLength)
            .forEach((item, index) => expect(item.role).toBe(index % 2 === 0 ? 'user' : 'assistant'));
          expect(assembled).toHaveLength(headLength + 2 + 2 * files.length + (resumeMessage === undefined ? 0 : 1));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('compaction invariants', () => {
  it('never mutates its (deep-frozen) input, and a skip returns the input array itself', async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.boolean(), async (generated, force) => {
        const input = deepFreeze(structuredClone(generated));
        const snapshot = structuredClone(generated);
        const fileSystem = new MemoryFileSystem({ '/work/a.ts': 'A' });
        const result = await compactMessagesWith(
          input,
          createResolvedOptions({ force, contextTokenLimit: 200, compactThresholdRatio: 0.5 }),
          {
            summarizer: createScriptedSummarizer(['summary']),
            fileReader: fileSystem.reader,
            ...archiveTarget(fileSystem.writer),
            tokenCounter: charCounter,
            logger: createRecordingLogger(),
            sleep: createRecordingSleep(),
            now: () => new Date('2026-11-21T23:45:12Z'),
          },
        );
        expect(input).toEqual(snapshot);
        if (!result.compacted) expect(result.messages).toBe(input);
        else expect(result.messages[result.stats.retainedMessageCount]?.role).toBe('user');
      }),
      { numRuns: 150 },
    );
  });
});
