/**
 * Batch offload on the memory store: what it stores under which key and what it returns, by
 * threshold, ratio gate, name and option. Bad input, copies and existing references are in
 * offload-input.test.ts; the FileWriter form (`offloadToolResultsWithWriter`) and its faults in
 * tests/integration/api/offload-with-writer.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { buildPreview } from '../../../../src/core/offload/offload-reference.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  assistantMessage,
  blocksOf,
  clearOffloadEnvironment,
  conversation,
  createStoreWith,
  memoryLocationOf as locationOf,
  memoryReferenceTo as referenceTo,
  offloadIntoStore as offload,
  refuseOffload as refusal,
  text,
  toolResult,
  toolUse,
  userMessage,
} from '../../../fixtures/offload-fixtures.js';

clearOffloadEnvironment();

describe('offloadToolResults: large and small results', () => {
  it('stores a tool_result of >= 100 chars and puts a reference in its place', async () => {
    const content = text(300);
    const { result, stored } = await offload(conversation(content));
    expect(result.messages[2]).toEqual(
      userMessage(toolResult('toolu_01abc', referenceTo('tool-result-toolu_01abc.md'))),
    );
    expect(stored).toEqual({ 'tool-result-toolu_01abc.md': content });
    expect(result).toMatchObject({
      offloadedCount: 1,
      freedChars: 300,
      files: [locationOf('tool-result-toolu_01abc.md')],
    });
  });

  it('leaves a tool_result of < 100 chars as it is and stores nothing for it', async () => {
    const messages = [userMessage(toolResult('small', text(99))), ...conversation(text(500), 'big')];
    const { result, stored } = await offload(messages);
    expect(result.messages[0]).toBe(messages[0]);
    expect(Object.keys(stored)).toEqual(['tool-result-big.md']);
  });

  it('offloads only the large results of a mixed history', async () => {
    const messages: Message[] = [
      assistantMessage(toolUse('a'), toolUse('b'), toolUse('c')),
      userMessage(toolResult('a', text(150)), toolResult('b', 'short error'), toolResult('c', text(100))),
    ];
    const { result } = await offload(messages);
    expect(result.messages[1]).toEqual(
      userMessage(
        toolResult('a', referenceTo('tool-result-a.md')),
        toolResult('b', 'short error'),
        toolResult('c', referenceTo('tool-result-c.md')),
      ),
    );
    expect(result.offloadedCount).toBe(2);
    expect(result.freedChars).toBe(250);
  });

  it('returns the messages as they are and stores nothing when there is no tool_result', async () => {
    const messages: Message[] = [
      { role: 'user', content: text(500) },
      { role: 'assistant', content: [{ type: 'text', text: text(500) }] },
    ];
    const { result, stored } = await offload(messages);
    expect(result).toEqual({ messages, offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });
});

describe('offloadToolResults: walk and names', () => {
  it('returns { messages: [], offloadedCount: 0, freedChars: 0, files: [] } for an empty history', async () => {
    const messages: Message[] = [];
    const { result, stored } = await offload(messages);
    expect(result).toEqual({ messages: [], offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });

  it('walks oldest to newest: the oldest use of an id gets the base name, later uses -1 and -2', async () => {
    const messages = [
      userMessage(toolResult('dup', text(100, 'a'))),
      userMessage(toolResult('dup', text(100, 'b'))),
      userMessage(toolResult('dup', text(100, 'c'))),
    ];
    const { result, stored } = await offload(messages);
    expect(result.files).toEqual(
      ['tool-result-dup.md', 'tool-result-dup-1.md', 'tool-result-dup-2.md'].map(locationOf),
    );
    expect(stored).toEqual({
      'tool-result-dup.md': text(100, 'a'),
      'tool-result-dup-1.md': text(100, 'b'),
      'tool-result-dup-2.md': text(100, 'c'),
    });
    expect(result.messages.map((message) => blocksOf(message)[0]!.content)).toEqual(
      ['tool-result-dup.md', 'tool-result-dup-1.md', 'tool-result-dup-2.md'].map(referenceTo),
    );
  });

  it('gives suffixes by use among offloaded blocks: a small block with the same id takes no name', async () => {
    const { result } = await offload([userMessage(toolResult('x', 'tiny'), toolResult('x', text(200)))], {
      ratioThreshold: 0,
    });
    expect(result.files).toEqual([locationOf('tool-result-x.md')]);
  });

  it('stores an array content as JSON.stringify(array) and replaces it with a string', async () => {
    const content: ContentBlock[] = [
      { type: 'text', text: text(80) },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ];
    const { result, stored } = await offload(conversation(content));
    expect(stored['tool-result-toolu_01abc.md']).toBe(JSON.stringify(content));
    expect(blocksOf(result.messages[2]!)[0]!.content).toBe(referenceTo('tool-result-toolu_01abc.md'));
    // the image's base64 data is not counted as characters of the result
    expect(result.freedChars).toBe(JSON.stringify(content).length - 'AAAA'.length);
  });

  it('reports offloadedCount, freedChars (original counts) and files in walk order', async () => {
    const { result } = await offload([
      userMessage(toolResult('one', text(120))),
      userMessage(toolResult('two', text(340))),
    ]);
    expect(result.offloadedCount).toBe(2);
    expect(result.freedChars).toBe(460);
    expect(result.files).toEqual([locationOf('tool-result-one.md'), locationOf('tool-result-two.md')]);
  });
});

describe('offloadToolResults: char threshold', () => {
  it('offloads a string of exactly 100 chars', async () => {
    const { result } = await offload([userMessage(toolResult('t', text(100)))]);
    expect(result.offloadedCount).toBe(1);
  });

  it('does not offload a string of 99 chars', async () => {
    const messages = [userMessage(toolResult('t', text(99)))];
    const { result, stored } = await offload(messages);
    expect(result.offloadedCount).toBe(0);
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });

  it('never offloads an empty string', async () => {
    const { result, stored } = await offload([userMessage(toolResult('t', '')), { role: 'user', content: text(10) }], {
      charThreshold: 1,
      ratioThreshold: 0,
    });
    expect(result.offloadedCount).toBe(0);
    expect(stored).toEqual({});
  });

  it('counts an array content by JSON.stringify(content).length: 100 offloads, 99 does not', async () => {
    const arrayOf = (length: number): ContentBlock[] => {
      const overhead = JSON.stringify([{ type: 'text', text: '' }]).length;
      return [{ type: 'text', text: text(length - overhead) }];
    };
    expect(JSON.stringify(arrayOf(100)).length).toBe(100);
    expect((await offload([userMessage(toolResult('t', arrayOf(100)))])).result.offloadedCount).toBe(1);
    expect((await offload([userMessage(toolResult('t', arrayOf(99)))])).result.offloadedCount).toBe(0);
  });

  it('counts UTF-16 code units: 50 emoji are 100 chars and are offloaded', async () => {
    const { result } = await offload([userMessage(toolResult('t', '😀'.repeat(50)))]);
    expect(result.offloadedCount).toBe(1);
    expect(result.freedChars).toBe(100);
  });

  it('takes the charThreshold option over the default', async () => {
    const { result } = await offload([userMessage(toolResult('t', text(99)))], { charThreshold: 50 });
    expect(result.offloadedCount).toBe(1);
  });
});

describe('offloadToolResults: ratio gate', () => {
  /** A history of `otherChars` of text and one tool result of `resultChars`. */
  function history(otherChars: number, resultChars: number): Message[] {
    return [{ role: 'user', content: text(otherChars) }, userMessage(toolResult('r', text(resultChars)))];
  }

  it('offloads when offloadable chars / total chars >= 0.2', async () => {
    expect((await offload(history(300, 200))).result.offloadedCount).toBe(1);
  });

  it('skips below 0.2: returns the input array itself and stores nothing', async () => {
    const messages = history(1000, 200);
    const { result, stored } = await offload(messages);
    expect(result).toEqual({ messages, offloadedCount: 0, freedChars: 0, files: [] });
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });

  it('skips when nothing qualifies, even at the lowest thresholds', async () => {
    const messages = [userMessage(toolResult('a', ''), toolResult('b', ''))];
    const { result, stored } = await offload(messages, { charThreshold: 1, ratioThreshold: 0 });
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });

  it('offloads at a ratio of exactly 0.2 (100 of 500 chars)', async () => {
    expect((await offload(history(400, 100))).result.offloadedCount).toBe(1);
  });

  it('skips at a ratio of 0.1999 (1999 of 10000 chars)', async () => {
    const { result, stored } = await offload(history(8001, 1999));
    expect(result.offloadedCount).toBe(0);
    expect(stored).toEqual({});
  });

  it('offloads at ratio threshold 0 whenever something qualifies (100 of 1,000,100 chars)', async () => {
    expect((await offload(history(1_000_000, 100), { ratioThreshold: 0 })).result.offloadedCount).toBe(1);
  });

  it('skips at ratio threshold 0 when nothing is offloadable', async () => {
    const { result, stored } = await offload(history(500, 99), { ratioThreshold: 0 });
    expect(result.offloadedCount).toBe(0);
    expect(stored).toEqual({});
  });

  it('at ratio threshold 1 offloads only when every counted char is offloadable', async () => {
    expect((await offload(history(0, 150), { ratioThreshold: 1 })).result.offloadedCount).toBe(1);
    expect((await offload(history(1, 150), { ratioThreshold: 1 })).result.offloadedCount).toBe(0);
  });

  it('counts existing references and excluded tools in the total but not as offloadable', async () => {
    const messages = [
      assistantMessage(toolUse('keep', 'read_offloaded')),
      userMessage(
        toolResult(
          'old',
          `[Content offloaded to: ./tool-result-old.md]${buildPreview(text(900), { headChars: 200, tailChars: 100 })}`,
        ),
        toolResult('keep', text(900)),
        toolResult('new', text(200)),
      ),
    ];
    // 200 offloadable of 2 + 409 + 900 + 200 chars: 0.13, below 0.2; without the two, 200 of 202.
    const { result, stored } = await offload(messages, { excludeTools: ['read_offloaded'] });
    expect(result.messages).toBe(messages);
    expect(stored).toEqual({});
  });
});

describe('offloadToolResults: never overwrite, reuse identical', () => {
  it('takes the next free suffix when the base name holds other content, leaving it intact', async () => {
    const store = await createStoreWith({ 'tool-result-t.md': 'someone else' });
    const { result, stored } = await offload([userMessage(toolResult('t', text(200)))], {}, store);
    expect(stored).toEqual({ 'tool-result-t.md': 'someone else', 'tool-result-t-1.md': text(200) });
    expect(result.files).toEqual([locationOf('tool-result-t-1.md')]);
    expect(blocksOf(result.messages[0]!)[0]!.content).toBe(referenceTo('tool-result-t-1.md'));
  });

  it('skips every taken suffix, and never gives one name to two blocks of the same call', async () => {
    const store = await createStoreWith({ 'tool-result-t.md': 'other', 'tool-result-t-2.md': 'other' });
    const { result, stored } = await offload(
      [userMessage(toolResult('t', text(200, 'a'))), userMessage(toolResult('t', text(200, 'b')))],
      {},
      store,
    );
    // The first block's base name is taken; -1 is planned for the second, -2 is taken: -3.
    expect(result.files).toEqual([locationOf('tool-result-t-3.md'), locationOf('tool-result-t-1.md')]);
    expect(stored).toMatchObject({ 'tool-result-t-3.md': text(200, 'a'), 'tool-result-t-1.md': text(200, 'b') });
  });

  it('reuses a key that already holds exactly this content and counts it', async () => {
    const store = await createStoreWith({ 'tool-result-t.md': text(200) });
    const { result, stored } = await offload([userMessage(toolResult('t', text(200)))], {}, store);
    expect(result).toMatchObject({ offloadedCount: 1, freedChars: 200, files: [locationOf('tool-result-t.md')] });
    expect(stored).toEqual({ 'tool-result-t.md': text(200) });
  });

  it('finds an identical content among the taken suffixes, so a rerun into a shared store adds nothing', async () => {
    const store = await createStoreWith({ 'tool-result-a.md': 'other', 'tool-result-a-1.md': text(300) });
    const { result, stored } = await offload([userMessage(toolResult('a', text(300)))], {}, store);
    expect(result.files).toEqual([locationOf('tool-result-a-1.md')]);
    expect(stored).toEqual({ 'tool-result-a.md': 'other', 'tool-result-a-1.md': text(300) });
  });

  it('stores nothing new when the same offload runs twice', async () => {
    const store = createMemoryStore();
    const messages = [
      userMessage(toolResult('a', text(200)), toolResult('a', text(300))),
      userMessage(toolResult('b', text(250))),
    ];
    const first = await offload(messages, {}, store);
    const second = await offload(messages, {}, store);
    expect(Object.keys(first.stored)).toHaveLength(3);
    expect(second.stored).toEqual(first.stored);
    expect(second.result).toEqual(first.result);
  });

  it('stores text with lone surrogates well-formed, counts the blocks it repaired, and reuses them on a rerun', async () => {
    const store = createMemoryStore();
    const messages = [userMessage(toolResult('s', `broken \uD800 pair ${text(200)}`), toolResult('t', text(200)))];
    const { result, stored } = await offload(messages, {}, store);
    expect(stored['tool-result-s.md']).toBe(`broken \uFFFD pair ${text(200)}`);
    expect(result.repairedCount).toBe(1);
    const again = await offload(messages, {}, store);
    expect(again.result.files).toEqual(result.files);
    expect(again.stored).toEqual(stored);
  });
});

describe('offloadToolResults: options', () => {
  describe('keepRecent', () => {
    it('keeps the newest N tool results inline, counting small ones too', async () => {
      const messages = [
        userMessage(toolResult('r1', text(200))),
        userMessage(toolResult('r2', text(200))),
        userMessage(toolResult('r3', 'small')),
      ];
      const { result } = await offload(messages, { keepRecent: 2 });
      expect(result.files).toEqual([locationOf('tool-result-r1.md')]);
      expect(result.messages[1]).toBe(messages[1]);
      expect(result.messages[2]).toBe(messages[2]);
    });

    it('skips when keepRecent covers every tool result', async () => {
      const messages = [userMessage(toolResult('r1', text(200)))];
      const { result, stored } = await offload(messages, { keepRecent: 1 });
      expect(result.messages).toBe(messages);
      expect(stored).toEqual({});
    });
  });

  describe('excludeTools', () => {
    it('never offloads the results of an excluded tool, named by the matching tool_use', async () => {
      const messages = [
        assistantMessage(toolUse('r', 'read_file'), toolUse('g', 'grep')),
        userMessage(toolResult('r', text(300)), toolResult('g', text(300))),
      ];
      const { result } = await offload(messages, { excludeTools: ['read_file'] });
      expect(result.files).toEqual([locationOf('tool-result-g.md')]);
      expect(blocksOf(result.messages[1]!)[0]!.content).toBe(text(300));
    });

    it('does not exclude a result that has no matching tool_use', async () => {
      const { result } = await offload([userMessage(toolResult('orphan', text(300)))], { excludeTools: ['read_file'] });
      expect(result.offloadedCount).toBe(1);
    });

    it('never offloads what read_offloaded returned, however large, without being told', async () => {
      const messages = [
        assistantMessage(toolUse('r', 'read_offloaded'), toolUse('b', 'bash')),
        userMessage(toolResult('r', text(5000)), toolResult('b', text(5000))),
      ];
      const { result } = await offload(messages);
      expect(blocksOf(result.messages[1]!)[0]!.content).toBe(text(5000));
      expect(result.files).toEqual([locationOf('tool-result-b.md')]);
    });
  });

  describe('preview', () => {
    it('follows the reference with the first and last characters and how much was left out', async () => {
      const { result } = await offload(conversation(`HEAD-${text(300, '.')}-TAIL`), {
        preview: { headChars: 5, tailChars: 5 },
      });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        `${referenceTo('tool-result-toolu_01abc.md')}\nPreview (first 5 and last 5 of 310 chars):\nHEAD-\n[... 300 chars omitted ...]\n-TAIL`,
      );
    });

    it('never splits a surrogate pair at the head or the tail', async () => {
      const { result } = await offload(conversation(`ab😀${text(200)}😀c`), {
        preview: { headChars: 3, tailChars: 2 },
      });
      const reference = blocksOf(result.messages[2]!)[0]!.content as string;
      expect(reference).toContain('Preview (first 2 and last 1 of 207 chars):\nab\n');
      expect(reference.endsWith('\nc')).toBe(true);
      expect(reference).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    });

    it('shows the whole content when head and tail cover it', async () => {
      const content = text(120);
      const { result } = await offload(conversation(content), { preview: { headChars: 100, tailChars: 100 } });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        `${referenceTo('tool-result-toolu_01abc.md')}\nPreview (all 120 chars):\n${content}`,
      );
    });

    it('uses 200 head and 100 tail chars for preview: true', async () => {
      const content = `${text(200, 'h')}${text(500, '.')}${text(100, 't')}`;
      const { result } = await offload(conversation(content), { preview: true });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(
        `${referenceTo('tool-result-toolu_01abc.md')}\nPreview (first 200 and last 100 of 800 chars):\n${text(200, 'h')}\n[... 500 chars omitted ...]\n${text(100, 't')}`,
      );
    });

    it('leaves the reference exact when preview is off (the default)', async () => {
      const { result } = await offload(conversation(text(300)), { preview: false });
      expect(blocksOf(result.messages[2]!)[0]!.content).toBe(referenceTo('tool-result-toolu_01abc.md'));
    });
  });
});

describe('offloadToolResults: thresholds from options and environment', () => {
  it('reads OFFLOAD_CHAR_THRESHOLD at call time', async () => {
    const messages = [userMessage(toolResult('t', text(150)))];
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '200');
    expect((await offload(messages)).result.offloadedCount).toBe(0);
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '150');
    expect((await offload(messages)).result.offloadedCount).toBe(1);
  });

  it('reads OFFLOAD_RATIO_THRESHOLD at call time', async () => {
    const messages = [{ role: 'user' as const, content: text(500) }, userMessage(toolResult('t', text(500)))];
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', '0.6');
    expect((await offload(messages)).result.offloadedCount).toBe(0);
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', ' 0.5 ');
    expect((await offload(messages)).result.offloadedCount).toBe(1);
  });

  it('prefers the options over the environment', async () => {
    vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', '1000');
    vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', '1');
    const messages = [{ role: 'user' as const, content: text(500) }, userMessage(toolResult('t', text(150)))];
    expect((await offload(messages, { charThreshold: 100, ratioThreshold: 0.2 })).result.offloadedCount).toBe(1);
  });

  it.each([
    ['OFFLOAD_CHAR_THRESHOLD', 'abc', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "abc"/],
    ['OFFLOAD_CHAR_THRESHOLD', '-5', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "-5"/],
    ['OFFLOAD_CHAR_THRESHOLD', '0', /OFFLOAD_CHAR_THRESHOLD must be a number >= 1, got "0"/],
    ['OFFLOAD_RATIO_THRESHOLD', '0.3abc', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "0.3abc"/],
    ['OFFLOAD_RATIO_THRESHOLD', '1.5', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "1.5"/],
    ['OFFLOAD_RATIO_THRESHOLD', '-0.1', /OFFLOAD_RATIO_THRESHOLD must be a number in \[0, 1\], got "-0.1"/],
  ])('rejects %s=%s with INVALID_OPTION naming the variable, storing nothing', async (name, value, message) => {
    vi.stubEnv(name, value);
    const { error, stored } = await refusal(conversation(text(500)));
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(message) });
    expect(stored).toEqual({});
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
  ])('rejects the option %j with INVALID_OPTION, naming it, storing nothing', async (options, message) => {
    const { error, stored } = await refusal(conversation(text(500)), options as never);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(message) });
    expect(stored).toEqual({});
  });
});
