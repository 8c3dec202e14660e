/**
 * Large tool inputs offloaded in every message format: the older calls' large fields keep
 * their references in the format's own shape (the JSON `arguments` string of the OpenAI
 * formats, LangChain's `tool_calls[].args`), the stored texts are the fields exactly (lossless),
 * and a new manager sent the same history sends the same messages.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import type { MessageFormat } from '../../../src/core/format.js';
import { BATCH_REFERENCE_PREFIX } from '../../../src/core/offload/offload-reference.js';
import type { Message, ToolUseBlock } from '../../../src/core/types.js';
import { createLangchainFormat, formats } from '../../../src/formats/index.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

const FIRST = 'export const first = 1;\n'.repeat(150);
const SECOND = 'export const second = 2;\n'.repeat(120);

function writeTurn(id: string, content: string): Message[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'write_file', input: { path: `${id}.ts`, content } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `Wrote ${id}.ts.` }] },
  ];
}

const CANONICAL: Message[] = [
  { role: 'user', content: 'Write the three modules.' },
  ...writeTurn('call_1', FIRST),
  ...writeTurn('call_2', SECOND),
  ...writeTurn('call_3', 'export {};\n'),
];

const FORMATS: ReadonlyArray<[string, MessageFormat]> = [
  ['anthropic', formats.anthropic],
  ['openai-chat', formats.openaiChat as unknown as MessageFormat],
  ['openai-responses', formats.openaiResponses as unknown as MessageFormat],
  ['openai-agents', formats.openaiAgents as unknown as MessageFormat],
  ['ai-sdk', formats.aiSdk as unknown as MessageFormat],
  [
    'langchain',
    createLangchainFormat({
      messageClasses: { AIMessage, HumanMessage, SystemMessage, ToolMessage },
    }) as unknown as MessageFormat,
  ],
];

/** The tool call inputs of a canonical history, by call id. */
function inputsOf(messages: readonly Message[]): Map<string, Record<string, unknown>> {
  const inputs = new Map<string, Record<string, unknown>>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content)
      if (block.type === 'tool_use') inputs.set((block as ToolUseBlock).id, (block as ToolUseBlock).input);
  }
  return inputs;
}

describe.each(FORMATS)('large tool inputs in the %s format', (_name, format) => {
  it("keep their references in the format's own shape, and the store holds each field exactly", async () => {
    const store = createMemoryStore();
    // older results and inputs inline up to 4,000 characters; no prompt cache, so the batch goes as the budget passes
    const manager = createContextManager({
      store,
      format,
      contextTokenLimit: 10_000,
      sessionId: 's1',
      offload: { agedBudgetChars: 4000 },
      cost: { family: 'none' },
    });
    const native = format.fromCanonical(CANONICAL);
    const result = await manager.prepare(native);

    expect(result.actions.map((action) => action.type)).toEqual(['input-offload']);
    const inputs = inputsOf(format.toCanonical(result.messages));
    // restored from the store, every input is what it was: nothing lost
    for (const [id, input] of inputs) {
      const restored: Record<string, unknown> = { ...input };
      const content = input.content as string;
      if (content.startsWith(BATCH_REFERENCE_PREFIX))
        restored.content = await store.get(store.keyFor(content.slice(BATCH_REFERENCE_PREFIX.length, -1))!);
      expect(restored).toEqual(inputsOf(CANONICAL).get(id));
    }
    expect(inputs.get('call_1')?.content).toMatch(
      /^\[Content offloaded to: memory:\/\/default\/s1\/tool-input-call_1-[0-9a-f]{16}\.md\]$/,
    );
    expect(inputs.get('call_3')?.content).toBe('export {};\n');
    // what the caller sends: the reference is in the format's own field (a JSON string for OpenAI)
    expect(JSON.stringify(result.messages)).not.toContain('export const first = 1;');
    expect(JSON.stringify(result.messages)).toContain(JSON.stringify(inputs.get('call_1')?.content).slice(1, -1));
  });

  it('come out the same from a new manager sent the same history', async () => {
    const store = createMemoryStore();
    const native = format.fromCanonical(CANONICAL);
    const first = await createContextManager({ store, format, contextTokenLimit: 10_000, sessionId: 's1' }).prepare(
      native,
    );
    const again = await createContextManager({ store, format, contextTokenLimit: 10_000, sessionId: 's1' }).prepare(
      format.fromCanonical(CANONICAL),
    );
    expect(JSON.stringify(format.toCanonical(again.messages))).toBe(JSON.stringify(format.toCanonical(first.messages)));
  });
});
