import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { offloadToolResultWithWriter } from '../../src/api/direct-offload.js';
import { offloadToolResultsWithWriter } from '../../src/api/offload.js';
import type { BatchOffloadOptions } from '../../src/core/offload-options.js';
import { buildPreview } from '../../src/core/offload-reference.js';
import { isToolResultBlock, isToolUseBlock, type ContentBlock, type Message } from '../../src/core/types.js';
import { countWrites, createMemoryWriter, deepFreeze, type MemoryWriter } from '../fixtures/offload-fixtures.js';

beforeEach(() => {
  vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', undefined);
  vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

// ---- Arbitraries: histories with CJK, emoji (surrogate pairs), JSON-special characters,
// nested block arrays, repeated ids and existing references.

const unit = fc.constantFrom('a', 'Z', ' ', '\n', '"', '\\', '{', ']', '中', '文', '字', '😀', '👍🏽', 'é', '\t');
const someText = fc.string({ unit, maxLength: 60 });
const toolUseId = fc.constantFrom('t1', 't2', 't3', 'toolu_01abc', 'a.b-c');
const toolName = fc.constantFrom('read_file', 'bash', 'grep');

const leafBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  someText.map((value): ContentBlock => ({ type: 'text', text: value })),
  someText.map((value): ContentBlock => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: value } })),
);
const nestedBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  leafBlock,
  fc.record({ title: someText, content: fc.array(leafBlock, { maxLength: 3 }) }).map(
    ({ title, content }): ContentBlock => ({ type: 'search_result', source: 'https://example.com', title, content }),
  ),
);

/** Existing references point into `./old/` or elsewhere, where this run never writes. */
const existingReference = fc.oneof(
  fc.constantFrom('[Content offloaded to: ./old/tool-result-x.md]', '[Tool result offloaded to file: /var/offload/s/x.md]'),
  someText.map(
    (content) => `[Content offloaded to: ./old/tool-result-y.md]${buildPreview(`${content}${'p'.repeat(120)}`, { headChars: 50, tailChars: 20 })}`,
  ),
);

const toolResultBlock: fc.Arbitrary<ContentBlock> = fc
  .record({
    id: toolUseId,
    content: fc.oneof(
      { weight: 3, arbitrary: someText },
      { weight: 2, arbitrary: fc.array(nestedBlock, { maxLength: 4 }) },
      { weight: 1, arbitrary: existingReference },
    ),
    isError: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ id, content, isError }): ContentBlock =>
    isError === undefined
      ? { type: 'tool_result', tool_use_id: id, content }
      : { type: 'tool_result', tool_use_id: id, content, is_error: isError },
  );

const toolUseBlock: fc.Arbitrary<ContentBlock> = fc
  .record({ id: toolUseId, name: toolName, path: someText })
  .map(({ id, name, path }): ContentBlock => ({ type: 'tool_use', id, name, input: { path } }));

const message: fc.Arbitrary<Message> = fc.oneof(
  { weight: 1, arbitrary: someText.map((value): Message => ({ role: 'user', content: value })) },
  {
    weight: 3,
    arbitrary: fc.array(fc.oneof(toolResultBlock, toolResultBlock, leafBlock), { maxLength: 4 }).map((content): Message => ({ role: 'user', content })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(toolUseBlock, leafBlock, someText.map((value): ContentBlock => ({ type: 'thinking', thinking: value, signature: 's' }))), {
        maxLength: 3,
      })
      .map((content): Message => ({ role: 'assistant', content })),
  },
);

const history = fc.array(message, { maxLength: 12 });

const batchOptions: fc.Arbitrary<BatchOffloadOptions> = fc.record({
  charThreshold: fc.integer({ min: 1, max: 20 }),
  ratioThreshold: fc.constantFrom(0, 0, 0.05, 0.3),
  excludeTools: fc.subarray(['read_file', 'bash', 'grep']),
  keepRecent: fc.integer({ min: 0, max: 2 }),
  preview: fc.constantFrom(false, { headChars: 3, tailChars: 2 }),
});

// ---- Helpers

const BATCH_REFERENCE = /^\[Content offloaded to: \.\/(tool-result-[^/\]]+\.md)\](?:\n|$)/;
const DIRECT_REFERENCE = /^\[Tool result offloaded to file: (out\/[^\]]+\.md)\](?:\n|$)/;

/** The output with every reference this run wrote replaced by its file's content (parsed back for array content). */
function restore(output: readonly Message[], input: readonly Message[], writer: MemoryWriter, pattern: RegExp, prefix: string): Message[] {
  return output.map((outMessage, messageIndex) => {
    if (typeof outMessage.content === 'string') return outMessage;
    const inBlocks = input[messageIndex]!.content as ContentBlock[];
    return {
      ...outMessage,
      content: outMessage.content.map((block, blockIndex) => {
        if (!isToolResultBlock(block) || typeof block.content !== 'string') return block;
        const match = pattern.exec(block.content);
        if (match === null) return block;
        const written = writer.files.get(prefix + match[1]!);
        if (written === undefined) throw new Error(`reference to a file never written: ${block.content}`);
        const original = inBlocks[blockIndex];
        const wasArray = isToolResultBlock(original) && Array.isArray(original.content);
        return { ...block, content: wasArray ? (JSON.parse(written) as ContentBlock[]) : written };
      }),
    };
  });
}

/** The shape that pairs calls with results: per message, each block's type and id. */
function skeleton(messages: readonly Message[]): unknown[] {
  return messages.map((item) =>
    typeof item.content === 'string'
      ? [item.role, 'string']
      : [item.role, item.content.map((block) => [block.type, isToolResultBlock(block) ? block.tool_use_id : isToolUseBlock(block) ? block.id : null])],
  );
}

// ---- Properties

describe('offloadToolResultsWithWriter — properties', () => {
  it('(a) reading the written files back into the references gives back exactly the input', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (messages, options) => {
        const writer = createMemoryWriter();
        const result = await offloadToolResultsWithWriter(messages, 'out', writer, options);
        expect(restore(result.messages, messages, writer, BATCH_REFERENCE, 'out/')).toEqual(messages);
        expect(result.files).toHaveLength(result.offloadedCount);
        expect(new Set(result.files).size).toBe(result.offloadedCount);
      }),
      { numRuns: 300 },
    );
  });

  it('(b) a deep-frozen input works and is never changed; untouched messages keep their reference', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (generated, options) => {
        const snapshot = structuredClone(generated);
        const messages = deepFreeze(generated);
        const result = await offloadToolResultsWithWriter(messages, 'out', createMemoryWriter(), options);
        expect(messages).toEqual(snapshot);
        if (result.offloadedCount === 0) expect(result.messages).toBe(messages);
        for (const [index, outMessage] of result.messages.entries()) {
          const changed = JSON.stringify(outMessage) !== JSON.stringify(messages[index]);
          if (changed) expect(outMessage).not.toBe(messages[index]);
          else expect(outMessage).toBe(messages[index]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('(c) every tool_use keeps its tool_result: block types, order and ids are unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (messages, options) => {
        const result = await offloadToolResultsWithWriter(messages, 'out', createMemoryWriter(), options);
        expect(skeleton(result.messages)).toEqual(skeleton(messages));
      }),
      { numRuns: 200 },
    );
  });

  it('a second run of the same offload writes nothing new and returns the same result', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (messages, options) => {
        const writer = createMemoryWriter();
        const first = await offloadToolResultsWithWriter(messages, 'out', writer, options);
        const writes = countWrites(writer);
        const second = await offloadToolResultsWithWriter(messages, 'out', writer, options);
        expect(countWrites(writer)).toBe(writes);
        expect(second).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });

  it('never overwrites a file: after two different histories share a directory, both restore exactly', async () => {
    await fc.assert(
      fc.asyncProperty(history, history, async (left, right) => {
        const writer = createMemoryWriter();
        const options = { charThreshold: 1, ratioThreshold: 0 };
        const first = await offloadToolResultsWithWriter(left, 'out', writer, options);
        const second = await offloadToolResultsWithWriter(right, 'out', writer, options);
        expect(restore(first.messages, left, writer, BATCH_REFERENCE, 'out/')).toEqual(left);
        expect(restore(second.messages, right, writer, BATCH_REFERENCE, 'out/')).toEqual(right);
      }),
      { numRuns: 100 },
    );
  });
});

describe('offloadToolResultWithWriter — properties', () => {
  const userWithResults = fc
    .array(fc.oneof(toolResultBlock, leafBlock), { maxLength: 5 })
    .filter((blocks) => blocks.some((block) => block.type === 'tool_result'))
    .map((content): Message => ({ role: 'user', content }));

  it('restores exactly from its files, keeps every block in place, and never changes a frozen input', async () => {
    await fc.assert(
      fc.asyncProperty(userWithResults, async (generated) => {
        const snapshot = structuredClone(generated);
        const input = deepFreeze(generated);
        const writer = createMemoryWriter();
        const result = await offloadToolResultWithWriter(input, 's', 'out', writer);
        expect(input).toEqual(snapshot);
        expect(restore([result.message], [input], writer, DIRECT_REFERENCE, '')).toEqual([input]);
        expect(skeleton([result.message])).toEqual(skeleton([input]));
        expect(result.file).toBe(result.files[0] ?? null);
      }),
      { numRuns: 200 },
    );
  });
});

describe('offloadToolResultsWithWriter — text that is not well-formed UTF-16 (property)', () => {
  /** A writer that stores what a UTF-8 file would hold: lone surrogates come back as U+FFFD. */
  function createUtf8Writer(): MemoryWriter {
    const writer = createMemoryWriter();
    const createExclusive = writer.createExclusive!;
    writer.createExclusive = (path, content) => createExclusive(path, Buffer.from(content, 'utf8').toString('utf8'));
    return writer;
  }

  it('reuses its files on a rerun and stores each content as a UTF-8 file reads it back', async () => {
    const content = fc.string({ unit: 'binary', minLength: 100, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(fc.array(content, { minLength: 1, maxLength: 4 }), async (contents) => {
        const writer = createUtf8Writer();
        const messages = [{ role: 'user' as const, content: contents.map((text, index) => ({ type: 'tool_result' as const, tool_use_id: `t${index}`, content: text })) }];
        const first = await offloadToolResultsWithWriter(messages, 'out', writer, { ratioThreshold: 0 });
        const writes = countWrites(writer);
        const second = await offloadToolResultsWithWriter(messages, 'out', writer, { ratioThreshold: 0 });
        expect(second.files).toEqual(first.files);
        expect(countWrites(writer)).toBe(writes);
        first.files.forEach((file, index) => expect(writer.files.get(file)).toBe(Buffer.from(contents[index]!, 'utf8').toString('utf8')));
      }),
    );
  });
});
