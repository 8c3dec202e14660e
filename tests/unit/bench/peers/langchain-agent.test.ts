import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage, ToolMessage, type SystemMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool, type StructuredTool } from '@langchain/core/tools';
import { createFilesystemMiddleware, createSummarizationMiddleware, FilesystemBackend } from 'deepagents';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentHookDriver } from '../../../../bench/peers/langchain-agent.js';
import { createLangchainMiddleware } from '../../../../bench/peers/langchain-system.js';
import {
  langchainFormat,
  SharedSummaryChatModel,
  SHARED_SUMMARY,
  toCountedMessages,
} from '../../../../bench/peers/shared-summary.js';
import type { PeerTranscript } from '../../../../bench/peers/transcripts.js';
import { findRequestTurns } from '../../../../src/cli/replay/request-turns.js';
import type { Message } from '../../../../src/core/types.js';

/** A coding session of `steps` tool calls (two in parallel every third step), each result `size` characters. */
function buildSession(steps: number, size: number): PeerTranscript {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Make the test suite pass.' },
  ];
  for (let step = 0; step < steps; step += 1) {
    const ids = step % 3 === 2 ? [`run${step}`, `open${step}`] : [`run${step}`];
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${step}.` },
        ...ids.map((id) => ({
          type: 'tool_use' as const,
          id,
          name: id.startsWith('run') ? 'run_tests' : 'open_page',
          input: { step },
        })),
      ],
    });
    for (const id of ids) {
      const line = `${id}: ${'assertion failed in totals.test.ts, expected 101 got 102; '.repeat(2)}\n`;
      messages.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: line.repeat(Math.ceil(size / line.length)).slice(0, size),
            is_error: step % 4 === 1,
          },
        ],
      });
    }
  }
  messages.push({ role: 'assistant', content: 'The suite passes.' });
  return { name: 'synthetic session', messages, toolDefinitionTokens: 0 };
}

/**
 * The agent's model for a real `createAgent` run: answers with the transcript's assistant
 * messages in order and records what each call was sent; counts and profiles like the
 * benchmark's model (`request.model` is the agent's model in both).
 */
class ReplayChatModel extends SharedSummaryChatModel {
  readonly sent: Message[][] = [];
  readonly #answers: BaseMessage[];

  constructor(window: number, answers: BaseMessage[]) {
    super(window);
    this.#answers = answers;
  }

  override bindTools(): this {
    return this;
  }

  override _generate(messages: BaseMessage[]): Promise<ChatResult> {
    // deepagents summarizes with the agent's model: a one-message prompt that is not a request of the transcript
    const isSummaryPrompt =
      messages.length === 1 && String(messages[0]?.content).startsWith('You are a conversation summarizer');
    if (isSummaryPrompt) return super._generate(messages);
    this.sent.push(toCountedMessages(messages));
    const answer = this.#answers[this.sent.length - 1];
    if (answer === undefined) throw new Error('the agent asked for more answers than the transcript has');
    return Promise.resolve({ generations: [{ text: '', message: answer }] });
  }
}

/** Tools answering with the transcript's recorded results, one per tool name it calls. */
function createReplayTools(history: readonly BaseMessage[]): StructuredTool[] {
  const results = new Map(
    history.filter((message) => ToolMessage.isInstance(message)).map((message) => [message.tool_call_id, message]),
  );
  const names = new Set(
    history.flatMap((message) =>
      AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((call) => call.name) : [],
    ),
  );
  return [...names].map((name) =>
    tool((_input, config) => results.get(String(config.toolCall?.id)) ?? 'missing', {
      name,
      description: name,
      schema: z.object({}).passthrough(),
    }),
  );
}

/** Runs `transcript` (one user turn) through a real `createAgent` with `middleware`; returns what its model was sent. */
async function runRealAgent(transcript: PeerTranscript, window: number, middleware: object[]): Promise<Message[][]> {
  const history = langchainFormat.fromCanonical(transcript.messages) as BaseMessage[];
  const model = new ReplayChatModel(
    window,
    findRequestTurns(transcript.messages).map((index) => history[index] as BaseMessage),
  );
  const agent = createAgent({
    model,
    tools: createReplayTools(history),
    systemPrompt: history[0] as SystemMessage,
    middleware: middleware as never,
  });
  await agent.invoke({ messages: [history[1]] } as never, { recursionLimit: 500 } as never);
  return model.sent;
}

/** Runs `transcript` through the benchmark's hook driver, with the same tools. */
async function runDriver(
  transcript: PeerTranscript,
  window: number,
  middleware: object[],
  initialState?: Record<string, unknown>,
): Promise<Message[][]> {
  const tools = createReplayTools(langchainFormat.fromCanonical(transcript.messages) as BaseMessage[]);
  const driver = createAgentHookDriver({
    transcript,
    middleware,
    model: new SharedSummaryChatModel(window),
    tools,
    ...(initialState === undefined ? {} : { initialState }),
  });
  const sent: Message[][] = [];
  for (const end of findRequestTurns(transcript.messages)) sent.push(await driver.prepareRequest(end));
  return sent;
}

/** Each request as JSON, deepagents' history file named alike (a real agent draws its name at random). */
function describeRequests(requests: readonly Message[][]): string[] {
  return requests.map((messages) =>
    JSON.stringify(messages).replaceAll(/\/conversation_history\/session_\w+\.md/g, '/conversation_history/session.md'),
  );
}

/** How many requests each sent, and the first request where they differ (-1: none). */
function compareRequests(
  driven: readonly Message[][],
  real: readonly Message[][],
): { driven: number; real: number; firstDifference: number } {
  const [left, right] = [describeRequests(driven), describeRequests(real)];
  return {
    driven: left.length,
    real: right.length,
    firstDifference: left.findIndex((request, index) => request !== right[index]),
  };
}

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

async function createBackend(): Promise<FilesystemBackend> {
  const directory = await mkdtemp(join(tmpdir(), 'peer-bench-test-'));
  directories.push(directory);
  return new FilesystemBackend({ rootDir: directory, virtualMode: true });
}

describe('the LangChain hook driver of the peer benchmark', () => {
  it('sends what a real createAgent sends through ClearToolUsesEdit and summarizationMiddleware', async () => {
    const transcript = buildSession(24, 3_000);
    const window = 3_000;
    const real = await runRealAgent(transcript, window, createLangchainMiddleware(new SharedSummaryChatModel(window)));
    const driven = await runDriver(transcript, window, createLangchainMiddleware(new SharedSummaryChatModel(window)));
    const texts = JSON.stringify(driven);
    // both middlewares acted, so the comparison covers their edits
    expect(texts).toContain('[cleared]');
    expect(texts).toContain(SHARED_SUMMARY);
    expect(compareRequests(driven, real)).toEqual({ driven: real.length, real: real.length, firstDifference: -1 });
  });

  it("keeps ClearToolUsesEdit's edits in the agent's state, as a real createAgent does", async () => {
    // cleared results stay cleared, so the history never reaches the summarization trigger;
    // were the edits made on a copy, the full results would trigger it
    const transcript = buildSession(24, 2_500);
    const window = 6_000;
    const real = await runRealAgent(transcript, window, createLangchainMiddleware(new SharedSummaryChatModel(window)));
    const driven = await runDriver(transcript, window, createLangchainMiddleware(new SharedSummaryChatModel(window)));
    expect(JSON.stringify(driven)).not.toContain(SHARED_SUMMARY);
    expect(compareRequests(driven, real)).toEqual({ driven: real.length, real: real.length, firstDifference: -1 });
  });

  it("sends what a real createAgent sends through deepagents' eviction and summarization", async () => {
    const transcript = buildSession(24, 3_000);
    const window = 8_000;
    const middleware = (backend: FilesystemBackend) => [
      createFilesystemMiddleware({ backend, toolTokenLimitBeforeEvict: 250 }),
      createSummarizationMiddleware({ backend }),
    ];
    const realBackend = await createBackend();
    const real = await runRealAgent(transcript, window, middleware(realBackend));
    const driven = await runDriver(transcript, window, middleware(await createBackend()), {
      _summarizationSessionId: 'session_test',
    });
    const texts = JSON.stringify(driven);
    expect(texts).toContain('/large_tool_results/');
    expect(texts).toContain('/conversation_history/session_test.md');
    expect(compareRequests(driven, real)).toEqual({ driven: real.length, real: real.length, firstDifference: -1 });
  });
});
