import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { offloadToolResultsWithWriter } from '../../src/api/offload.js';
import { ContextError, WriteFailedError } from '../../src/core/errors.js';
import type { ContentBlock, Message } from '../../src/core/types.js';
import { buildBatchReference, buildPreview } from '../../src/core/offload-reference.js';
import {
  assistantMessage,
  blocksOf,
  countWrites,
  createMemoryWriter,
  deepFreeze,
  text,
  toolResult,
  toolUse,
  userMessage,
} from '../fixtures/offload-fixtures.js';

const OUT = 'out';

beforeEach(() => {
  // The suite must not depend on the shell it runs in.
  vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', undefined);
  vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A three-message conversation: question, call, result. */
function conversation(resultContent: string | ContentBlock[], id = 'toolu_01abc'): Message[] {
  return [
    { role: 'user', content: 'Read the config file' },
    assistantMessage(toolUse(id)),
    userMessage(toolResult(id, resultContent)),
  ];
}

describe('offloadToolResultsWithWriter — large and small results', () => {
  it('offloads a tool_result of >= 100 chars to a file and puts a reference in its place', async () => {
    const writer = createMemoryWriter();
    const content = text(300);
    const result = await offloadToolResultsWithWriter(conversation(content), OUT, writer);

    expect(result.messages[2]).toEqual(userMessage(toolResult('toolu_01abc', '[Content offloaded to: ./tool-result-toolu_01abc.md]')));
    expect(writer.files.get('out/tool-result-toolu_01abc.md')).toBe(content);
    expect(result).toMatchObject({ offloadedCount: 1, freedChars: 300, files: ['out/tool-result-toolu_01abc.md'] });
  });

  it('leaves a tool_result of < 100 chars as it is and writes no file for it', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('small', text(99))), ...conversation(text(500), 'big')];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);

    expect(result.messages[0]).toBe(messages[0]);
    expect([...writer.files.keys()]).toEqual(['out/tool-result-big.md']);
  });

  it('offloads only the large results of a mixed history', async () => {
    const writer = createMemoryWriter();
    const messages: Message[] = [
      assistantMessage(toolUse('a'), toolUse('b'), toolUse('c')),
      userMessage(toolResult('a', text(150)), toolResult('b', 'short error'), toolResult('c', text(100))),
    ];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);

    expect(result.messages[1]).toEqual(
      userMessage(
        toolResult('a', '[Content offloaded to: ./tool-result-a.md]'),
        toolResult('b', 'short error'),
        toolResult('c', '[Content offloaded to: ./tool-result-c.md]'),
      ),
    );
    expect(result.offloadedCount).toBe(2);
    expect(result.freedChars).toBe(250);
  });

  it('returns the messages as they are and writes nothing when there is no tool_result', async () => {
    const writer = createMemoryWriter();
    const messages: Message[] = [
      { role: 'user', content: text(500) },
      { role: 'assistant', content: [{ type: 'text', text: text(500) }] },
    ];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);

    expect(result).toEqual({ messages, offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });
});

describe('offloadToolResultsWithWriter — walk and files', () => {
  it('returns { messages: [], offloadedCount: 0, freedChars: 0, files: [] } for an empty history', async () => {
    const writer = createMemoryWriter();
    const messages: Message[] = [];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(result).toEqual({ messages: [], offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });

  it('walks oldest to newest: the oldest use of an id gets the base name, later uses -1 and -2', async () => {
    const writer = createMemoryWriter();
    const messages = [
      userMessage(toolResult('dup', text(100, 'a'))),
      userMessage(toolResult('dup', text(100, 'b'))),
      userMessage(toolResult('dup', text(100, 'c'))),
    ];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);

    expect(result.files).toEqual(['out/tool-result-dup.md', 'out/tool-result-dup-1.md', 'out/tool-result-dup-2.md']);
    expect(writer.files.get('out/tool-result-dup.md')).toBe(text(100, 'a'));
    expect(writer.files.get('out/tool-result-dup-1.md')).toBe(text(100, 'b'));
    expect(writer.files.get('out/tool-result-dup-2.md')).toBe(text(100, 'c'));
    expect(result.messages.map((message) => blocksOf(message)[0]!.content)).toEqual([
      '[Content offloaded to: ./tool-result-dup.md]',
      '[Content offloaded to: ./tool-result-dup-1.md]',
      '[Content offloaded to: ./tool-result-dup-2.md]',
    ]);
  });

  it('gives suffixes by use among offloaded blocks: a small block with the same id takes no name', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('x', 'tiny'), toolResult('x', text(200)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { ratioThreshold: 0 });
    expect(result.files).toEqual(['out/tool-result-x.md']);
  });

  it('writes an array content as JSON.stringify(array) and replaces it with a string', async () => {
    const writer = createMemoryWriter();
    const content: ContentBlock[] = [
      { type: 'text', text: text(80) },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ];
    const result = await offloadToolResultsWithWriter(conversation(content), OUT, writer);

    expect(writer.files.get('out/tool-result-toolu_01abc.md')).toBe(JSON.stringify(content));
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-toolu_01abc.md]');
    expect(result.freedChars).toBe(JSON.stringify(content).length);
  });

  it('creates the output directory before writing', async () => {
    const writer = createMemoryWriter();
    await offloadToolResultsWithWriter(conversation(text(200)), 'deep/nested/out', writer);
    expect(writer.calls[0]).toEqual({ method: 'ensureDir', path: 'deep/nested/out' });
    expect(writer.calls.slice(1).every((call) => call.method !== 'ensureDir')).toBe(true);
  });

  it('reports offloadedCount, freedChars (original counts) and files in walk order', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('one', text(120))), userMessage(toolResult('two', text(340)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(result.offloadedCount).toBe(2);
    expect(result.freedChars).toBe(460);
    expect(result.files).toEqual(['out/tool-result-one.md', 'out/tool-result-two.md']);
  });

  it('lists absolute paths when the writer resolves them, while references stay relative', async () => {
    const writer = createMemoryWriter({ resolve: true });
    const result = await offloadToolResultsWithWriter(conversation(text(200)), OUT, writer);
    expect(result.files).toEqual(['/abs/out/tool-result-toolu_01abc.md']);
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-toolu_01abc.md]');
  });

  it('joins outputDir and the name without doubling a trailing slash', async () => {
    const writer = createMemoryWriter();
    const result = await offloadToolResultsWithWriter(conversation(text(200)), 'out/', writer);
    expect(result.files).toEqual(['out/tool-result-toolu_01abc.md']);
  });
});

describe('offloadToolResultsWithWriter — char threshold', () => {
  it('offloads a string of exactly 100 chars', async () => {
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', text(100)))], OUT, createMemoryWriter());
    expect(result.offloadedCount).toBe(1);
  });

  it('does not offload a string of 99 chars', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('t', text(99)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(result.offloadedCount).toBe(0);
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });

  it('never offloads an empty string', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('t', '')), { role: 'user' as const, content: text(10) }];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { charThreshold: 1, ratioThreshold: 0 });
    expect(result.offloadedCount).toBe(0);
    expect(writer.calls).toEqual([]);
  });

  it('counts an array content by JSON.stringify(content).length: 100 offloads, 99 does not', async () => {
    const arrayOf = (length: number): ContentBlock[] => {
      const overhead = JSON.stringify([{ type: 'text', text: '' }]).length;
      return [{ type: 'text', text: text(length - overhead) }];
    };
    expect(JSON.stringify(arrayOf(100)).length).toBe(100);
    const offloaded = await offloadToolResultsWithWriter([userMessage(toolResult('t', arrayOf(100)))], OUT, createMemoryWriter());
    const kept = await offloadToolResultsWithWriter([userMessage(toolResult('t', arrayOf(99)))], OUT, createMemoryWriter());
    expect(offloaded.offloadedCount).toBe(1);
    expect(kept.offloadedCount).toBe(0);
  });

  it('counts UTF-16 code units: 50 emoji are 100 chars and are offloaded', async () => {
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', '😀'.repeat(50)))], OUT, createMemoryWriter());
    expect(result.offloadedCount).toBe(1);
    expect(result.freedChars).toBe(100);
  });

  it('takes the charThreshold option over the default', async () => {
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', text(99)))], OUT, createMemoryWriter(), { charThreshold: 50 });
    expect(result.offloadedCount).toBe(1);
  });
});

describe('offloadToolResultsWithWriter — ratio gate', () => {
  /** A history of `otherChars` of text and one tool result of `resultChars`. */
  function history(otherChars: number, resultChars: number): Message[] {
    return [{ role: 'user', content: text(otherChars) }, userMessage(toolResult('r', text(resultChars)))];
  }

  it('offloads when offloadable chars / total chars >= 0.2', async () => {
    const result = await offloadToolResultsWithWriter(history(300, 200), OUT, createMemoryWriter());
    expect(result.offloadedCount).toBe(1);
  });

  it('skips below 0.2: returns the input array itself, creates no directory, writes nothing', async () => {
    const writer = createMemoryWriter();
    const messages = history(1000, 200);
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(result).toEqual({ messages, offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });

  it('skips an empty history (totalChars = 0)', async () => {
    const writer = createMemoryWriter();
    const messages: Message[] = [];
    expect((await offloadToolResultsWithWriter(messages, OUT, writer)).messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });

  it('skips when nothing qualifies, even at the lowest thresholds', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('a', ''), toolResult('b', ''))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { charThreshold: 1, ratioThreshold: 0 });
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });

  it('offloads at a ratio of exactly 0.2 (100 of 500 chars)', async () => {
    const result = await offloadToolResultsWithWriter(history(400, 100), OUT, createMemoryWriter());
    expect(result.offloadedCount).toBe(1);
  });

  it('skips at a ratio of 0.1999 (1999 of 10000 chars)', async () => {
    const writer = createMemoryWriter();
    const result = await offloadToolResultsWithWriter(history(8001, 1999), OUT, writer);
    expect(result.offloadedCount).toBe(0);
    expect(writer.calls).toEqual([]);
  });

  it('offloads at ratio threshold 0 whenever something qualifies (100 of 1,000,100 chars)', async () => {
    const result = await offloadToolResultsWithWriter(history(1_000_000, 100), OUT, createMemoryWriter(), { ratioThreshold: 0 });
    expect(result.offloadedCount).toBe(1);
  });

  it('skips at ratio threshold 0 when nothing is offloadable', async () => {
    const writer = createMemoryWriter();
    const result = await offloadToolResultsWithWriter(history(500, 99), OUT, writer, { ratioThreshold: 0 });
    expect(result.offloadedCount).toBe(0);
    expect(writer.calls).toEqual([]);
  });

  it('at ratio threshold 1 offloads only when every counted char is offloadable', async () => {
    const all = await offloadToolResultsWithWriter(history(0, 150), OUT, createMemoryWriter(), { ratioThreshold: 1 });
    const almost = await offloadToolResultsWithWriter(history(1, 150), OUT, createMemoryWriter(), { ratioThreshold: 1 });
    expect(all.offloadedCount).toBe(1);
    expect(almost.offloadedCount).toBe(0);
  });

  it('counts existing references and excluded tools in the total but not as offloadable', async () => {
    const writer = createMemoryWriter();
    const reference = `[Content offloaded to: ./tool-result-old.md]`;
    const messages = [
      assistantMessage(toolUse('keep', 'read_offloaded')),
      userMessage(
        toolResult('old', reference + buildPreview(text(900), { headChars: 200, tailChars: 100 })),
        toolResult('keep', text(900)),
        toolResult('new', text(200)),
      ),
    ];
    // 200 offloadable of 2 + 409 + 900 + 200 chars: 0.13, below 0.2; without the two, 200 of 202.
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { excludeTools: ['read_offloaded'] });
    expect(result.messages).toBe(messages);
    expect(writer.calls).toEqual([]);
  });
});

describe('offloadToolResultsWithWriter — immutability and copies', () => {
  it('keeps untouched messages by reference and deep-copies changed ones', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'question' },
      assistantMessage(toolUse('t', 'read_file', { path: 'a.txt', nested: { deep: [1, 2] } })),
      userMessage({ type: 'text', text: 'see', meta: { tag: 'x' } }, toolResult('t', text(500))),
    ];
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter());

    expect(result.messages).not.toBe(messages);
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1]).toBe(messages[1]);
    expect(result.messages[2]).not.toBe(messages[2]);
    const before = blocksOf(messages[2]);
    const after = blocksOf(result.messages[2]);
    expect(after[0]).toEqual(before[0]);
    expect(after[0]).not.toBe(before[0]);
    expect(after[0]!.meta).not.toBe(before[0]!.meta);
  });

  it('works on deep-frozen input and leaves it unchanged', async () => {
    const messages = deepFreeze(conversation(text(400)));
    const snapshot = structuredClone(messages);
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter());
    expect(result.offloadedCount).toBe(1);
    expect(messages).toEqual(snapshot);
  });

  it('keeps every field but content on an offloaded block, and unknown blocks and message fields as they are', async () => {
    // a message with a field of its own: not a literal of type Message, which names role and content only
    const withId = {
      role: 'user' as const,
      id: 'msg_1',
      content: [
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        toolResult('t', text(300), { is_error: true, cache_control: { type: 'ephemeral' } }),
      ] as ContentBlock[],
    };
    const messages: Message[] = [withId];
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter());
    expect(result.messages).toMatchInlineSnapshot(`
      [
        {
          "content": [
            {
              "source": {
                "type": "url",
                "url": "https://example.com/a.png",
              },
              "type": "image",
            },
            {
              "cache_control": {
                "type": "ephemeral",
              },
              "content": "[Content offloaded to: ./tool-result-t.md]",
              "is_error": true,
              "tool_use_id": "t",
              "type": "tool_result",
            },
          ],
          "id": "msg_1",
          "role": "user",
        },
      ]
    `);
    expect(Object.keys(blocksOf(result.messages[0]!)[1]!)).toEqual(['type', 'tool_use_id', 'content', 'is_error', 'cache_control']);
  });
});

describe('offloadToolResultsWithWriter — existing references', () => {
  it.each([
    ['a batch reference', `[Content offloaded to: ./tool-result-old.md]`],
    ['a direct reference', `[Tool result offloaded to file: /tmp/s/old.md]`],
    ['a batch reference with a preview', buildBatchReference('./tool-result-old.md') + buildPreview(text(9000), { headChars: 200, tailChars: 100 })],
    ['a batch reference with a whole preview', buildBatchReference('./tool-result-old.md') + buildPreview(text(90), { headChars: 200, tailChars: 100 })],
    ['an absolute batch reference', `[Content offloaded to: /srv/offload/tool-result-old.md]`],
  ])('never offloads %s again, whatever its length', async (_label, reference) => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('old', reference), toolResult('new', text(600)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { charThreshold: 10, ratioThreshold: 0 });
    expect(blocksOf(result.messages[0]!)[0]!.content).toBe(reference);
    expect([...writer.files.keys()]).toEqual(['out/tool-result-new.md']);
  });

  it('never offloads a reference wrapped in a single text block', async () => {
    const writer = createMemoryWriter();
    const wrapped: ContentBlock[] = [{ type: 'text', text: `[Content offloaded to: ./tool-result-old.md]${text(200)}` }];
    const messages = [userMessage(toolResult('old', [{ type: 'text', text: '[Content offloaded to: ./tool-result-old.md]' }]), toolResult('w', wrapped))];
    // The second block's first line does not end with "]": it is content, not a reference.
    const result = await offloadToolResultsWithWriter(messages, OUT, writer, { charThreshold: 10, ratioThreshold: 0 });
    expect([...writer.files.keys()]).toEqual(['out/tool-result-w.md']);
    expect(blocksOf(result.messages[0]!)[0]).toEqual(blocksOf(messages[0]!)[0]);
  });

  it('offloads a second run\'s output to nothing: its references are left alone', async () => {
    const first = await offloadToolResultsWithWriter(conversation(text(400)), OUT, createMemoryWriter());
    const writer = createMemoryWriter();
    const second = await offloadToolResultsWithWriter(first.messages, OUT, writer, { charThreshold: 1, ratioThreshold: 0 });
    expect(second.messages).toBe(first.messages);
    expect(writer.calls).toEqual([]);
  });
});

describe('offloadToolResultsWithWriter — never overwrite, reuse identical', () => {
  it('takes the next free suffix when the base name holds other content, leaving it intact', async () => {
    const writer = createMemoryWriter({ files: { 'out/tool-result-t.md': 'someone else' } });
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', text(200)))], OUT, writer);
    expect(writer.files.get('out/tool-result-t.md')).toBe('someone else');
    expect(writer.files.get('out/tool-result-t-1.md')).toBe(text(200));
    expect(result.files).toEqual(['out/tool-result-t-1.md']);
    expect(blocksOf(result.messages[0]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-t-1.md]');
  });

  it('skips every taken suffix, and never gives one name to two blocks of the same call', async () => {
    const writer = createMemoryWriter({ files: { 'out/tool-result-t.md': 'other', 'out/tool-result-t-2.md': 'other' } });
    const messages = [userMessage(toolResult('t', text(200, 'a'))), userMessage(toolResult('t', text(200, 'b')))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    // The first block's base name is taken; -1 is planned for the second, -2 is taken: -3.
    expect(result.files).toEqual(['out/tool-result-t-3.md', 'out/tool-result-t-1.md']);
    expect(writer.files.get('out/tool-result-t-3.md')).toBe(text(200, 'a'));
    expect(writer.files.get('out/tool-result-t-1.md')).toBe(text(200, 'b'));
  });

  it('reuses a file that already holds exactly this content and counts it', async () => {
    const writer = createMemoryWriter({ files: { 'out/tool-result-t.md': text(200) } });
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', text(200)))], OUT, writer);
    expect(result).toMatchObject({ offloadedCount: 1, freedChars: 200, files: ['out/tool-result-t.md'] });
    expect(countWrites(writer)).toBe(0);
  });

  it('writes nothing new when the same offload runs twice', async () => {
    const writer = createMemoryWriter();
    const messages = [
      userMessage(toolResult('a', text(200)), toolResult('a', text(300))),
      userMessage(toolResult('b', text(250))),
    ];
    const first = await offloadToolResultsWithWriter(messages, OUT, writer);
    const writesAfterFirst = countWrites(writer);
    const second = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(writesAfterFirst).toBe(3);
    expect(countWrites(writer)).toBe(3);
    expect(second).toEqual(first);
  });

  it('uses plain writes with a writer of only ensureDir and writeFile', async () => {
    const writer = createMemoryWriter({ exclusive: false, files: { 'out/tool-result-t.md': 'old' } });
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('t', text(200)))], OUT, writer);
    expect(writer.calls.map((call) => call.method)).toEqual(['ensureDir', 'writeFile']);
    expect(writer.files.get('out/tool-result-t.md')).toBe(text(200));
    expect(result.files).toEqual(['out/tool-result-t.md']);
  });

  it('fails with WRITE_FAILED rather than spinning when a writer never creates anything', async () => {
    const writer = createMemoryWriter();
    writer.createExclusive = async () => 'exists';
    await expect(offloadToolResultsWithWriter([userMessage(toolResult('t', text(200)))], OUT, writer)).rejects.toMatchObject({
      code: 'WRITE_FAILED',
      message: expect.stringContaining('no free file name'),
    });
  });
});

describe('offloadToolResultsWithWriter — options beyond the specs', () => {
  describe('reference', () => {
    it("'absolute' writes the file's path into the reference", async () => {
      const writer = createMemoryWriter({ resolve: true });
      const result = await offloadToolResultsWithWriter(conversation(text(200)), OUT, writer, { reference: 'absolute' });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: /abs/out/tool-result-toolu_01abc.md]');
    });
  });

  describe('keepRecent', () => {
    it('keeps the newest N tool results inline, counting small ones too', async () => {
      const writer = createMemoryWriter();
      const messages = [
        userMessage(toolResult('r1', text(200))),
        userMessage(toolResult('r2', text(200))),
        userMessage(toolResult('r3', 'small')),
      ];
      const result = await offloadToolResultsWithWriter(messages, OUT, writer, { keepRecent: 2 });
      expect(result.files).toEqual(['out/tool-result-r1.md']);
      expect(result.messages[1]).toBe(messages[1]);
      expect(result.messages[2]).toBe(messages[2]);
    });

    it('skips when keepRecent covers every tool result', async () => {
      const writer = createMemoryWriter();
      const messages = [userMessage(toolResult('r1', text(200)))];
      const result = await offloadToolResultsWithWriter(messages, OUT, writer, { keepRecent: 1 });
      expect(result.messages).toBe(messages);
      expect(writer.calls).toEqual([]);
    });
  });

  describe('excludeTools', () => {
    it('never offloads the results of an excluded tool, named by the matching tool_use', async () => {
      const writer = createMemoryWriter();
      const messages = [
        assistantMessage(toolUse('r', 'read_file'), toolUse('g', 'grep')),
        userMessage(toolResult('r', text(300)), toolResult('g', text(300))),
      ];
      const result = await offloadToolResultsWithWriter(messages, OUT, writer, { excludeTools: ['read_file'] });
      expect(result.files).toEqual(['out/tool-result-g.md']);
      expect(blocksOf(result.messages[1]!)[0]!.content).toBe(text(300));
    });

    it('does not exclude a result that has no matching tool_use', async () => {
      const writer = createMemoryWriter();
      const result = await offloadToolResultsWithWriter([userMessage(toolResult('orphan', text(300)))], OUT, writer, {
        excludeTools: ['read_file'],
      });
      expect(result.offloadedCount).toBe(1);
    });
  });

  describe('preview', () => {
    it('follows the reference with the first and last characters and how much was left out', async () => {
      const content = `HEAD-${text(300, '.')}-TAIL`;
      const result = await offloadToolResultsWithWriter(conversation(content), OUT, createMemoryWriter(), {
        preview: { headChars: 5, tailChars: 5 },
      });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        '[Content offloaded to: ./tool-result-toolu_01abc.md]\nPreview (first 5 and last 5 of 310 chars):\nHEAD-\n[... 300 chars omitted ...]\n-TAIL',
      );
    });

    it('never splits a surrogate pair at the head or the tail', async () => {
      const content = `ab😀${text(200)}😀c`;
      const result = await offloadToolResultsWithWriter(conversation(content), OUT, createMemoryWriter(), {
        preview: { headChars: 3, tailChars: 2 },
      });
      const reference = blocksOf(result.messages[2]!)[0]!.content as string;
      expect(reference).toContain('Preview (first 2 and last 1 of 207 chars):\nab\n');
      expect(reference.endsWith('\nc')).toBe(true);
      expect(reference).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    });

    it('shows the whole content when head and tail cover it', async () => {
      const content = text(120);
      const result = await offloadToolResultsWithWriter(conversation(content), OUT, createMemoryWriter(), {
        preview: { headChars: 100, tailChars: 100 },
      });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        `[Content offloaded to: ./tool-result-toolu_01abc.md]\nPreview (all 120 chars):\n${content}`,
      );
    });

    it('uses 200 head and 100 tail chars for preview: true', async () => {
      const content = `${text(200, 'h')}${text(500, '.')}${text(100, 't')}`;
      const result = await offloadToolResultsWithWriter(conversation(content), OUT, createMemoryWriter(), { preview: true });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        `[Content offloaded to: ./tool-result-toolu_01abc.md]\nPreview (first 200 and last 100 of 800 chars):\n${text(200, 'h')}\n[... 500 chars omitted ...]\n${text(100, 't')}`,
      );
    });

    it('leaves the reference exact when preview is off (the default)', async () => {
      const result = await offloadToolResultsWithWriter(conversation(text(300)), OUT, createMemoryWriter(), { preview: false });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe('[Content offloaded to: ./tool-result-toolu_01abc.md]');
    });
  });
});

describe('offloadToolResultsWithWriter — thresholds from options and environment', () => {
  it('reads OFFLOAD_CHAR_THRESHOLD at call time', async () => {
    const messages = [userMessage(toolResult('t', text(150)))];
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '200');
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).offloadedCount).toBe(0);
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '150');
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).offloadedCount).toBe(1);
  });

  it('reads OFFLOAD_RATIO_THRESHOLD at call time', async () => {
    const messages = [{ role: 'user' as const, content: text(500) }, userMessage(toolResult('t', text(500)))];
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', '0.6');
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).offloadedCount).toBe(0);
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', ' 0.5 ');
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).offloadedCount).toBe(1);
  });

  it('prefers the options over the environment', async () => {
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '1000');
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', '1');
    const messages = [{ role: 'user' as const, content: text(500) }, userMessage(toolResult('t', text(150)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter(), { charThreshold: 100, ratioThreshold: 0.2 });
    expect(result.offloadedCount).toBe(1);
  });

  it.each([
    ['OFFLOAD_CHAR_THRESHOLD', 'abc', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "abc"/],
    ['OFFLOAD_CHAR_THRESHOLD', '-5', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "-5"/],
    ['OFFLOAD_CHAR_THRESHOLD', '0', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "0"/],
    ['OFFLOAD_RATIO_THRESHOLD', '0.3abc', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "0.3abc"/],
    ['OFFLOAD_RATIO_THRESHOLD', '1.5', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "1.5"/],
    ['OFFLOAD_RATIO_THRESHOLD', '-0.1', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "-0.1"/],
  ])('rejects %s=%s naming the variable, before touching the writer', async (name, value, message) => {
    vi.stubEnv(name, value);
    const writer = createMemoryWriter();
    await expect(offloadToolResultsWithWriter(conversation(text(500)), OUT, writer)).rejects.toThrow(message);
    await expect(offloadToolResultsWithWriter(conversation(text(500)), OUT, writer)).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    expect(writer.calls).toEqual([]);
  });

  it.each([
    [{ charThreshold: 0 }, /charThreshold must be a number >= 1, got 0/],
    [{ charThreshold: -1 }, /charThreshold must be a number >= 1, got -1/],
    [{ charThreshold: '100' }, /charThreshold must be a number >= 1, got "100"/],
    [{ ratioThreshold: 1.01 }, /ratioThreshold must be a number in \[0, 1\], got 1.01/],
    [{ ratioThreshold: Number.NaN }, /ratioThreshold must be a number in \[0, 1\], got NaN/],
    [{ keepRecent: -1 }, /keepRecent must be an integer >= 0, got -1/],
    [{ keepRecent: 1.5 }, /keepRecent must be an integer >= 0, got 1.5/],
    [{ excludeTools: 'read_file' }, /excludeTools must be an array of strings, got "read_file"/],
    [{ reference: 'upward' }, /reference must be "relative" or "absolute", got "upward"/],
    [{ preview: { headChars: -1 } }, /preview.headChars must be an integer >= 0, got -1/],
    [{ preview: 'yes' }, /preview must be an object, got "yes"/],
  ])('rejects the option %j with INVALID_OPTION, naming it, before touching the writer', async (options, message) => {
    const writer = createMemoryWriter();
    const promise = offloadToolResultsWithWriter(conversation(text(500)), OUT, writer, options as never);
    await expect(promise).rejects.toThrow(message);
    expect(writer.calls).toEqual([]);
  });

  it('rejects an empty outputDir and a writer without its methods', async () => {
    await expect(offloadToolResultsWithWriter(conversation(text(500)), '', createMemoryWriter())).rejects.toThrow(
      /outputDir must be a non-blank string, got ""/,
    );
    await expect(offloadToolResultsWithWriter(conversation(text(500)), OUT, { ensureDir: async () => undefined } as never)).rejects.toThrow(
      /writer must be a FileWriter with a writeFile method/,
    );
  });
});

describe('offloadToolResultsWithWriter — bad input and failures', () => {
  it.each([
    ['../escape'],
    ['a/b'],
    ['a\\b'],
    ['..'],
    ['nul\0byte'],
    ['spaces are out'],
    ['x'.repeat(201)],
  ])('maps the tool_use_id %j to a safe file name in outputDir instead of failing the batch', async (id) => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('fine', text(300))), userMessage(toolResult(id, text(301)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(result.offloadedCount).toBe(2);
    const mapped = result.files[1]!;
    expect(mapped).toMatch(/^out\/tool-result-[A-Za-z0-9._-]*~[0-9a-z]{11}\.md$/);
    expect(writer.files.get(mapped)).toBe(text(301));
    expect(blocksOf(result.messages[1]!)[0]!.content).toBe(`[Content offloaded to: ./${mapped.slice('out/'.length)}]`);
    // the same id maps to the same name on every run
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).files[1]).toBe(mapped);
  });

  it('does not check the id of a block it does not offload', async () => {
    const messages = [userMessage(toolResult('../small', 'tiny'), toolResult('big', text(300)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter());
    expect(result.files).toEqual(['out/tool-result-big.md']);
  });

  it.each([
    ['not an array', { role: 'user' }, 'messages', /expected an array of messages/],
    ['a message without role', [{ content: 'x' }], 'messages[0].role', /expected "system", "user" or "assistant"/],
    ['content that is a number', [{ role: 'user', content: 42 }], 'messages[0].content', /expected a string or an array of blocks, got 42/],
    [
      'a tool_result without a string tool_use_id',
      [{ role: 'user', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'tool_result', content: 'x' }] }],
      'messages[1].content[1].tool_use_id',
      /expected a string, got undefined/,
    ],
    [
      'a tool_result whose content is an object',
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: { text: 'x' } }] }],
      'messages[0].content[0].content',
      /expected a string or an array of blocks/,
    ],
  ])('rejects %s with INVALID_MESSAGE and the path of the bad field', async (_label, messages, path, message) => {
    const writer = createMemoryWriter();
    const error: unknown = await offloadToolResultsWithWriter(messages as never, OUT, writer).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE', path });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
    expect(writer.calls).toEqual([]);
  });

  it('rejects a failed write with WRITE_FAILED, the OS error as cause, and the input unchanged', async () => {
    const cause = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const writer = createMemoryWriter({ failWrite: (path) => (path.endsWith('b.md') ? cause : undefined) });
    const messages = deepFreeze([userMessage(toolResult('a', text(300))), userMessage(toolResult('b', text(300)))]);
    const snapshot = structuredClone(messages);
    const error: unknown = await offloadToolResultsWithWriter(messages, OUT, writer).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WriteFailedError);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause, message: expect.stringContaining('out/tool-result-b.md') });
    expect(messages).toEqual(snapshot);
  });

  it('rejects with WRITE_FAILED when the directory cannot be created, writing nothing', async () => {
    const cause = new Error('EACCES');
    const writer = createMemoryWriter({ failEnsureDir: cause });
    const error: unknown = await offloadToolResultsWithWriter(conversation(text(300)), OUT, writer).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'WRITE_FAILED', cause });
    expect(countWrites(writer)).toBe(0);
  });

  it('passes a ContextError from the writer through as it is', async () => {
    const own = new WriteFailedError('disk quota', { cause: new Error('EDQUOT') });
    const writer = createMemoryWriter({ failWrite: () => own });
    await expect(offloadToolResultsWithWriter(conversation(text(300)), OUT, writer)).rejects.toBe(own);
    expect(own).toBeInstanceOf(ContextError);
  });

  it('starts no write after a failure and settles the running ones before rejecting', async () => {
    let running = 0;
    let maxRunning = 0;
    let started = 0;
    const writer = createMemoryWriter({ exclusive: false });
    writer.writeFile = async (path) => {
      started++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running--;
      if (path.endsWith('r0.md')) throw new Error('EIO');
    };
    const messages = Array.from({ length: 100 }, (_, index) => userMessage(toolResult(`r${index}`, text(200))));
    await expect(offloadToolResultsWithWriter(messages, OUT, writer)).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(running).toBe(0);
    expect(maxRunning).toBeLessThanOrEqual(16);
    expect(started).toBeLessThan(100);
  });
});

describe('offloadToolResultsWithWriter — hostile and unlucky input', () => {
  it("gives a, a (duplicate) and a-1 three files with a writer of only ensureDir and writeFile: no content lost", async () => {
    const writer = createMemoryWriter({ exclusive: false });
    const messages = [userMessage(toolResult('a', text(150, 'p')), toolResult('a', text(150, 'q')), toolResult('a-1', text(150, 'r')))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(new Set(result.files).size).toBe(3);
    expect(result.files.map((file) => writer.files.get(file))).toEqual([text(150, 'p'), text(150, 'q'), text(150, 'r')]);
  });

  it('lists the directory once after a taken name and writes no temporary copy per name tried', async () => {
    const taken = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [`out/${index === 0 ? 'tool-result-a.md' : `tool-result-a-${index}.md`}`, `other ${index}`]),
    );
    const writer = createMemoryWriter({ listing: true, files: taken });
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], OUT, writer);
    expect(result.files).toEqual(['out/tool-result-a-50.md']);
    expect(writer.calls.filter((call) => call.method === 'listDir')).toHaveLength(1);
    expect(writer.calls.filter((call) => call.method === 'createExclusive')).toHaveLength(2);
  });

  it('finds an identical file among the taken suffixes, so a rerun in a shared directory writes nothing new', async () => {
    const writer = createMemoryWriter({ listing: true, files: { 'out/tool-result-a.md': 'other', 'out/tool-result-a-1.md': text(300) } });
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], OUT, writer);
    expect(result.files).toEqual(['out/tool-result-a-1.md']);
    expect(countWrites(writer)).toBe(0);
  });

  it('offloads a large result that merely starts with a reference line: it is not one', async () => {
    const writer = createMemoryWriter();
    const content = `[Content offloaded to: ./tool-result-x.md]\n${text(1_000_000)}`;
    const result = await offloadToolResultsWithWriter([userMessage(toolResult('big', content))], OUT, writer);
    expect(result.offloadedCount).toBe(1);
    expect(writer.files.get('out/tool-result-big.md')).toBe(content);
  });

  it('writes and compares text with lone surrogates well-formed, counting the blocks it repaired', async () => {
    const writer = createMemoryWriter();
    const messages = [userMessage(toolResult('s', `broken \uD800 pair ${text(200)}`), toolResult('t', text(200)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(writer.files.get('out/tool-result-s.md')).toBe(`broken \uFFFD pair ${text(200)}`);
    expect(result.repairedCount).toBe(1);
    const again = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(again.files).toEqual(result.files);
    expect(countWrites(writer)).toBe(2);
  });

  it('keeps a __proto__ key as a property of the copies, not as their prototype', async () => {
    const messages = JSON.parse(
      `[{"role":"user","content":[{"type":"text","text":"t","__proto__":{"polluted":true}},{"type":"tool_result","tool_use_id":"p","content":"${text(500)}","__proto__":{"x":1}}]}]`,
    ) as Message[];
    const result = await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter());
    const [textBlock, resultBlock] = blocksOf(result.messages[0]!);
    for (const block of [textBlock!, resultBlock!]) {
      expect(Object.getPrototypeOf(block)).toBe(Object.prototype);
      expect(Object.keys(block)).toContain('__proto__');
    }
    expect((textBlock as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(textBlock, '__proto__')?.value).toEqual({ polluted: true });
  });

  const deep = (levels: number): Record<string, unknown> => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let level = 0; level < levels; level += 1) node = (node.next = {}) as Record<string, unknown>;
    return root;
  };
  const cyclic = (): Record<string, unknown> => {
    const input: Record<string, unknown> = { list: [1] };
    (input.list as unknown[]).push(input);
    return input;
  };
  it.each([
    ['a cycle', () => cyclic(), /messages\[0\]\.content\[0\]\.input\.list\[1\]: a cycle/],
    ['a BigInt', () => ({ size: 10n }), /messages\[0\]\.content\[0\]\.input\.size: a BigInt/],
    ['20,000 levels of nesting', () => deep(20_000), /messages\[0\]\.content\[0\]\.input\.next.*: nested deeper than 1000 levels/],
  ])('rejects %s in a message with INVALID_MESSAGE and its path, writing nothing', async (_label, makeInput, message) => {
    const writer = createMemoryWriter();
    const messages = [assistantMessage(toolUse('c', 'tool', makeInput())), userMessage(toolResult('c', text(300)))];
    const error: unknown = await offloadToolResultsWithWriter(messages, OUT, writer).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_MESSAGE', message: expect.stringMatching(message) });
    expect(writer.calls).toEqual([]);
  });

  it('accepts an object shared by two fields (not a cycle)', async () => {
    const shared = { path: 'a.txt' };
    const messages = [assistantMessage(toolUse('c', 'tool', { first: shared, second: shared })), userMessage(toolResult('c', text(300)))];
    expect((await offloadToolResultsWithWriter(messages, OUT, createMemoryWriter())).offloadedCount).toBe(1);
  });

  it.each([['out\nput'], ['out\u001b[31m'], ['   '], ['a\u0000b']])('refuses the outputDir %j before anything is written', async (outputDir) => {
    const writer = createMemoryWriter();
    await expect(offloadToolResultsWithWriter([userMessage(toolResult('a', text(300)))], outputDir, writer)).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringMatching(/^outputDir must (be a non-blank string|not contain control characters)/),
    });
    expect(writer.calls).toEqual([]);
  });
});

describe('offloadToolResultsWithWriter — the read tool', () => {
  it('never offloads what read_offloaded returned, however large, without being told', async () => {
    const writer = createMemoryWriter();
    const messages = [assistantMessage(toolUse('r', 'read_offloaded'), toolUse('b', 'bash')), userMessage(toolResult('r', text(5000)), toolResult('b', text(5000)))];
    const result = await offloadToolResultsWithWriter(messages, OUT, writer);
    expect(blocksOf(result.messages[1]!)[0]!.content).toBe(text(5000));
    expect(result.files).toEqual(['out/tool-result-b.md']);
  });
});
