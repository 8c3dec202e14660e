/**
 * Counting a very long message through `createContextManager` (real files in a temp dir, the
 * o200k counter, real compaction with the extractive summarizer): a base64 blob pasted in a user
 * message, which nothing may offload, is tokenized once, in parts, with the event loop running
 * between them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { countTokens } from '../../../src/api/tokens.js';
import type { PrepareResult } from '../../../src/core/manage/types.js';
import type { TokenCounter } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createAnthropicLlmClient } from '../../../src/infrastructure/anthropic-client.js';
import { countTextTokens } from '../../../src/infrastructure/tokenizer.js';
import { createRandom } from '../../fixtures/random.js';
import { anthropicMessage, startFakeProviderServer } from '../../fixtures/scripted-llm-server.js';

function buildBase64(byteCount: number, seed: number): string {
  const random = createRandom(seed);
  const bytes = Buffer.alloc(byteCount);
  for (let index = 0; index < byteCount; index += 1) bytes[index] = Math.floor(random() * 256);
  return bytes.toString('base64');
}

/** A counter over the default one that notes each text it is given, with the event-loop turn it was given in. */
function createWatchedCounter(
  currentTurn: () => number,
): TokenCounter & { calls: Array<{ chars: number; turn: number }> } {
  const calls: Array<{ chars: number; turn: number }> = [];
  return {
    calls,
    encoding: 'o200k_base',
    count(text) {
      calls.push({ chars: text.length, turn: currentTurn() });
      return countTextTokens(text);
    },
  };
}

describe('context manager: a 1 MiB base64 user message', () => {
  const blob = buildBase64(786_432, 21); // 1 MiB of base64
  // the blob comes before the exchange in flight (the latest request), so a compaction may summarize it
  const history: Message[] = [
    { role: 'user', content: `Here is the image, base64:\n${blob}` },
    { role: 'assistant', content: 'I have the image.' },
    { role: 'user', content: 'Describe it.' },
  ];
  let root: string;
  let counter: ReturnType<typeof createWatchedCounter>;
  let result: PrepareResult<Message>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'aco-manager-counting-'));
    countTextTokens('the tokenizer loads before the prepare');
    // a turn of the event loop: its check phase, where setImmediate callbacks run
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    counter = createWatchedCounter(() => turn);
    const manager = createContextManager({ outputDir: root, tokenCounter: counter, logger: { warn: () => undefined } });
    try {
      result = await manager.prepare(history);
    } finally {
      ticking = false;
    }
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('compacts it (it is over the trigger, before the exchange in flight, and cannot be offloaded)', () => {
    expect(result.actions.map((action) => action.type)).toEqual(['compact']);
  });

  it('tokenizes it once: the manager, compaction and the summary budget share what was counted', () => {
    const counted = counter.calls.reduce((sum, call) => sum + call.chars, 0);
    expect(counted).toBeLessThan(1.1 * blob.length);
  });

  it('counts it in parts, letting the event loop turn between them', () => {
    const longCalls = counter.calls.filter((call) => call.chars >= 1000);
    const turns = new Set(longCalls.map((call) => call.turn));
    // 1 MiB in parts of at most 3,840 characters: over 273 of them, each in a turn of its own
    expect(turns.size).toBeGreaterThanOrEqual(200);
    expect(Math.max(...longCalls.map((call) => call.chars))).toBeLessThanOrEqual(16 * 1024);
  });

  it('adds the parts up to the count of the whole message', () => {
    const action = result.actions[0];
    if (action?.type !== 'compact') throw new Error(`expected a compaction, got ${JSON.stringify(action)}`);
    expect(action.tokensBefore).toBe(Math.ceil(result.stats.calibrationRatio * countTokens(history)));
  });
});

describe('context manager: a prepare aborted while a long message is counted', () => {
  it("stops counting at the next part and rejects with the signal's reason", async () => {
    const root = await mkdtemp(join(tmpdir(), 'aco-manager-counting-abort-'));
    try {
      const blob = buildBase64(786_432, 22);
      const controller = new AbortController();
      const reason = new Error('the client went away');
      let parts = 0;
      const counter: TokenCounter = {
        encoding: 'o200k_base',
        count(text) {
          if (text.length >= 1000 && ++parts === 10) controller.abort(reason);
          return countTextTokens(text);
        },
      };
      const manager = createContextManager({
        outputDir: root,
        tokenCounter: counter,
        logger: { warn: () => undefined },
      });
      const history: Message[] = [{ role: 'user', content: blob }];
      await expect(manager.prepare(history, { signal: controller.signal })).rejects.toBe(reason);
      // 1 MiB is 273 parts or more: the count stopped at the first yield after the abort
      expect(parts).toBe(10);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('context manager: a 1 MiB base64 user message summarized by an LLM over HTTP', () => {
  it('sizes the summary prompts with the event loop turning: no text over 16 KiB is counted at once', async () => {
    const root = await mkdtemp(join(tmpdir(), 'aco-manager-counting-llm-'));
    const server = await startFakeProviderServer();
    let ticking = true;
    try {
      countTextTokens('the tokenizer loads before the prepare');
      let turn = 0;
      const tick = (): void => {
        turn += 1;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const counter = createWatchedCounter(() => turn);
      server.enqueue('/v1/messages', anthropicMessage('## Task Status\nThe image was pasted.'));
      const sdk = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.origin, maxRetries: 0 });
      const manager = createContextManager({
        outputDir: root,
        tokenCounter: counter,
        llmClient: await createAnthropicLlmClient({ client: sdk }),
        compaction: { summary: { model: 'claude-test' } },
        logger: { warn: () => undefined },
      });
      const blob = buildBase64(786_432, 23);
      const history: Message[] = [
        { role: 'user', content: `Here is the image, base64:\n${blob}` },
        { role: 'assistant', content: 'I have the image.' },
        { role: 'user', content: 'Describe it.' },
      ];
      const turnBefore = turn;
      const result = await manager.prepare(history);
      ticking = false;

      expect(result.actions.map((action) => action.type)).toEqual(['compact']);
      expect(server.requestsTo('/v1/messages').length).toBeGreaterThanOrEqual(1);
      // the summarizer counts its prompts too: all of it in parts, none of them a megabyte
      expect(Math.max(...counter.calls.map((call) => call.chars))).toBeLessThanOrEqual(16 * 1024);
      expect(turn - turnBefore).toBeGreaterThanOrEqual(200);
    } finally {
      ticking = false;
      await server.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
