/**
 * Batch offload on the memory store: what it refuses before storing anything, what it copies
 * and what it leaves alone (references from earlier runs, blocks it does not offload).
 */
import { describe, expect, it } from 'vitest';
import { buildBatchReference, buildPreview } from '../../../../src/core/offload/offload-reference.js';
import type { ContentBlock, Message } from '../../../../src/core/types.js';
import {
  assistantMessage,
  blocksOf,
  clearOffloadEnvironment,
  conversation,
  deepFreeze,
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

describe('offloadToolResults: immutability and copies', () => {
  it('keeps untouched messages by reference and deep-copies changed ones', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'question' },
      assistantMessage(toolUse('t', 'read_file', { path: 'a.txt', nested: { deep: [1, 2] } })),
      userMessage({ type: 'text', text: 'see', meta: { tag: 'x' } }, toolResult('t', text(500))),
    ];
    const { result } = await offload(messages);
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
    expect((await offload(messages)).result.offloadedCount).toBe(1);
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
    const { result } = await offload([withId]);
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
              "content": "[Content offloaded to: memory://default/tool-result-t.md]",
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
    expect(Object.keys(blocksOf(result.messages[0]!)[1]!)).toEqual([
      'type',
      'tool_use_id',
      'content',
      'is_error',
      'cache_control',
    ]);
  });
});

describe('offloadToolResults: existing references', () => {
  it.each([
    ['a batch reference', `[Content offloaded to: ./tool-result-old.md]`],
    ['a direct reference', `[Tool result offloaded to file: /tmp/s/old.md]`],
    [
      'a batch reference with a preview',
      buildBatchReference('./tool-result-old.md') + buildPreview(text(9000), { headChars: 200, tailChars: 100 }),
    ],
    [
      'a batch reference with a whole preview',
      buildBatchReference('./tool-result-old.md') + buildPreview(text(90), { headChars: 200, tailChars: 100 }),
    ],
    ['an absolute batch reference', `[Content offloaded to: /srv/offload/tool-result-old.md]`],
    ["a memory store's reference", referenceTo('tool-result-old.md')],
  ])('never offloads %s again, whatever its length', async (_label, reference) => {
    const { result, stored } = await offload(
      [userMessage(toolResult('old', reference), toolResult('new', text(600)))],
      { charThreshold: 10, ratioThreshold: 0 },
    );
    expect(blocksOf(result.messages[0]!)[0]!.content).toBe(reference);
    expect(Object.keys(stored)).toEqual(['tool-result-new.md']);
  });

  it('never offloads a reference wrapped in a single text block', async () => {
    const wrapped: ContentBlock[] = [
      { type: 'text', text: `[Content offloaded to: ./tool-result-old.md]${text(200)}` },
    ];
    const messages = [
      userMessage(
        toolResult('old', [{ type: 'text', text: '[Content offloaded to: ./tool-result-old.md]' }]),
        toolResult('w', wrapped),
      ),
    ];
    // The second block's first line does not end with "]": it is content, not a reference.
    const { result, stored } = await offload(messages, { charThreshold: 10, ratioThreshold: 0 });
    expect(Object.keys(stored)).toEqual(['tool-result-w.md']);
    expect(blocksOf(result.messages[0]!)[0]).toEqual(blocksOf(messages[0]!)[0]);
  });

  it("offloads a second run's output to nothing: its references are left alone", async () => {
    const { result: first } = await offload(conversation(text(400)));
    const { result: second, stored } = await offload(first.messages, { charThreshold: 1, ratioThreshold: 0 });
    expect(second.messages).toBe(first.messages);
    expect(stored).toEqual({});
  });
});

describe('offloadToolResults: bad input', () => {
  it.each([['../escape'], ['a/b'], ['a\\b'], ['..'], ['nul\0byte'], ['spaces are out'], ['x'.repeat(201)]])(
    'maps the tool_use_id %j to a safe key instead of failing the batch',
    async (id) => {
      const messages = [userMessage(toolResult('fine', text(300))), userMessage(toolResult(id, text(301)))];
      const { result, stored } = await offload(messages);
      expect(result.offloadedCount).toBe(2);
      const key = result.files[1]!.slice(locationOf('').length);
      expect(key).toMatch(/^tool-result-[A-Za-z0-9._-]*~[0-9a-z]{11}\.md$/);
      expect(stored[key]).toBe(text(301));
      expect(blocksOf(result.messages[1]!)[0]!.content).toBe(referenceTo(key));
      // the same id maps to the same key on every run
      expect((await offload(messages)).result.files[1]).toBe(result.files[1]);
    },
  );

  it('does not check the id of a block it does not offload', async () => {
    const { result } = await offload([userMessage(toolResult('../small', 'tiny'), toolResult('big', text(300)))]);
    expect(result.files).toEqual([locationOf('tool-result-big.md')]);
  });

  it.each([
    ['not an array', { role: 'user' }, 'messages', /expected an array of messages/],
    ['a message without role', [{ content: 'x' }], 'messages[0].role', /expected "system", "user" or "assistant"/],
    [
      'content that is a number',
      [{ role: 'user', content: 42 }],
      'messages[0].content',
      /expected a string or an array of blocks, got 42/,
    ],
    [
      'a tool_result without a string tool_use_id',
      [
        { role: 'user', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'tool_result', content: 'x' },
          ],
        },
      ],
      'messages[1].content[1].tool_use_id',
      /expected a string, got undefined/,
    ],
    [
      'a tool_result whose content is an object',
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: { text: 'x' } }] }],
      'messages[0].content[0].content',
      /expected a string or an array of blocks/,
    ],
  ])(
    'rejects %s with INVALID_MESSAGE and the path of the bad field, storing nothing',
    async (_label, messages, path, message) => {
      const { error, stored } = await refusal(messages as never);
      expect(error).toMatchObject({ code: 'INVALID_MESSAGE', path });
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
      expect(stored).toEqual({});
    },
  );

  it('offloads a large result that merely starts with a reference line: it is not one', async () => {
    const content = `[Content offloaded to: ./tool-result-x.md]\n${text(1_000_000)}`;
    const { result, stored } = await offload([userMessage(toolResult('big', content))]);
    expect(result.offloadedCount).toBe(1);
    expect(stored['tool-result-big.md']).toBe(content);
  });

  it('keeps a __proto__ key as a property of the copies, not as their prototype', async () => {
    const messages = JSON.parse(
      `[{"role":"user","content":[{"type":"text","text":"t","__proto__":{"polluted":true}},{"type":"tool_result","tool_use_id":"p","content":"${text(500)}","__proto__":{"x":1}}]}]`,
    ) as Message[];
    const { result } = await offload(messages);
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
    [
      '20,000 levels of nesting',
      () => deep(20_000),
      /messages\[0\]\.content\[0\]\.input\.next.*: nested deeper than 1000 levels/,
    ],
  ])(
    'rejects %s in a message with INVALID_MESSAGE and its path, storing nothing',
    async (_label, makeInput, message) => {
      const { error, stored } = await refusal([
        assistantMessage(toolUse('c', 'tool', makeInput())),
        userMessage(toolResult('c', text(300))),
      ]);
      expect(error).toMatchObject({ code: 'INVALID_MESSAGE', message: expect.stringMatching(message) });
      expect(stored).toEqual({});
    },
  );

  it('accepts an object shared by two fields (not a cycle)', async () => {
    const shared = { path: 'a.txt' };
    const messages = [
      assistantMessage(toolUse('c', 'tool', { first: shared, second: shared })),
      userMessage(toolResult('c', text(300))),
    ];
    expect((await offload(messages)).result.offloadedCount).toBe(1);
  });
});
