/**
 * The LangChain integration: a
 * `createMiddleware` middleware run inside a real `createAgent` loop, offline, with LangChain's
 * own scripted model (`fakeModel()`). The assertions are on what that model received.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AIMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver, REMOVE_ALL_MESSAGES as LANGGRAPH_REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createAgent, fakeModel } from 'langchain';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ContextCompactAction } from '../../../src/api/context-manager.js';
import { contextOffloadMiddleware } from '../../../src/langchain.js';
import { REMOVE_ALL_MESSAGES } from '../../../src/integrations/langchain/middleware.js';
import { findLastUsage } from '../../../src/integrations/langchain/history.js';
import { createThreadSessions, sessionForThread } from '../../../src/integrations/langchain/thread-sessions.js';

let directory: string;

beforeEach(async () => {
  // The default summarizer must be the offline extractive one, whatever the machine's env says.
  vi.stubEnv('ANTHROPIC_API_KEY', '');
  vi.stubEnv('OFFLOAD_CHAR_THRESHOLD', undefined);
  vi.stubEnv('OFFLOAD_RATIO_THRESHOLD', undefined);
  directory = await mkdtemp(join(tmpdir(), 'aco-langchain-'));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(directory, { recursive: true, force: true });
});

const REFERENCE = /^\[(?:Content offloaded to|Tool result offloaded to file): [^\]\n]+\]/;
const SUMMARY_PREFIX = '[Conversation compressed]';

/** A page of `lineCount` numbered, varied lines (real text, so token counts are realistic). */
function buildPage(label: string, lineCount: number): string {
  const words = ['request', 'handler', 'timeout', 'cache', 'retry', 'stream', 'parser', 'budget', 'window', 'token'];
  const lines: string[] = [];
  for (let index = 1; index <= lineCount; index++) {
    lines.push(
      `${label} line ${index}: the ${words[index % 10]} took ${(index * 37) % 1000} ms after ${words[(index * 3) % 10]} ${index * 7}`,
    );
  }
  return lines.join('\n');
}

/** A reply of the model calling one tool. */
function callTool(name: string, args: Record<string, unknown>, id: string): AIMessage {
  return new AIMessage({ content: '', tool_calls: [{ name, args, id, type: 'tool_call' }] });
}

/** The contents of every file under `root`. */
async function readOffloadedFiles(root: string): Promise<string[]> {
  const files = await readdir(root, { recursive: true, withFileTypes: true });
  // offloaded content only: the session's records (`.records/*.json`) are not
  return Promise.all(
    files
      .filter((file) => file.isFile() && file.name.endsWith('.md'))
      .map((file) => readFile(join(file.parentPath, file.name), 'utf8')),
  );
}

/** A tool whose results stay in the history (it is excluded from offload in the tests). */
function buildNotesTool(notes: Record<string, string>) {
  return tool(async ({ name }: { name: string }) => notes[name] ?? `no notes ${name}`, {
    name: 'read_notes',
    description: 'Reads notes by name.',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
  });
}

/** A tool returning the page it is asked for; `pages` maps a name to its text. */
function buildFetchTool(pages: Record<string, string>) {
  return tool(async ({ name }: { name: string }) => pages[name] ?? `no page ${name}`, {
    name: 'fetch_page',
    description: 'Fetches a page by name.',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
  });
}

function textOf(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/** An AI message carrying the usage a provider reported. */
function replyWithUsage(fields: ConstructorParameters<typeof AIMessage>[0], inputTokens: number): AIMessage {
  // Set after construction: the fields type of this @langchain/core narrows usage_metadata to undefined.
  return Object.assign(new AIMessage(fields), {
    usage_metadata: { input_tokens: inputTokens, output_tokens: 5, total_tokens: inputTokens + 5 },
  });
}

/** The tool messages of `messages`, by tool call id. */
function toolResultsById(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const found = new Map<string, ToolMessage>();
  for (const message of messages) if (ToolMessage.isInstance(message)) found.set(message.tool_call_id, message);
  return found;
}

/** Every tool call id of an AI message in `messages` without its result, and every result without its call. */
function findSplitPairs(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  const called = new Set<string>();
  messages.forEach((message, index) => {
    if (AIMessage.isInstance(message)) {
      const ids = (message.tool_calls ?? []).map((call) => call.id ?? '');
      for (const id of ids) called.add(id);
      // The results of a call come right after it, before any other kind of message.
      const following = new Set<string>();
      for (let next = index + 1; next < messages.length && ToolMessage.isInstance(messages[next]); next++) {
        following.add((messages[next] as ToolMessage).tool_call_id);
      }
      for (const id of ids) if (!following.has(id)) problems.push(`call ${id} has no result after it`);
    } else if (ToolMessage.isInstance(message) && !called.has(message.tool_call_id)) {
      problems.push(`result ${message.tool_call_id} has no call before it`);
    }
  });
  return problems;
}

describe('contextOffloadMiddleware in a createAgent loop (fakeModel)', () => {
  it('offloads a large result before the model sees it, reads it back with its own tool, and compacts an over-limit history', async () => {
    const bigPage = buildPage('big', 400); // ~25,000 chars: over the threshold
    const notes = { a: buildPage('note-a', 40), b: buildPage('note-b', 40), c: buildPage('note-c', 40) };
    let reference = '';
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'big' }, 'call_big'))
      .respond((messages) => {
        // The model asks for the content back by the reference it was shown.
        reference = textOf(toolResultsById(messages).get('call_big')!);
        return callTool('read_offloaded', { ref: reference, offset: 200, limit: 5 }, 'call_read');
      })
      .respond(callTool('read_notes', { name: 'a' }, 'call_a'))
      .respond(callTool('read_notes', { name: 'b' }, 'call_b'))
      .respond(callTool('read_notes', { name: 'c' }, 'call_c'))
      .respond(new AIMessage('All read.'));
    const compactions: ContextCompactAction[] = [];
    const warnings: string[] = [];
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      logger: { warn: (message) => warnings.push(message) },
      // ~1,050 tokens per note: the trigger (0.92 x 3,000) is crossed by the third note, not the second.
      contextTokenLimit: 3000,
      onCompact: (action) => {
        compactions.push(action);
      },
      // Notes are never offloaded (as a tool whose results must stay would be), so only compaction can make room.
      offload: { timing: 'on-arrival', directThreshold: 4000, excludeTools: ['read_notes'] },
    });
    const agent = createAgent({
      model,
      tools: [buildFetchTool({ big: bigPage }), buildNotesTool(notes)],
      middleware: [middleware],
    });

    const result = await agent.invoke({ messages: [new HumanMessage('Read the big page, then notes a, b and c.')] });

    expect(model.callCount).toBe(6);
    const calls = model.calls.map((call) => call.messages);

    // (a) The second call received the reference, not the 25,000 characters.
    const offloaded = toolResultsById(calls[1]!).get('call_big')!;
    expect(textOf(offloaded)).toMatch(REFERENCE);
    expect(textOf(offloaded)).not.toContain('big line 200:');
    expect(textOf(offloaded).length).toBeLessThan(1000);
    // ... and the content is in the directory, whole.
    expect(await readOffloadedFiles(directory)).toContain(bigPage);

    // (b) The read tool, registered by the middleware, gave the model the lines it asked for.
    const read = textOf(toolResultsById(calls[2]!).get('call_read')!);
    expect(read).toContain('big line 200:');
    expect(read).toContain('big line 204:');
    expect(read).not.toContain('big line 205:');

    // (c) The history went over the limit: a later call received the summary, no pair split.
    expect(compactions).toHaveLength(1);
    expect(compactions[0]).toMatchObject({ summarizer: 'extractive', archiveReference: expect.any(String) });
    expect(warnings.join('\n')).toContain('extractive summarizer');
    // The raw history was archived, and the read tool the middleware registered opens it.
    const archive = await middleware.tools![0]!.invoke({
      ref: compactions[0]!.archiveReference!,
      pattern: 'note-b line 7:',
    });
    expect(archive).toContain('note-b line 7:');
    const compactedCall = calls.findIndex((messages) =>
      messages.some((message) => textOf(message).startsWith(SUMMARY_PREFIX)),
    );
    expect(compactedCall).toBeGreaterThan(2);
    expect(calls[compactedCall - 1]!.some((message) => textOf(message).startsWith(SUMMARY_PREFIX))).toBe(false);
    expect(calls[compactedCall]!.length).toBeLessThan(calls[compactedCall - 1]!.length);
    // The exchange in flight follows the summary: the call for note c and its result, which ends the request.
    expect(calls[compactedCall]!.at(-1)).toBeInstanceOf(ToolMessage);
    expect(textOf(calls[compactedCall]!.at(-1)!)).toBe(notes.c);
    for (const messages of calls) expect(findSplitPairs(messages)).toEqual([]);
    // The summary still names the offloaded reference, so nothing is out of reach.
    const summary = textOf(calls[compactedCall]!.find((message) => textOf(message).startsWith(SUMMARY_PREFIX))!);
    expect(summary).toContain(reference.replace(/^\[[^:]+: /, '').replace(/\]$/, ''));
    // The agent's state holds the compacted history too: the compaction persisted.
    expect(result.messages.some((message) => textOf(message).startsWith(SUMMARY_PREFIX))).toBe(true);
    expect(result.messages.at(-1)?.content).toBe('All read.');
  });

  it('keeps the reference in the agent state: the raw result never enters the history', async () => {
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'big' }, 'call_big'))
      .respond(new AIMessage('Done.'));
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      offload: { timing: 'on-arrival', directThreshold: 1000 },
    });
    const agent = createAgent({
      model,
      tools: [buildFetchTool({ big: buildPage('big', 100) })],
      middleware: [middleware],
    });

    const result = await agent.invoke({ messages: [new HumanMessage('Fetch the big page.')] });

    const stored = toolResultsById(result.messages).get('call_big')!;
    expect(textOf(stored)).toMatch(REFERENCE);
    expect(stored.name).toBe('fetch_page');
    expect(result.messages.some((message) => textOf(message).includes('big line 50:'))).toBe(false);
  });

  it('offloads parallel tool calls each to its own reference', async () => {
    const model = fakeModel()
      .respond(
        new AIMessage({
          content: '',
          tool_calls: [
            { name: 'fetch_page', args: { name: 'one' }, id: 'call_one', type: 'tool_call' },
            { name: 'fetch_page', args: { name: 'two' }, id: 'call_two', type: 'tool_call' },
          ],
        }),
      )
      .respond(new AIMessage('Done.'));
    const pages = { one: buildPage('one', 100), two: buildPage('two', 100) };
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      offload: { timing: 'on-arrival', directThreshold: 1000 },
    });
    const agent = createAgent({ model, tools: [buildFetchTool(pages)], middleware: [middleware] });

    await agent.invoke({ messages: [new HumanMessage('Fetch pages one and two.')] });

    const results = toolResultsById(model.calls[1]!.messages);
    const references = ['call_one', 'call_two'].map((id) => textOf(results.get(id)!));
    for (const reference of references) expect(reference).toMatch(REFERENCE);
    expect(new Set(references).size).toBe(2);
    expect((await readOffloadedFiles(directory)).sort()).toEqual([pages.one, pages.two]);
  });

  it('leaves small results and an under-limit history as they are', async () => {
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'small' }, 'call_small'))
      .respond(new AIMessage('Done.'));
    const middleware = contextOffloadMiddleware({ outputDir: directory });
    const agent = createAgent({
      model,
      tools: [buildFetchTool({ small: 'ok: 3 lines changed' })],
      middleware: [middleware],
    });
    const question = new HumanMessage('Fetch the small page.');

    const result = await agent.invoke({ messages: [question] });

    expect(textOf(toolResultsById(model.calls[1]!.messages).get('call_small')!)).toBe('ok: 3 lines changed');
    expect(model.calls[1]!.messages[0]).toBe(question);
    expect(result.messages.map((message) => message.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(await readdir(directory, { recursive: true })).toEqual([]);
  });

  it('offloads a large result already in the input history before the first model call', async () => {
    const bigPage = buildPage('old', 200);
    const model = fakeModel().respond(new AIMessage('Done.'));
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      offload: { timing: 'on-arrival', directThreshold: 2000 },
    });
    const agent = createAgent({ model, tools: [buildFetchTool({})], middleware: [middleware] });
    const input = [
      new HumanMessage('Earlier turn.'),
      new AIMessage({ content: '', tool_calls: [{ name: 'fetch_page', args: { name: 'old' }, id: 'call_old' }] }),
      new ToolMessage({ content: bigPage, tool_call_id: 'call_old', name: 'fetch_page' }),
      new HumanMessage('Go on.'),
    ];

    await agent.invoke({ messages: input });

    expect(textOf(toolResultsById(model.calls[0]!.messages).get('call_old')!)).toMatch(REFERENCE);
    expect(textOf(input[2]!)).toBe(bigPage); // the caller's message is not mutated
  });

  it('registers the read tool, a LangChain tool with a JSON Schema input', async () => {
    const middleware = contextOffloadMiddleware({ outputDir: directory });
    const [readTool] = middleware.tools ?? [];
    expect(readTool?.name).toBe('read_offloaded');
    expect(readTool?.schema).toMatchObject({ type: 'object', required: ['ref'] });
    expect(await readTool?.invoke({ ref: '/etc/passwd' })).toMatch(/^Refused: "\/etc\/passwd" is not a reference/);
  });
});

describe('contextOffloadMiddleware with the default timing, as results age', () => {
  it('lets the model see a result whole in the call after it, and offloads it once older results pass their budget', async () => {
    // a 10,000-token window: a new result is whole up to 20,000 characters, older ones inline up to 4,000 here
    const pages = { one: buildPage('one', 100), two: buildPage('two', 100) };
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'one' }, 'call_one'))
      .respond(callTool('fetch_page', { name: 'two' }, 'call_two'))
      .respond(new AIMessage('Done.'));
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      contextTokenLimit: 10_000,
      offload: { agedBudgetChars: 4000 },
    });
    const agent = createAgent({ model, tools: [buildFetchTool(pages)], middleware: [middleware] });

    await agent.invoke({ messages: [new HumanMessage('Fetch pages one and two.')] });

    expect(pages.one.length).toBeGreaterThan(4000);
    expect(textOf(toolResultsById(model.calls[1]!.messages).get('call_one')!)).toBe(pages.one);
    const last = toolResultsById(model.calls[2]!.messages);
    expect(textOf(last.get('call_one')!)).toMatch(/^\[Content offloaded to: /);
    expect(textOf(last.get('call_two')!)).toBe(pages.two);
  });

  it('cuts a result over maxInlineResultChars in wrapToolCall: the state keeps its reference, head and tail', async () => {
    const page = buildPage('big', 400);
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'big' }, 'call_big'))
      .respond(new AIMessage('Done.'));
    const middleware = contextOffloadMiddleware({ outputDir: directory, offload: { maxInlineResultChars: 10_000 } });
    const agent = createAgent({ model, tools: [buildFetchTool({ big: page })], middleware: [middleware] });

    const result = await agent.invoke({ messages: [new HumanMessage('Fetch the big page.')] });

    const stored = textOf(toolResultsById(result.messages).get('call_big')!);
    expect(stored).toMatch(REFERENCE);
    expect(stored).toContain(`\nPreview (first 1000 and last 2000 of ${page.length} chars):\n${page.slice(0, 50)}`);
    expect(textOf(toolResultsById(model.calls[1]!.messages).get('call_big')!)).toBe(stored);
  });
});

describe('one agent, many conversations (LangGraph threads)', () => {
  it("gives each thread its own session: one thread's read tool cannot open another's reference", async () => {
    let aliceReference = '';
    const model = fakeModel()
      .respond(callTool('fetch_page', { name: 'big' }, 'call_1'))
      .respond((messages) => {
        aliceReference = textOf(toolResultsById(messages).get('call_1')!);
        return new AIMessage('Alice is done.');
      })
      .respond(() => callTool('read_offloaded', { ref: aliceReference }, 'call_1'))
      .respond(new AIMessage('Bob is done.'));
    const middleware = contextOffloadMiddleware({
      outputDir: directory,
      offload: { timing: 'on-arrival', directThreshold: 1000 },
    });
    const agent = createAgent({
      model,
      tools: [buildFetchTool({ big: buildPage('alice', 100) })],
      middleware: [middleware],
      checkpointer: new MemorySaver(),
    });

    await agent.invoke(
      { messages: [new HumanMessage('Fetch the big page.')] },
      { configurable: { thread_id: 'alice' } },
    );
    const bob = await agent.invoke(
      { messages: [new HumanMessage('Read what Alice fetched.')] },
      { configurable: { thread_id: 'bob' } },
    );

    expect(aliceReference).toMatch(REFERENCE);
    expect(aliceReference).toContain(join(directory, 'alice'));
    const answer = textOf(toolResultsById(bob.messages).get('call_1')!);
    expect(answer).not.toContain('alice line 1:');
    expect(answer).toMatch(/^Refused: .*another session/);
  });

  it('uses a safe thread id as the session folder, and a safe, distinct form of any other', () => {
    expect(sessionForThread('3f6c2a9e-1b7d-4c1e-9a57-0d2b8e4f6a10')).toBe('3f6c2a9e-1b7d-4c1e-9a57-0d2b8e4f6a10');
    expect(sessionForThread(undefined)).toBe('default');
    const slash = sessionForThread('user/42');
    const colon = sessionForThread('user:42');
    expect(slash).toMatch(/^thread-user_42-[0-9a-z]{11}$/);
    expect(colon).toMatch(/^thread-user_42-[0-9a-z]{11}$/);
    expect(slash).not.toBe(colon);
    expect(sessionForThread('..')).toMatch(/^thread-\.\.-[0-9a-z]{11}$/);
  });

  it('keeps at most the given number of managers, dropping the least recently used', () => {
    const created: string[] = [];
    const sessions = createThreadSessions((session) => {
      created.push(session);
      return { session };
    }, 2);
    sessions.get('a');
    sessions.get('b');
    sessions.get('a'); // a is now the most recently used
    sessions.get('c'); // drops b
    sessions.get('a');
    sessions.get('b'); // created again
    expect(created).toEqual(['a', 'b', 'c', 'b']);
  });
});

describe('contextOffloadMiddleware in a server that keeps nothing between requests', () => {
  it("with a new agent and middleware per request and the raw history rebuilt from JSON, compacts once and keeps every prompt's prefix", async () => {
    const turns = 8;
    const notes = Object.fromEntries(
      Array.from({ length: turns }, (_, turn) => [`n${turn}`, buildPage(`note-${turn}`, 24)]),
    );
    let model = fakeModel();
    for (let turn = 0; turn < turns; turn += 1)
      model = model
        .respond(callTool('read_notes', { name: `n${turn}` }, `call_${turn}`))
        .respond(new AIMessage(`Noted ${turn}.`));
    let compactions = 0;
    // what the server keeps: the raw conversation, as JSON
    let saved = JSON.stringify(mapChatMessagesToStoredMessages([]));
    for (let turn = 0; turn < turns; turn += 1) {
      const history = [
        ...mapStoredMessagesToChatMessages(JSON.parse(saved) as never),
        new HumanMessage(`Read note ${turn}.`),
      ];
      const middleware = contextOffloadMiddleware({
        outputDir: directory,
        sessionId: 'chat-7',
        contextTokenLimit: 5000,
        logger: { warn: () => undefined },
        onCompact: () => void (compactions += 1),
        offload: { excludeTools: ['read_notes'] },
      });
      const agent = createAgent({ model, tools: [buildNotesTool(notes)], middleware: [middleware] });
      const before = model.callCount;
      const result = await agent.invoke({ messages: history });
      expect(model.callCount).toBe(before + 2);
      // the server appends what this turn added to its raw history: the call, its result, the answer
      const added = result.messages.slice(-3);
      saved = JSON.stringify(mapChatMessagesToStoredMessages([...history, ...added]));
    }

    expect(compactions).toBe(1);
    // what a provider receives of each message: LangGraph gives each message in the state an id of its own, which no provider is sent
    const sent = model.calls.map((call) =>
      mapChatMessagesToStoredMessages(call.messages).map(({ type, data }) =>
        JSON.stringify({ type, data: { ...data, id: undefined } }),
      ),
    );
    let changes = 0;
    for (let index = 1; index < sent.length; index += 1) {
      const previous = sent[index - 1]!;
      if (sent[index]!.slice(0, previous.length).join('\n') !== previous.join('\n')) changes += 1;
    }
    const prompts = sent.map((messages) => messages.join('\n'));
    expect(prompts.some((prompt) => prompt.includes('[Conversation compressed]'))).toBe(true);
    expect(changes).toBe(1);
  });
});

describe('contextOffloadMiddleware options', () => {
  it('returns the middleware at once, with the read tool registered', () => {
    const middleware = contextOffloadMiddleware({ outputDir: directory });
    expect(middleware).not.toBeInstanceOf(Promise);
    expect(middleware.name).toBe('ContextOffloadMiddleware');
    expect(middleware.tools?.map((registered) => registered.name)).toEqual(['read_offloaded']);
  });

  it('throws on a bad threshold, naming the option', () => {
    expect(() => contextOffloadMiddleware({ outputDir: directory, offload: { directThreshold: -5 } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message: expect.stringContaining('offload.directThreshold must be'),
      }),
    );
  });

  it('takes compaction.resumeMessage as given, over its own default', () => {
    expect(() => contextOffloadMiddleware({ outputDir: directory, compaction: { resumeMessage: ' ' } })).toThrow(
      'compaction.resumeMessage must be a non-blank string, got " "',
    );
  });

  it('refuses resumeMessage at the top, saying it moved to compaction.resumeMessage', () => {
    expect(() => contextOffloadMiddleware({ outputDir: directory, resumeMessage: 'Go on.' } as never)).toThrow(
      /^resumeMessage moved to compaction\.resumeMessage/,
    );
  });

  it('throws with neither outputDir nor store', () => {
    expect(() => contextOffloadMiddleware({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }));
  });

  it('throws when given a format, since the state holds LangChain messages', () => {
    expect(() => contextOffloadMiddleware({ outputDir: directory, format: 'anthropic' } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringContaining('format') }),
    );
  });
});

describe('the message ids LangGraph reads', () => {
  it('uses the id LangGraph reads as "remove all messages"', () => {
    expect(REMOVE_ALL_MESSAGES).toBe(LANGGRAPH_REMOVE_ALL_MESSAGES);
  });
});

describe('the usage given to the manager', () => {
  it('is the last reply followed only by its tool results, counting the messages before it', () => {
    const reply = replyWithUsage({ content: '', tool_calls: [{ name: 'f', args: {}, id: 'c1' }] }, 1234);
    const history = [new HumanMessage('hi'), reply, new ToolMessage({ content: 'ok', tool_call_id: 'c1' })];
    expect(findLastUsage(history)).toEqual({ inputTokens: 1234, messageCount: 1 });
  });

  it('is none after a new user turn or without usage', () => {
    const reply = replyWithUsage({ content: 'done' }, 1234);
    expect(findLastUsage([new HumanMessage('hi'), reply, new HumanMessage('and now?')])).toBeUndefined();
    expect(findLastUsage([new HumanMessage('hi'), new AIMessage('no usage')])).toBeUndefined();
  });
});
