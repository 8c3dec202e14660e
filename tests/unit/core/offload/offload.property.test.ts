import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { offloadToolResult } from '../../../../src/api/direct-offload.js';
import { offloadToolResults } from '../../../../src/api/offload.js';
import type { BatchOffloadOptions } from '../../../../src/core/options/offload-options.js';
import { buildPreview } from '../../../../src/core/offload/offload-reference.js';
import type { ContentStore } from '../../../../src/core/ports.js';
import { isToolResultBlock, isToolUseBlock, type ContentBlock, type Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import { deepFreeze, readStore } from '../../../fixtures/offload-fixtures.js';

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
  someText.map((value): ContentBlock => ({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: value },
  })),
);
const nestedBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  leafBlock,
  fc
    .record({ title: someText, content: fc.array(leafBlock, { maxLength: 3 }) })
    .map(({ title, content }): ContentBlock => ({
      type: 'search_result',
      source: 'https://example.com',
      title,
      content,
    })),
);

/** Existing references point into `./old/` or elsewhere, where this run never writes. */
const existingReference = fc.oneof(
  fc.constantFrom(
    '[Content offloaded to: ./old/tool-result-x.md]',
    '[Tool result offloaded to file: /var/offload/s/x.md]',
  ),
  someText.map(
    (content) =>
      `[Content offloaded to: ./old/tool-result-y.md]${buildPreview(`${content}${'p'.repeat(120)}`, { headChars: 50, tailChars: 20 })}`,
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
    arbitrary: fc
      .array(fc.oneof(toolResultBlock, toolResultBlock, leafBlock), { maxLength: 4 })
      .map((content): Message => ({ role: 'user', content })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.oneof(
          toolUseBlock,
          leafBlock,
          someText.map((value): ContentBlock => ({ type: 'thinking', thinking: value, signature: 's' })),
        ),
        {
          maxLength: 3,
        },
      )
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

const BATCH_REFERENCE = /^\[Content offloaded to: memory:\/\/default\/(tool-result-[^/\]]+\.md)\](?:\n|$)/;
const DIRECT_REFERENCE = /^\[Tool result offloaded to file: memory:\/\/default\/(s\/[^\]]+\.md)\](?:\n|$)/;

/** Batch offload of `messages` into `store`. */
const offload = (messages: readonly Message[], store: ContentStore, options: BatchOffloadOptions) =>
  offloadToolResults(messages, { ...options, store });

/** The output with every reference this run made replaced by the stored content (parsed back for array content). */
function restore(
  output: readonly Message[],
  input: readonly Message[],
  stored: Record<string, string>,
  pattern: RegExp,
): Message[] {
  return output.map((outMessage, messageIndex) => {
    if (typeof outMessage.content === 'string') return outMessage;
    const inBlocks = input[messageIndex]!.content as ContentBlock[];
    return {
      ...outMessage,
      content: outMessage.content.map((block, blockIndex) => {
        if (!isToolResultBlock(block) || typeof block.content !== 'string') return block;
        const match = pattern.exec(block.content);
        if (match === null) return block;
        const written = stored[match[1]!];
        if (written === undefined) throw new Error(`reference to a key never stored: ${block.content}`);
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
      : [
          item.role,
          item.content.map((block) => [
            block.type,
            isToolResultBlock(block) ? block.tool_use_id : isToolUseBlock(block) ? block.id : null,
          ]),
        ],
  );
}

// ---- Properties

describe('offloadToolResults: properties', () => {
  it('(a) reading the stored contents back into the references gives back exactly the input', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (messages, options) => {
        const store = createMemoryStore();
        const result = await offload(messages, store, options);
        expect(restore(result.messages, messages, await readStore(store), BATCH_REFERENCE)).toEqual(messages);
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
        const result = await offload(messages, createMemoryStore(), options);
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
        const result = await offload(messages, createMemoryStore(), options);
        expect(skeleton(result.messages)).toEqual(skeleton(messages));
      }),
      { numRuns: 200 },
    );
  });

  it('a second run of the same offload stores nothing new and returns the same result', async () => {
    await fc.assert(
      fc.asyncProperty(history, batchOptions, async (messages, options) => {
        const store = createMemoryStore();
        const first = await offload(messages, store, options);
        const stored = await readStore(store);
        const second = await offload(messages, store, options);
        expect(await readStore(store)).toEqual(stored);
        expect(second).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });

  it('never overwrites a content: after two different histories share a store, both restore exactly', async () => {
    await fc.assert(
      fc.asyncProperty(history, history, async (left, right) => {
        const store = createMemoryStore();
        const options = { charThreshold: 1, ratioThreshold: 0 };
        const first = await offload(left, store, options);
        const second = await offload(right, store, options);
        const stored = await readStore(store);
        expect(restore(first.messages, left, stored, BATCH_REFERENCE)).toEqual(left);
        expect(restore(second.messages, right, stored, BATCH_REFERENCE)).toEqual(right);
      }),
      { numRuns: 100 },
    );
  });
});

describe('offloadToolResult: properties', () => {
  const userWithResults = fc
    .array(fc.oneof(toolResultBlock, leafBlock), { maxLength: 5 })
    .filter((blocks) => blocks.some((block) => block.type === 'tool_result'))
    .map((content): Message => ({ role: 'user', content }));

  it('restores exactly from the store, keeps every block in place, and never changes a frozen input', async () => {
    await fc.assert(
      fc.asyncProperty(userWithResults, async (generated) => {
        const snapshot = structuredClone(generated);
        const input = deepFreeze(generated);
        const store = createMemoryStore();
        const result = await offloadToolResult(input, { store, sessionId: 's' });
        expect(input).toEqual(snapshot);
        expect(restore([result.message], [input], await readStore(store), DIRECT_REFERENCE)).toEqual([input]);
        expect(skeleton([result.message])).toEqual(skeleton([input]));
        expect(result.file).toBe(result.files[0] ?? null);
      }),
      { numRuns: 200 },
    );
  });
});

describe('offloadToolResults: text that is not well-formed UTF-16 (property)', () => {
  it('reuses its keys on a rerun and stores each content as UTF-8 reads it back', async () => {
    const content = fc.string({ unit: 'binary', minLength: 100, maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(fc.array(content, { minLength: 1, maxLength: 4 }), async (contents) => {
        const store = createMemoryStore();
        const messages = [
          {
            role: 'user' as const,
            content: contents.map((text, index) => ({
              type: 'tool_result' as const,
              tool_use_id: `t${index}`,
              content: text,
            })),
          },
        ];
        const first = await offload(messages, store, { ratioThreshold: 0 });
        const stored = await readStore(store);
        const second = await offload(messages, store, { ratioThreshold: 0 });
        expect(second.files).toEqual(first.files);
        expect(await readStore(store)).toEqual(stored);
        first.files.forEach((file, index) =>
          expect(stored[file.slice('memory://default/'.length)]).toBe(
            Buffer.from(contents[index]!, 'utf8').toString('utf8'),
          ),
        );
      }),
    );
  });
});
