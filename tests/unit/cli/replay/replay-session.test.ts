import { describe, expect, it } from 'vitest';
import { createContextManager } from '../../../../src/api/context-manager.js';
import { estimateCachedInputCost } from '../../../../src/cli/replay/prompt-cache.js';
import { replaySession } from '../../../../src/cli/replay/replay-session.js';
import type { ReplayManager } from '../../../../src/cli/replay/replay-session.js';
import { countTokens, createMemoryStore } from '../../../../src/index.js';
import type { Message, OffloadTiming } from '../../../../src/index.js';
import { createExtractiveSummarizer } from '../../../../src/summarize.js';

const LOG = Array.from(
  { length: 120 },
  (_, line) => `line ${line}: FAIL tests/money/round.test.ts expected 101 to be 102`,
).join('\n');

/** A short coding session: two large tool results, then a final answer. */
const session: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the rounding test.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'run1', name: 'run_command', input: { command: 'npm test' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'run1', content: LOG, is_error: true }] },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'read1', name: 'read_file', input: { path: 'src/round.ts' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'read1', content: LOG.replaceAll('FAIL', 'code') }] },
  { role: 'assistant', content: 'Fixed the rounding.' },
];

/** A long conversation of plain text: nothing to offload, so only compaction can help. */
function chatter(turns: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push({
      role: 'user',
      content: `Question ${turn}: ${'why does the invoice total change when the rounding mode changes? '.repeat(12)}`,
    });
    messages.push({
      role: 'assistant',
      content: `Answer ${turn}: ${'because each line is rounded before the sum, not after it. '.repeat(12)}`,
    });
  }
  return messages;
}

function createManager(contextTokenLimit: number, offloadTiming: OffloadTiming = 'as-they-age'): ReplayManager {
  return createContextManager({
    store: createMemoryStore(),
    contextTokenLimit,
    provider: 'openai',
    summarizer: createExtractiveSummarizer(),
    logger: { warn: () => undefined },
    offload: { timing: offloadTiming },
    compaction: { restore: { maxFiles: 0 }, resumeMessage: 'Continue with the task.' },
  });
}

/** A manager that records every history it is asked to prepare, and what it returned. */
function recordCalls(manager: ReplayManager): { manager: ReplayManager; inputs: Message[][]; outputs: Message[][] } {
  const inputs: Message[][] = [];
  const outputs: Message[][] = [];
  return {
    inputs,
    outputs,
    manager: {
      async prepare(messages, options) {
        inputs.push([...messages]);
        const result = await manager.prepare(messages, options);
        outputs.push(result.messages);
        return result;
      },
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('replaySession: every request, without and with the manager', () => {
  it('replays one request per assistant message; without the manager each sends the raw history before its answer', async () => {
    const requests = await replaySession({ messages: session, manager: createManager(200_000), pricePerMTok: 3 });
    expect(requests.map((request) => request.messageIndex)).toEqual([2, 4, 6]);
    expect(requests.map((request) => request.tokensWithout)).toEqual(
      [2, 4, 6].map((index) => countTokens(session.slice(0, index))),
    );
    expect(requests.map((request) => request.messagesWithout)).toEqual([2, 4, 6]);
  });

  it('sends the same first request with the manager (nothing to do yet), then smaller ones as it offloads the large results on arrival', async () => {
    const requests = await replaySession({
      messages: session,
      manager: createManager(200_000, 'on-arrival'),
      pricePerMTok: 3,
    });
    expect(requests[0]?.tokensWith).toBe(requests[0]?.tokensWithout);
    expect(requests[1]?.offloadedResults).toBe(1);
    expect(requests[1]?.freedChars).toBeGreaterThan(LOG.length - 200);
    expect(requests[2]?.offloadedResults).toBe(1);
    for (const request of requests.slice(1)) expect(request.tokensWith).toBeLessThan(request.tokensWithout / 5);
  });

  it('sends with the manager exactly what it prepared, counted with the tokenizer', async () => {
    const recorded = recordCalls(createManager(200_000));
    const requests = await replaySession({ messages: session, manager: recorded.manager, pricePerMTok: 3 });
    expect(requests.map((request) => request.tokensWith)).toEqual(
      recorded.outputs.map((messages) => countTokens(messages)),
    );
    expect(requests.map((request) => request.messagesWith)).toEqual(
      recorded.outputs.map((messages) => messages.length),
    );
  });

  it('appends the next real turn to what was sent, as an agent loop does', async () => {
    const recorded = recordCalls(createManager(200_000));
    await replaySession({ messages: session, manager: recorded.manager, pricePerMTok: 3 });
    expect(recorded.inputs[0]).toEqual(session.slice(0, 2));
    expect(recorded.inputs[1]).toEqual([...(recorded.outputs[0] ?? []), ...session.slice(2, 4)]);
    expect(recorded.inputs[2]).toEqual([...(recorded.outputs[1] ?? []), ...session.slice(4, 6)]);
  });

  it('compacts a history that outgrows a small window, and reports the compaction', async () => {
    const messages = chatter(12);
    const requests = await replaySession({ messages, manager: createManager(3000), pricePerMTok: 3 });
    const compacted = requests.filter((request) => request.compaction !== null);
    expect(compacted.length).toBeGreaterThan(0);
    const first = compacted[0]!;
    expect(first.compaction!.tokensAfter).toBeLessThan(first.compaction!.tokensBefore);
    expect(first.compaction!.archiveReference).toMatch(/^memory:\/\/.*compact-.*\.json$/);
    expect(Math.max(...requests.map((request) => request.tokensWith))).toBeLessThan(3000);
    expect(requests.at(-1)!.tokensWithout).toBeGreaterThan(3000);
  });

  it('adds the tool definitions to every request, without and with the manager', async () => {
    const bare = await replaySession({ messages: session, manager: createManager(200_000), pricePerMTok: 3 });
    const withTools = await replaySession({
      messages: session,
      manager: createManager(200_000),
      pricePerMTok: 3,
      toolDefinitionTokens: 500,
    });
    expect(withTools.map((request) => request.tokensWithout)).toEqual(
      bare.map((request) => request.tokensWithout + 500),
    );
    expect(withTools[0]?.tokensWith).toBe((bare[0]?.tokensWith ?? 0) + 500);
  });

  it('prices each request at the given rate', async () => {
    const requests = await replaySession({ messages: session, manager: createManager(200_000), pricePerMTok: 2 });
    for (const request of requests) {
      expect(request.costWithout).toBeCloseTo((request.tokensWithout * 2) / 1e6, 12);
      expect(request.costWith).toBeCloseTo((request.tokensWith * 2) / 1e6, 12);
    }
  });

  it('reports progress before each request, and never changes the transcript', async () => {
    const frozen = deepFreeze(structuredClone(session));
    const progress: string[] = [];
    await replaySession({
      messages: frozen,
      manager: createManager(200_000),
      pricePerMTok: 3,
      onRequest: (number, count) => progress.push(`${number}/${count}`),
    });
    expect(progress).toEqual(['1/3', '2/3', '3/3']);
    expect(frozen).toEqual(session);
  });

  it('replays nothing when there is no assistant message', async () => {
    expect(
      await replaySession({ messages: session.slice(0, 2), manager: createManager(200_000), pricePerMTok: 3 }),
    ).toEqual([]);
  });

  it("stops with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    controller.abort(reason);
    await expect(
      replaySession({ messages: session, manager: createManager(200_000), pricePerMTok: 3, signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});

describe('replaySession: read-backs', () => {
  it('counts one more request for each result the model only got as a reference, carrying that request and the result', async () => {
    const recorded = recordCalls(createManager(200_000, 'on-arrival'));
    const requests = await replaySession({ messages: session, manager: recorded.manager, pricePerMTok: 3 });
    // on arrival, each large result is a reference at the first request after it
    expect(requests.map((request) => request.readBacks)).toEqual([0, 1, 1]);
    const sent = recorded.outputs[1] ?? [];
    const readBack: Message[] = [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'read-back-run1', name: 'read_offloaded', input: { result: 'run1' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'read-back-run1', content: LOG }] },
    ];
    const tokens = countTokens([...sent, ...readBack]);
    expect(requests[1]?.readBackTokens).toBe(tokens);
    expect(requests[1]?.readBackCost).toBeCloseTo((tokens * 3) / 1e6, 12);
    // the read-back extends the request before it: that request is read from the cache, the read written
    expect(requests[1]?.readBackCachedCost).toBeCloseTo(
      estimateCachedInputCost(tokens, countTokens(sent), 3, { readRatio: 0.1, writeRatio: 1.25 }),
      12,
    );
  });

  it('counts none when every result reaches the model whole (as results age, in a window that holds them)', async () => {
    const requests = await replaySession({ messages: session, manager: createManager(200_000), pricePerMTok: 3 });
    expect(requests.map((request) => request.readBacks)).toEqual([0, 0, 0]);
    expect(requests.map((request) => request.readBackTokens)).toEqual([0, 0, 0]);
  });

  it('counts a result cut to its head and tail as read back whole: the model never saw it all', async () => {
    // a window of 1,000 tokens: a result of more than 2,000 characters is cut
    const requests = await replaySession({ messages: session, manager: createManager(1000), pricePerMTok: 3 });
    expect(requests[1]?.readBacks).toBe(1);
    expect(requests[1]?.readBackTokens).toBeGreaterThan(countTokens([{ role: 'user', content: LOG }]));
  });
});
