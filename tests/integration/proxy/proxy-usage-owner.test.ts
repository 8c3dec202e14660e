/**
 * A usage figure belongs to the history it counted: through the proxy, it anchors only a later
 * request whose history starts with that history, whatever the session header says. A sub-agent
 * under the main agent's session name, or a second API key under the same name, counts its own
 * history.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
} from '../../fixtures/scripted-llm-server.js';

/** The main agent's figure: its system prompt, tools and first message, as Claude Code's first request counts. */
const MAIN_TOKENS = 91_000;
const SESSION = 'build-fix';

const MAIN_FIRST = [{ role: 'user', content: 'Refactor the date module and keep the tests green.' }];
const MAIN_SECOND = [
  ...MAIN_FIRST,
  { role: 'assistant', content: 'I will look for its callers first.' },
  { role: 'user', content: 'Go on.' },
];
/** The sub-agent's own conversation: another first message, a search and its result. */
const SUB_AGENT = [
  { role: 'user', content: 'Find every caller of parseDate in src/.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_sub_1', name: 'Grep', input: { pattern: 'parseDate' } }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_sub_1', content: 'src/a.ts:3\nsrc/b.ts:9' }],
  },
];

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((record, response) => {
    const main = JSON.stringify(record.body?.messages).includes('Refactor the date module');
    sendJson(
      response,
      anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: main ? MAIN_TOKENS : 2_000, output_tokens: 1 }),
    );
  });
  proxy = await startProxy(upstream.origin);
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

function send(messages: unknown[], key = 'sk-ant-one', system = 'You are Claude Code.'): ReturnType<typeof sendRaw> {
  return sendRaw(proxy.origin, '/v1/messages', {
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-agent-context-session': SESSION },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 8, system, messages }),
  });
}

describe('a usage figure belongs to the history it counted', () => {
  it("is not taken by a sub-agent under the main agent's session header", async () => {
    await send(MAIN_FIRST);
    await send(SUB_AGENT, 'sk-ant-one', 'You are a search agent.');

    const subAgent = proxy.events[1];
    expect(subAgent?.stats?.anchoredMessages).toBe(0);
    expect(subAgent?.stats?.tokensBefore).toBeLessThan(1_000);
  });

  it("still anchors the main agent's next request after the sub-agent's", async () => {
    await send(MAIN_FIRST);
    await send(SUB_AGENT, 'sk-ant-one', 'You are a search agent.');
    await send(MAIN_SECOND);

    const main = proxy.events[2];
    expect(main?.stats?.anchoredMessages).toBe(1);
    expect(main?.stats?.tokensBefore).toBeGreaterThanOrEqual(MAIN_TOKENS);
  });

  it('is not shared between two API keys under one session name, even for the same messages', async () => {
    await send(MAIN_FIRST, 'sk-ant-one');
    await send(MAIN_SECOND, 'sk-ant-two');

    const other = proxy.events[1];
    expect(other?.stats?.anchoredMessages).toBe(0);
    expect(other?.stats?.tokensBefore).toBeLessThan(1_000);
  });
});
