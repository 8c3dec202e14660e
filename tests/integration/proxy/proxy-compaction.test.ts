/**
 * Compaction through the proxy: a history past the trigger reaches the upstream compacted, the
 * same compacted messages again on the next request (the session is summarized once); with
 * `summarizer: 'upstream'` the summary is asked of the upstream with the agent's own
 * credentials, repeating the agent's request for Anthropic so its prompt cache serves it.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  chatBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';
import { conversation } from './proxy-sessions-fixture.js';

const SYSTEM = [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }];
const TOOLS = [
  {
    name: 'Bash',
    description: 'Runs a command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
];
const SUMMARY = '## Goals & Decisions\nScripted summary of the session.';

function isSummaryRequest(record: UpstreamRecord): boolean {
  return (
    JSON.stringify(record.body ?? {}).includes('Stop working on the task now') ||
    JSON.stringify(record.body ?? {}).includes('<conversation>')
  );
}

const COMPRESSED = '[Conversation compressed]';

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream((record, response) => {
    if (record.url.startsWith('/v1/chat/completions'))
      return sendJson(response, chatBody(isSummaryRequest(record) ? SUMMARY : 'ok', 100));
    return sendJson(
      response,
      anthropicBody([{ type: 'text', text: isSummaryRequest(record) ? SUMMARY : 'ok' }], {
        input_tokens: 100,
        output_tokens: 5,
      }),
    );
  });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'sk-ant-agent-key',
  'anthropic-version': '2023-06-01',
};

function agentRequests(): UpstreamRecord[] {
  return upstream.requests.filter((record) => !isSummaryRequest(record));
}

describe('compaction through the proxy', () => {
  it('sends a compacted history past the trigger, and the same compacted messages on the next request', async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000 });
    const history = conversation(20);
    const body = (messages: unknown[]) =>
      JSON.stringify({ model: 'claude-test', max_tokens: 64, system: SYSTEM, tools: TOOLS, messages });

    await sendRaw(proxy.origin, '/v1/messages', { headers: HEADERS, body: body(history) });
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: HEADERS,
      body: body([...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Go on.' }]),
    });

    const [first, second] = agentRequests().map((record) => record.body?.messages as { content: unknown }[]);
    expect(JSON.stringify(first)).toContain(COMPRESSED);
    expect(first!.length).toBeLessThan(history.length);
    expect(second!.slice(0, first!.length)).toEqual(first);
    expect(second!.slice(first!.length)).toEqual([
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'Go on.' },
    ]);
    expect(proxy.events.map((event) => event.actions.filter((action) => action.type === 'compact').length)).toEqual([
      1, 0,
    ]);
  });

  it('tells the agent to open references with its own tools, and lists them as reference lines', async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000 });
    const checks = Array.from({ length: 6 }, (_, index) => [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${index}`, name: 'Bash', input: { command: `./check.sh ${index}` } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `toolu_${index}`, content: `check ${index} output line\n`.repeat(150) },
        ],
      },
    ]).flat();
    let history: unknown[] = [{ role: 'user', content: 'Run the checks.' }, ...checks, ...conversation(20)];
    const body = (messages: unknown[]) =>
      JSON.stringify({ model: 'claude-test', max_tokens: 64, system: SYSTEM, tools: TOOLS, messages });
    for (let turn = 0; turn < 4; turn += 1) {
      await sendRaw(proxy.origin, '/v1/messages', { headers: HEADERS, body: body(history) });
      history = [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: `Go on (${turn}).` }];
    }

    const sent = JSON.stringify(agentRequests().at(-1)?.body?.messages);
    expect(sent).toContain(COMPRESSED);
    expect(sent).toContain('Each reference below is a file: open it with your own tools');
    expect(sent).not.toContain('read tool');
    expect(sent).toMatch(/\\n {2}- \[Content offloaded to: [^\]]+\] \[\\"Bash\\",\\"toolu_5\\",\\".\/check\.sh 5\\"\]/);
  });

  it('asks the upstream for the summary with the agent credentials, repeating its request (Anthropic)', async () => {
    // a trigger at half the window: the repeated request (the history, the reply's ceiling, the thinking budget) fits the window
    proxy = await startProxy(upstream.origin, {
      contextTokenLimit: 20_000,
      compaction: { triggerRatio: 0.5 },
      summarizer: 'upstream',
    });

    await sendRaw(proxy.origin, '/v1/messages?beta=true', {
      headers: HEADERS,
      body: JSON.stringify({
        model: 'claude-test',
        max_tokens: 64,
        system: SYSTEM,
        tools: TOOLS,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: conversation(25),
      }),
    });

    const summaryRequests = upstream.requests.filter(isSummaryRequest);
    expect(summaryRequests).toHaveLength(1);
    const [summaryRequest] = summaryRequests;
    expect(summaryRequest?.url).toBe('/v1/messages');
    expect(summaryRequest?.headers['x-api-key']).toBe('sk-ant-agent-key');
    expect(summaryRequest?.body).toMatchObject({
      model: 'claude-test',
      system: SYSTEM,
      tools: TOOLS,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    const messages = summaryRequest?.body?.messages as { role: string; content: { cache_control?: unknown }[] }[];
    expect(messages.at(-2)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(agentRequests()[0]?.body)).toContain('Scripted summary of the session.');
  });

  it('asks an OpenAI upstream for the summary on the same endpoint, with the agent credentials', async () => {
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000, summarizer: 'upstream' });
    const messages = [{ role: 'system', content: 'You are a coding agent.' }, ...conversation(20)];

    await sendRaw(proxy.origin, '/v1/chat/completions', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-agent-key' },
      body: JSON.stringify({ model: 'gpt-test', messages }),
    });

    const [summaryRequest] = upstream.requests.filter(isSummaryRequest);
    expect(summaryRequest?.url).toBe('/v1/chat/completions');
    expect(summaryRequest?.headers.authorization).toBe('Bearer sk-openai-agent-key');
    expect(summaryRequest?.body?.model).toBe('gpt-test');
    expect(JSON.stringify(agentRequests()[0]?.body)).toContain('Scripted summary of the session.');
  });

  it('stops an upstream summary under way when the client goes away, and sends nothing on', async () => {
    let summaryArrived!: (record: UpstreamRecord) => void;
    const arrived = new Promise<UpstreamRecord>((resolve) => (summaryArrived = resolve));
    upstream.answer((record) => {
      // the summary is never answered: only the proxy can end it
      if (isSummaryRequest(record)) summaryArrived(record);
    });
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 6000, summarizer: 'upstream' });
    const outgoing = httpRequest(`${proxy.origin}/v1/messages`, { method: 'POST', headers: HEADERS });
    outgoing.on('error', () => undefined);
    outgoing.end(JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: conversation(20) }));

    const summary = await arrived;
    outgoing.destroy();
    await summary.closed;
    // a later exchange: by its end, whatever the proxy did with the abandoned request is done
    upstream.answer((_record, response) =>
      sendJson(response, anthropicBody([], { input_tokens: 1, output_tokens: 1 })),
    );
    await sendRaw(proxy.origin, '/v1/messages', {
      headers: HEADERS,
      body: JSON.stringify({ model: 'claude-test', max_tokens: 8, messages: [{ role: 'user', content: 'Later.' }] }),
    });

    expect(
      upstream.requests.filter((record) => !isSummaryRequest(record)).map((record) => record.body?.messages),
    ).toEqual([[{ role: 'user', content: 'Later.' }]]);
    expect(proxy.warnings.filter((warning) => warning.startsWith('agent-context proxy'))).toEqual([]);
  });

  describe('the system prompt and tools, which the history does not hold', () => {
    // about 6,800 tokens of tool definitions: with Anthropic's margin, 10,200 of a 12,000-token window's 11,040-token trigger
    const bigTools = [
      {
        name: 'Catalog',
        description: 'Looks a part up in the catalog. '.repeat(850),
        input_schema: { type: 'object', properties: {} },
      },
    ];

    it('take their share of the window when no usage figure counts them', async () => {
      proxy = await startProxy(upstream.origin, { contextTokenLimit: 12_000 });

      await sendRaw(proxy.origin, '/v1/messages', {
        headers: HEADERS,
        body: JSON.stringify({ model: 'claude-test', max_tokens: 64, tools: bigTools, messages: conversation(4) }),
      });

      // about 2,000 tokens of history: under the trigger alone, over it with the tools
      expect(proxy.events[0]?.actions.map((action) => action.type)).toContain('compact');
      expect(proxy.events[0]?.stats?.triggerTokens).toBe(11_040);
    });

    it('are not counted twice when the last answer reported the usage', async () => {
      upstream.answer((_record, response) =>
        sendJson(response, anthropicBody([{ type: 'text', text: 'ok' }], { input_tokens: 9_200, output_tokens: 5 })),
      );
      proxy = await startProxy(upstream.origin, { contextTokenLimit: 20_000 });
      const body = (messages: unknown[]) =>
        JSON.stringify({ model: 'claude-test', max_tokens: 64, tools: bigTools, messages });

      await sendRaw(proxy.origin, '/v1/messages', {
        headers: HEADERS,
        body: body([{ role: 'user', content: 'Find part 7.' }]),
      });
      await sendRaw(proxy.origin, '/v1/messages', {
        headers: HEADERS,
        // the answer to the first request is the last assistant turn: its figure is the one that counted
        body: body([
          { role: 'user', content: 'Find part 7.' },
          { role: 'assistant', content: 'ok' },
          {
            role: 'user',
            content: conversation(2)
              .map((message) => message.content)
              .join('\n'),
          },
        ]),
      });

      expect(proxy.events[1]?.stats).toMatchObject({ triggerTokens: 18_400, anchoredMessages: 1 });
      expect(proxy.events[1]?.actions).toEqual([]);
    });
  });
});
