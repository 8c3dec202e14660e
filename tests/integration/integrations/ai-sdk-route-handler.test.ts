/**
 * The AI SDK route-handler pattern, as a Next.js chat app runs it: each request parses the UI
 * history from JSON, creates a new context manager, converts the history with
 * `convertToModelMessages` and streams the answer with `streamText` (the real `ai` 7, the
 * SDK's own MockLanguageModelV4 recording every prompt, a real file store). The chat's history
 * is saved from the UI message stream's `onFinish`, as JSON, and sent back with the next user
 * message. Over ten turns the history is compacted once, and every prompt starts with the
 * prompt before it except at that compaction: the provider's prompt cache keeps hitting.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  convertToModelMessages,
  jsonSchema,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrepareStep, createReadTool, offloadTools } from '../../../src/ai-sdk.js';
import { createContextManager } from '../../../src/api/context-manager.js';
import { createCountingSummarizer, REFERENCE, toolResultValue } from './ai-sdk-scenario.js';

type LanguageModelV4StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer PART> ? PART : never;
type Prompt = MockLanguageModelV4['doStreamCalls'][number]['prompt'];

const TURNS = 10;
const WINDOW = 7_000;

function words(count: number, seed: string): string {
  return Array.from({ length: count }, (_, index) => `${seed}${index % 53}`).join(' ');
}

/** The log the tool returns at turn `turn`: about 6,000 characters, different every turn. */
function logOf(turn: number): string {
  return Array.from({ length: 60 }, (_, line) =>
    `${String(line + 1).padStart(3, '0')} request ${turn}-${line} handled in ${(turn * 7 + line) % 90} ms`.padEnd(
      99,
      '.',
    ),
  ).join('\n');
}

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls `fetch_log` when the prompt ends with the user's request, and answers once the log came back. */
function createChatModel(): MockLanguageModelV4 {
  let answers = 0;
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      const chunks: LanguageModelV4StreamPart[] =
        last?.role === 'tool'
          ? [
              { type: 'text-start', id: 'text' },
              { type: 'text-delta', id: 'text', delta: `Answer ${++answers}: ${words(150, `finding${answers}w`)}` },
              { type: 'text-end', id: 'text' },
              { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
            ]
          : [
              {
                type: 'tool-call',
                toolCallId: `call-${prompt.length}`,
                toolName: 'fetch_log',
                input: JSON.stringify({ turn: prompt.length }),
              },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
            ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

let directory: string;
let model: MockLanguageModelV4;
let summarizer: ReturnType<typeof createCountingSummarizer>;
let sessions: string[];
let saved: string;

/**
 * `POST /api/chat`: the body is `{ messages }` as JSON; a new manager serves this request only.
 * Resolves the response, whose stream the caller reads.
 */
async function handleChat(body: string): Promise<Response> {
  const { messages } = JSON.parse(body) as { messages: UIMessage[] };
  const manager = createContextManager({
    format: 'ai-sdk',
    outputDir: directory,
    sessionId: 'auto',
    contextTokenLimit: WINDOW,
    summarizer,
    logger: { warn: () => undefined },
    offload: { timing: 'on-arrival' },
  });
  let turn = 0;
  const tools = offloadTools(
    {
      fetch_log: tool({
        description: 'Fetches the request log.',
        inputSchema: jsonSchema<{ turn: number }>({
          type: 'object',
          properties: { turn: { type: 'number' } },
          required: ['turn'],
        }),
        execute: async () => logOf(turn),
      }),
      read_offloaded: createReadTool(manager),
    },
    manager,
  );
  turn = messages.filter((message) => message.role === 'user').length;
  const result = streamText({
    model,
    system: 'You are the on-call assistant of the billing service.',
    messages: await convertToModelMessages(messages),
    tools,
    prepareStep: createPrepareStep(manager),
    stopWhen: stepCountIs(4),
    onFinish: () => void sessions.push(manager.sessionId ?? 'none'),
  });
  return result.toUIMessageStreamResponse({
    originalMessages: messages,
    onFinish: ({ messages: updated }) => {
      saved = JSON.stringify(updated);
    },
  });
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'aco-route-handler-'));
  model = createChatModel();
  summarizer = createCountingSummarizer();
  sessions = [];
  saved = '[]';
  for (let turn = 1; turn <= TURNS; turn += 1) {
    const history = JSON.parse(saved) as UIMessage[];
    history.push({
      id: `user-${turn}`,
      role: 'user',
      parts: [{ type: 'text', text: `Turn ${turn}: why were requests slow in batch ${turn}?` }],
    });
    const response = await handleChat(JSON.stringify({ messages: history }));
    // the browser reads the whole stream; onFinish saves the chat
    await response.text();
  }
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Whether `prompt` starts with every message of `previous`, byte for byte. */
function extendsPrompt(prompt: Prompt, previous: Prompt): boolean {
  return JSON.stringify(prompt.slice(0, previous.length)) === JSON.stringify(previous);
}

describe('a route handler with a new context manager per request', () => {
  it('serves every turn: two model calls each (the tool call, then the answer)', () => {
    expect(model.doStreamCalls).toHaveLength(2 * TURNS);
    expect((JSON.parse(saved) as UIMessage[]).filter((message) => message.role === 'assistant')).toHaveLength(TURNS);
  });

  it('names one session from the conversation in every request', () => {
    expect(new Set(sessions).size).toBe(1);
    expect(sessions[0]).toMatch(/^auto-[0-9a-f]{32}$/);
  });

  it('sends every large tool result as its reference, in the step it arrived and in every later request', () => {
    const prompts = model.doStreamCalls.map((call) => call.prompt);
    expect(toolResultValue(prompts[1], 'fetch_log')).toMatch(REFERENCE);
    for (const prompt of prompts) expect(JSON.stringify(prompt)).not.toContain(logOf(1).slice(0, 400));
  });

  it('compacts the history once over all the requests', () => {
    expect(summarizer.calls).toBe(1);
    const compacted = model.doStreamCalls.findIndex((call) =>
      JSON.stringify(call.prompt).includes('[Conversation compressed]'),
    );
    expect(compacted).toBeGreaterThan(0);
    for (const call of model.doStreamCalls.slice(compacted))
      expect(JSON.stringify(call.prompt)).toContain('[Conversation compressed]');
  });

  it('keeps each prompt the previous one plus what came since, but at the compaction', () => {
    const prompts = model.doStreamCalls.map((call) => call.prompt);
    const changes = prompts.slice(1).filter((prompt, index) => !extendsPrompt(prompt, prompts[index]!)).length;
    expect(changes).toBe(1);
  });
});
