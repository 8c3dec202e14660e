import { describe, expect, it } from 'vitest';
import {
  assertReusePrefixSource,
  createPrefixReusingSummarizer,
  resolveSummaryMode,
} from '../../../../../src/core/compact/summary/summarize-reusing-prefix.js';
import {
  computeSummaryMaxTokens,
  createUsageTotal,
} from '../../../../../src/core/compact/summary/summarize-with-llm.js';
import { buildSummaryInstruction } from '../../../../../src/core/compact/summary/summary-prompt.js';
import { InvalidMessageError, InvalidOptionError, SummarizerFailedError } from '../../../../../src/core/errors.js';
import type {
  ConversationSummaryRequest,
  LlmClient,
  LlmSummarizeOptions,
  LlmUsage,
} from '../../../../../src/core/ports.js';
import type { Message } from '../../../../../src/core/types.js';

const conversationRequest = {
  model: 'claude-sonnet-4-6',
  system: 'You are a coding agent.',
  tools: [{ name: 'bash', input_schema: { type: 'object' } }],
};
const rest: Message[] = [
  { role: 'user', content: 'Run the tests.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'npm test' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1 failed' }] },
];

/** A fake client with summarizeConversation: records each call, answers `reply`, reports `usage`. */
function createConversationClient(reply = '## Task Status\nOne test fails.', usage?: LlmUsage) {
  const calls: { request: ConversationSummaryRequest; options: LlmSummarizeOptions | undefined }[] = [];
  const client: LlmClient = {
    summarize: async () => 'unused',
    async summarizeConversation(request, options) {
      calls.push({ request, options });
      if (usage !== undefined) options?.onUsage?.(usage);
      return reply;
    },
  };
  return { client, calls };
}

describe("createPrefixReusingSummarizer (summaryMode 'reuse-prefix')", () => {
  it("sends the conversation's request, the messages as they are and the summary instruction, with a reply budget from maxWords", async () => {
    const fake = createConversationClient('  ## Task Status\nOne test fails.  ');
    const summary = await createPrefixReusingSummarizer(fake.client, { conversationRequest }).summarize(rest, {
      maxWords: 600,
    });
    expect(summary).toBe('## Task Status\nOne test fails.');
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]?.request).toEqual({
      ...conversationRequest,
      messages: rest,
      instruction: buildSummaryInstruction({ maxWords: 600 }),
    });
    expect(fake.calls[0]?.request.messages).toBe(rest); // not copied, not cut
    expect(fake.calls[0]?.options).toEqual({ maxTokens: computeSummaryMaxTokens(600) });
  });

  it('passes the signal and onUsage to the client', async () => {
    const usage: LlmUsage = {
      inputTokens: 400,
      cacheReadInputTokens: 150_000,
      cacheCreationInputTokens: 0,
      outputTokens: 900,
      requestCount: 1,
    };
    const fake = createConversationClient(undefined, usage);
    const seen: LlmUsage[] = [];
    const controller = new AbortController();
    await createPrefixReusingSummarizer(fake.client, {
      conversationRequest,
      maxTokens: 2000,
      onUsage: (reported) => seen.push(reported),
    }).summarize(rest, {
      maxWords: 100,
      signal: controller.signal,
    });
    expect(fake.calls[0]?.options).toMatchObject({ maxTokens: 2000, signal: controller.signal });
    expect(seen).toEqual([usage]);
  });

  it('rejects a blank reply with SUMMARIZER_FAILED, and a system message in Rest with INVALID_MESSAGE naming its index', async () => {
    const blank = createPrefixReusingSummarizer(createConversationClient(' ').client, { conversationRequest });
    await expect(blank.summarize(rest, { maxWords: 100 })).rejects.toBeInstanceOf(SummarizerFailedError);
    const fake = createConversationClient();
    const withSystem: Message[] = [...rest, { role: 'system', content: 'Be brief.' }];
    const promise = createPrefixReusingSummarizer(fake.client, { conversationRequest }).summarize(withSystem, {
      maxWords: 100,
    });
    await expect(promise).rejects.toBeInstanceOf(InvalidMessageError);
    await expect(promise).rejects.toMatchObject({ path: 'messages[3].role' });
    expect(fake.calls).toHaveLength(0);
  });

  it('rejects at creation a client without summarizeConversation, and a malformed request, naming the field', () => {
    const plain: LlmClient = { summarize: async () => 'x' };
    expect(() => createPrefixReusingSummarizer(plain, { conversationRequest })).toThrow(InvalidOptionError);
    expect(() => createPrefixReusingSummarizer(plain, { conversationRequest })).toThrow(
      /needs an LLM client with summarizeConversation\(\)/,
    );
    const { client } = createConversationClient();
    expect(() => createPrefixReusingSummarizer(client, { conversationRequest: { model: ' ' } })).toThrow(
      /^conversationRequest\.model must be a non-empty string/,
    );
    expect(() =>
      createPrefixReusingSummarizer(client, { conversationRequest: { model: 'm', system: 3 as unknown as string } }),
    ).toThrow(/^conversationRequest\.system must be a string or an array of blocks, got 3$/);
    expect(() => createPrefixReusingSummarizer(client, { conversationRequest, maxTokens: 0 })).toThrow(
      /^maxTokens must be an integer >= 1, got 0$/,
    );
  });
});

describe('resolveSummaryMode and assertReusePrefixSource', () => {
  it("defaults to 'prompt' (no request), and gives the request back with 'reuse-prefix'", () => {
    expect(resolveSummaryMode({})).toEqual({});
    expect(resolveSummaryMode({ summaryMode: 'prompt' })).toEqual({});
    expect(resolveSummaryMode({ summaryMode: 'reuse-prefix', conversationRequest })).toEqual({ conversationRequest });
  });

  it('rejects a custom summarizer or no LLM with reuse-prefix, and accepts the LLM kinds', () => {
    expect(() => assertReusePrefixSource(conversationRequest, 'custom')).toThrow(/but a custom summarizer is given$/);
    expect(() => assertReusePrefixSource(conversationRequest, 'extractive')).toThrow(
      /but no llmClient or ANTHROPIC_API_KEY is configured$/,
    );
    expect(() => assertReusePrefixSource(conversationRequest, 'llm-client')).not.toThrow();
    expect(() => assertReusePrefixSource(undefined, 'custom')).not.toThrow();
  });
});

describe('createUsageTotal', () => {
  it('sums every figure of the replies, and is undefined before any', () => {
    const total = createUsageTotal();
    expect(total.total()).toBeUndefined();
    total.add({
      inputTokens: 10,
      cacheReadInputTokens: 100,
      cacheCreationInputTokens: 5,
      outputTokens: 7,
      requestCount: 1,
    });
    total.add({
      inputTokens: 1,
      cacheReadInputTokens: 2,
      cacheCreationInputTokens: 3,
      outputTokens: 4,
      requestCount: 1,
    });
    expect(total.total()).toEqual({
      inputTokens: 11,
      cacheReadInputTokens: 102,
      cacheCreationInputTokens: 8,
      outputTokens: 11,
      requestCount: 2,
    });
  });
});
