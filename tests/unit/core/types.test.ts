/**
 * The message types against the Anthropic SDK's own. The assignments below are
 * checked by `npm run typecheck` (tsconfig.json includes `tests`): with an index signature on
 * `Message` or on a block interface, the SDK's interfaces (which have none) do not fit, and
 * this file stops compiling. The SDK is named through `import type` only: nothing of it is
 * loaded at run time.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { isTextBlock, isThinkingBlock, isToolResultBlock, isToolUseBlock } from '../../../src/messages.js';
import {
  countTokens,
  createMemoryStore,
  offloadToolResults,
  planOffload,
  type ContentBlock,
  type Message,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../../../src/index.js';
import { text } from '../../fixtures/offload-fixtures.js';

/** A request history as the SDK types it: written with the SDK's own types, no cast. */
const params: Anthropic.MessageParam[] = [
  {
    role: 'user',
    content: [{ type: 'text', text: 'Fix the failing test.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
  },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'The test reads a file first.', signature: 'sig_1' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.test.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: text(400), is_error: false },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ],
  },
];

/**
 * A reply of `messages.create` as it comes off the wire (parsed JSON); the SDK's `Message` has
 * fields this test does not need, so the wire data is typed by a cast here, and only here.
 */
const response = JSON.parse(
  JSON.stringify({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5-20251001',
    content: [
      { type: 'text', text: 'The test expects 2.', citations: null },
      { type: 'tool_use', id: 'toolu_2', name: 'edit_file', input: { path: 'src/a.ts' }, caller: { type: 'direct' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 30 },
  }),
) as Anthropic.Message;

describe('Message and the Anthropic SDK types', () => {
  it('takes MessageParam[] and a reply content without a cast (type-level, checked by tsc)', () => {
    expectTypeOf<Anthropic.MessageParam[]>().toExtend<Message[]>();
    expectTypeOf<Anthropic.MessageParam>().toExtend<Message>();
    expectTypeOf<Anthropic.Message['content']>().toExtend<Message['content']>();
    expectTypeOf<Anthropic.ContentBlock>().toExtend<ContentBlock>();
    expectTypeOf<Anthropic.ContentBlockParam>().toExtend<ContentBlock>();
    expectTypeOf<Anthropic.TextBlock>().toExtend<TextBlock>();
    expectTypeOf<Anthropic.TextBlockParam>().toExtend<TextBlock>();
    expectTypeOf<Anthropic.ThinkingBlock>().toExtend<ThinkingBlock>();

    // the assignments a user writes
    const history: Message[] = params;
    const reply: Message = { role: 'assistant', content: response.content };
    const whole: Message = response;
    expect(history).toHaveLength(3);
    expect(reply.content).toBe(response.content);
    expect(whole.role).toBe('assistant');
  });

  it('still accepts object literals with fields the block types do not name', () => {
    const literal: Message = {
      role: 'user',
      content: [
        { type: 'text', text: 'see the image', cache_control: { type: 'ephemeral' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        {
          type: 'tool_result',
          tool_use_id: 't',
          content: 'ok',
          is_error: true,
          cache_control: { type: 'ephemeral', ttl: '5m' },
        },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' }, title: 'Notes' },
      ],
    };
    expect(literal.content).toHaveLength(4);
    // @ts-expect-error -- the role is still checked
    const wrongRole: Message = { role: 'tool', content: 'x' };
    expect(wrongRole.role).toBe('tool');
  });

  it('narrows blocks with the guards, SDK blocks included', () => {
    const blocks: ContentBlock[] = [...response.content, ...(params[1]!.content as Anthropic.ContentBlockParam[])];
    const texts = blocks.filter(isTextBlock);
    const calls = blocks.filter(isToolUseBlock);
    const thoughts = blocks.filter(isThinkingBlock);
    expectTypeOf(texts).toEqualTypeOf<TextBlock[]>();
    expectTypeOf(calls).toEqualTypeOf<ToolUseBlock[]>();
    expectTypeOf(thoughts).toEqualTypeOf<ThinkingBlock[]>();
    expect(texts.map((block) => block.text)).toEqual(['The test expects 2.']);
    expect(calls.map((block) => block.name)).toEqual(['edit_file', 'read_file']);
    expect(thoughts.map((block) => block.signature)).toEqual(['sig_1']);

    const result = (params[2]!.content as Anthropic.ContentBlockParam[])[0];
    if (!isToolResultBlock(result)) throw new Error('expected a tool_result');
    expectTypeOf(result).toExtend<ToolResultBlock>();
    expect(result.tool_use_id).toBe('toolu_1');
    expect(isTextBlock(null)).toBe(false);
    expect(isThinkingBlock({ type: 'redacted_thinking', data: 'x' })).toBe(false);
  });

  it('counts and offloads an SDK-typed history passed as is', async () => {
    const history: Message[] = [...params, { role: 'assistant', content: response.content }];
    expect(countTokens(history)).toBeGreaterThan(0);
    expect(planOffload(params, { charThreshold: 100 }).candidates).toHaveLength(1);
    const offloaded = await offloadToolResults(params, {
      store: createMemoryStore(),
      charThreshold: 100,
      ratioThreshold: 0,
    });
    expect(offloaded.offloadedCount).toBe(1);
    expect(offloaded.messages[2]!.content).toMatchObject([
      { type: 'tool_result', content: '[Content offloaded to: memory://default/tool-result-toolu_1.md]' },
      { type: 'image' },
    ]);
  });
});
