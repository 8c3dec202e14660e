/**
 * One history per session through the proxy: an agent loop with a large system prompt, whose
 * answers report the provider's usage, reaches the upstream with the compacted history on every
 * request after the compaction, never with the history it replaced.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** About 28 KB of instructions, as a coding agent's system prompt takes. */
const SYSTEM = [
  {
    type: 'text',
    text: Array.from(
      { length: 280 },
      (_, index) => `Rule ${index}: keep each change small, explain why it is needed, and run the tests after it.`,
    ).join('\n'),
  },
];
const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-agent-key',
  'anthropic-version': '2023-06-01',
};
const COMPRESSED = '[Conversation compressed]';

type Turn = { role: 'user' | 'assistant'; content: string };

/** The user's turn `index` of the loop, about 3,000 characters. */
function userTurn(index: number): Turn {
  return {
    role: 'user',
    content: `Step ${index}: ${'the parser keeps its state in a table and flushes it when the input ends; '.repeat(40)}`,
  };
}

/** Runs `turns` turns of the agent loop through the proxy and returns the client's history. */
async function runLoop(turns: number): Promise<Turn[]> {
  const history: Turn[] = [];
  for (let index = 0; index < turns; index += 1) {
    history.push(userTurn(index));
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: HEADERS,
      body: JSON.stringify({ model: 'claude-test', max_tokens: 64, system: SYSTEM, messages: history }),
    });
    history.push({ role: 'assistant', content: 'Done.' });
  }
  return history;
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  // the provider's figure: about a token per 3.5 characters of what the request holds
  upstream = await startScriptedUpstream((record, response) => {
    const held = JSON.stringify([record.body?.system, record.body?.messages]).length;
    sendJson(
      response,
      anthropicBody([{ type: 'text', text: 'Done.' }], { input_tokens: Math.ceil(held / 3.5), output_tokens: 2 }),
    );
  });
  proxy = await startProxy(upstream.origin, { contextTokenLimit: 20_000 });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

describe('one history per session', () => {
  it('sends the compacted history on every request after a compaction, never the one it replaced', async () => {
    const history = await runLoop(16);

    const compactions = proxy.events.map((event) => event.actions.filter((action) => action.type === 'compact').length);
    const first = compactions.indexOf(1);
    expect(first).toBeGreaterThan(0);
    expect(compactions.filter((count) => count > 0)).toEqual([1]);
    const sent = upstream.requests.map((record) => record.body?.messages as Turn[]);
    const summary = sent[first]?.[0];
    expect(JSON.stringify(summary)).toContain(COMPRESSED);
    for (const messages of sent.slice(first)) {
      expect(messages[0]).toEqual(summary);
      expect(messages.length).toBeLessThan(history.length);
    }
  });

  it("judges every request of the session against the window's one trigger, before and after the compaction", async () => {
    await runLoop(16);

    expect(proxy.events.some((event) => event.actions.some((action) => action.type === 'compact'))).toBe(true);
    expect(new Set(proxy.events.map((event) => event.stats?.triggerTokens))).toEqual(new Set([18_400]));
  });
});
