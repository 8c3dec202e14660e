/**
 * Cache-reusing summaries (`summaryMode: 'reuse-prefix'`): the real
 * `@anthropic-ai/sdk` over real HTTP against the local fake provider, which records every body
 * byte for byte and plays Anthropic's prompt cache (reads and writes by prefix).
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { buildSummaryInstruction } from '../../../src/core/compact/summary/summary-prompt.js';
import { InvalidOptionError } from '../../../src/core/errors.js';
import { silentLogger, type ConversationRequest } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createAnthropicLlmClient } from '../../../src/infrastructure/anthropic-client.js';
import { createOpenAILlmClient } from '../../../src/infrastructure/openai-client.js';
import {
  anthropicMessage,
  startFakeProviderServer,
  type FakeProviderServer,
  type RecordedRequest,
} from '../../fixtures/scripted-llm-server.js';

const API_KEY = 'sk-ant-test-key';
const LOOP_MODEL = 'claude-sonnet-4-6';
const SYSTEM = [{ type: 'text', text: 'You are a coding agent working in /repo. Keep changes small and tested.' }];
const TOOLS = [
  {
    name: 'read_file',
    description: 'Reads a file of the repository.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'bash',
    description: 'Runs a shell command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];
const conversationRequest: ConversationRequest = { model: LOOP_MODEL, system: SYSTEM, tools: TOOLS };

/** An agent history: the system prompt (Head), then a few rounds of tool use (Rest). */
const history: Message[] = [
  { role: 'system', content: SYSTEM[0]?.text ?? '' },
  { role: 'user', content: 'Rename exportAll to exportEverything and update its tests.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/exporter.ts' } }],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: `export function exportAll() {\n${'  // step\n'.repeat(200)}}`,
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Renaming now.' },
      { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'npm test' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Tests: 41 passed, 1 failed (exporter.test.ts)' },
    ],
  },
];

/** The messages of the history as the agent loop sends them: `{ role, content }`, a breakpoint on the last block. */
function loopMessages(messages: readonly Message[]): unknown[] {
  return messages
    .filter((message) => message.role !== 'system')
    .map((message, index, all) => {
      if (index < all.length - 1 || typeof message.content === 'string')
        return { role: message.role, content: message.content };
      const blocks = message.content.map((block, position) =>
        position === message.content.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block,
      );
      return { role: message.role, content: blocks };
    });
}

/** The loop's own request, sent with the SDK itself; resolves to its usage. */
async function sendLoopRequest(sdk: Anthropic, messages: readonly Message[]): Promise<Anthropic.Usage> {
  const reply = await sdk.messages.create({
    model: LOOP_MODEL,
    max_tokens: 8192,
    system: SYSTEM as Anthropic.TextBlockParam[],
    tools: TOOLS as Anthropic.Tool[],
    messages: loopMessages(messages) as Anthropic.MessageParam[],
  });
  return reply.usage;
}

/** The bytes of one top-level field of a body as it went over the wire. */
function rawField(request: RecordedRequest | undefined, field: string): string {
  const parsed = request?.body[field];
  const text = JSON.stringify(parsed);
  // the SDK serializes with JSON.stringify, so the field's bytes appear verbatim in the raw body
  expect(request?.rawBody).toContain(`"${field}":${text}`);
  return text;
}

let server: FakeProviderServer;
let workDir: string;
let sdk: Anthropic;

beforeEach(async () => {
  server = await startFakeProviderServer({ promptCache: true });
  workDir = await mkdtemp(join(tmpdir(), 'reuse-prefix-'));
  sdk = new Anthropic({ apiKey: API_KEY, baseURL: server.origin, maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("summaryMode 'reuse-prefix' over the Anthropic client", () => {
  it('repeats the loop request byte for byte (system, tools, messages up to the breakpoint), then asks for the summary', async () => {
    await sendLoopRequest(sdk, history);
    server.enqueue('/v1/messages', anthropicMessage('## Task Status\nOne test still fails.', LOOP_MODEL));
    const result = await compactMessages(history, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      summaryMode: 'reuse-prefix',
      conversationRequest,
      force: true,
      workDir,
      logger: silentLogger,
    });

    expect(result.compacted).toBe(true);
    expect(result.summary).toContain('One test still fails.');
    const [loop, summary] = server.requestsTo('/v1/messages');
    expect(summary?.body.model).toBe(LOOP_MODEL);
    expect(rawField(summary, 'system')).toBe(rawField(loop, 'system'));
    expect(rawField(summary, 'tools')).toBe(rawField(loop, 'tools'));
    // the loop's messages array, without its closing bracket, opens the summary's
    const loopMessagesBytes = rawField(loop, 'messages');
    expect(rawField(summary, 'messages').startsWith(`${loopMessagesBytes.slice(0, -1)},`)).toBe(true);
    const sent = summary?.body.messages as { role: string; content: unknown }[];
    expect(sent).toHaveLength((loop?.body.messages as unknown[]).length + 1);
    expect(sent.at(-1)).toEqual({ role: 'user', content: buildSummaryInstruction({ maxWords: 1200 }) });
  });

  it('reports cached and uncached input tokens in stats.summaryUsage: the history is read from the cache', async () => {
    const loopUsage = await sendLoopRequest(sdk, history);
    expect(loopUsage.cache_read_input_tokens).toBe(0); // the first request writes its prefix
    expect(loopUsage.cache_creation_input_tokens).toBeGreaterThan(0);
    const result = await compactMessages(history, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      summaryMode: 'reuse-prefix',
      conversationRequest,
      force: true,
      workDir,
      logger: silentLogger,
    });

    const usage = result.stats.summaryUsage;
    expect(usage?.requestCount).toBe(1);
    expect(usage?.cacheCreationInputTokens).toBe(0);
    // everything up to the breakpoint came from the cache; only the instruction was billed in full
    expect(usage?.cacheReadInputTokens).toBe(loopUsage.cache_creation_input_tokens);
    expect(usage?.inputTokens).toBe(
      Math.ceil(`user:${JSON.stringify(buildSummaryInstruction({ maxWords: 1200 }))}`.length / 4),
    );
    expect(usage?.outputTokens).toBe(5);
  });

  it('after the loop appended a reply and a tool result, reads the old prefix and writes only the new part', async () => {
    const loopUsage = await sendLoopRequest(sdk, history);
    const grown: Message[] = [
      ...history,
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_3', name: 'read_file', input: { path: 'tests/exporter.test.ts' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: "expect(exportAll()).toBe('all');" }],
      },
    ];
    const result = await compactMessages(grown, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      summaryMode: 'reuse-prefix',
      conversationRequest,
      force: true,
      workDir,
      logger: silentLogger,
    });

    const [loop, summary] = server.requestsTo('/v1/messages');
    // the loop's messages are the first ones of the summary request, the breakpoint moved to the last one
    const withoutBreakpoints = (messages: unknown): string =>
      JSON.stringify(messages).replaceAll(',"cache_control":{"type":"ephemeral"}', '');
    const sent = summary?.body.messages as unknown[];
    expect(withoutBreakpoints(sent.slice(0, (loop?.body.messages as unknown[]).length))).toBe(
      withoutBreakpoints(loop?.body.messages),
    );
    const usage = result.stats.summaryUsage;
    expect(usage?.cacheReadInputTokens).toBe(loopUsage.cache_creation_input_tokens);
    expect(usage?.cacheCreationInputTokens).toBeGreaterThan(0);
    expect(usage?.cacheCreationInputTokens).toBeLessThan(usage?.cacheReadInputTokens ?? 0);
  });

  it('puts the breakpoint on the last block of the last message, which a string content becomes, without changing the history', async () => {
    const endsWithText: Message[] = [...history, { role: 'assistant', content: 'I will fix the failing test next.' }];
    const before = JSON.stringify(endsWithText);
    await compactMessages(endsWithText, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      summaryMode: 'reuse-prefix',
      conversationRequest,
      force: true,
      workDir,
      logger: silentLogger,
    });
    const sent = server.requestsTo('/v1/messages')[0]?.body.messages as { content: unknown }[];
    expect(sent.at(-2)?.content).toEqual([
      { type: 'text', text: 'I will fix the failing test next.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(JSON.stringify(sent).match(/cache_control/g)).toHaveLength(1);
    expect(JSON.stringify(endsWithText)).toBe(before);
  });

  it('passes tool_choice and thinking through, with max_tokens covering the thinking budget', async () => {
    await compactMessages(history, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      summaryMode: 'reuse-prefix',
      conversationRequest: {
        ...conversationRequest,
        tool_choice: { type: 'auto' },
        thinking: { type: 'enabled', budget_tokens: 2048 },
      },
      summaryMaxWords: 500,
      force: true,
      workDir,
      logger: silentLogger,
    });
    expect(server.requestsTo('/v1/messages')[0]?.body).toMatchObject({
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 2048 },
      max_tokens: 3 * 500 + 256 + 2048,
    });
  });

  it("the default mode ('prompt') also reports usage: the whole history billed as uncached input", async () => {
    const result = await compactMessages(history, {
      llmClient: await createAnthropicLlmClient({ client: sdk }),
      force: true,
      workDir,
      logger: silentLogger,
    });
    expect(result.stats.summaryUsage).toMatchObject({
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      requestCount: 1,
    });
    expect(result.stats.summaryUsage?.inputTokens).toBeGreaterThan(0);
  });
});

describe("summaryMode 'reuse-prefix' without a client that can resend the conversation", () => {
  it('rejects an OpenAI client with INVALID_OPTION naming the mode, before anything is written', async () => {
    const llmClient = await createOpenAILlmClient({
      apiKey: 'sk-test',
      baseURL: `${server.origin}/v1`,
      model: 'gpt-test',
    });
    const promise = compactMessages(history, {
      llmClient,
      summaryMode: 'reuse-prefix',
      conversationRequest,
      force: true,
      workDir,
      logger: silentLogger,
    });
    await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(promise).rejects.toThrow(
      /^summaryMode 'reuse-prefix' needs an LLM client with summarizeConversation\(\)/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('rejects a custom summarizer and the extractive fallback, naming what is configured', async () => {
    const summarizer = { summarize: async () => 'summary' };
    await expect(
      compactMessages(history, { summarizer, summaryMode: 'reuse-prefix', conversationRequest, force: true, workDir }),
    ).rejects.toThrow(/^summaryMode 'reuse-prefix' needs an LLM client .*but a custom summarizer is given$/);
    const previousKey = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await expect(
        compactMessages(history, { summaryMode: 'reuse-prefix', conversationRequest, force: true, workDir }),
      ).rejects.toThrow(/but no llmClient or ANTHROPIC_API_KEY is configured$/);
    } finally {
      if (previousKey !== undefined) process.env.ANTHROPIC_API_KEY = previousKey;
    }
  });

  it.each([
    [{ summaryMode: 'reuse-prefix' as const }, /^conversationRequest is required with summaryMode: 'reuse-prefix'/],
    [
      { conversationRequest },
      /^conversationRequest is used only with summaryMode: 'reuse-prefix', got summaryMode "prompt"$/,
    ],
    [{ summaryMode: 'cached' as 'prompt' }, /^summaryMode must be "prompt" or "reuse-prefix", got "cached"$/],
    [
      { summaryMode: 'reuse-prefix' as const, conversationRequest: { model: '' } },
      /^conversationRequest\.model must be a non-empty string/,
    ],
    [
      { summaryMode: 'reuse-prefix' as const, conversationRequest: { model: 'm', tools: {} as unknown[] } },
      /^conversationRequest\.tools must be an array, got/,
    ],
  ])('rejects %o with INVALID_OPTION', async (options, message) => {
    const llmClient = await createAnthropicLlmClient({ client: sdk });
    await expect(
      compactMessages(history, { llmClient, force: true, workDir, logger: silentLogger, ...options }),
    ).rejects.toThrow(message);
    expect(server.requests).toHaveLength(0);
  });
});
