/**
 * Reads answered by the proxy (`readTool: 'proxy'`): the proxy adds `read_offloaded` to the
 * request's tools, answers the model's calls to it from the store and asks the upstream again,
 * so the official clients, streamed or not, only ever see answers without a read call, and the
 * upstream gets the exact content that was offloaded.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  anthropicStreamEvents,
  chatBody,
  chatStreamChunks,
  responsesBody,
  responsesStreamEvents,
  sendJson,
  sendStream,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';

const TOOL_OUTPUT = Array.from({ length: 120 }, (_, index) => `row ${index}: checksum ${(index * 7919) % 1000}`).join(
  '\n',
);
const REFERENCE = /\[(?:Content offloaded to|Tool result offloaded to file): ([^\]]+)\]/;
const FINAL_TEXT = 'The table has 120 rows.';

/** The content a read answer shows: its numbered lines without their numbers, its footer left out. */
function linesOf(readAnswer: string): string {
  return readAnswer
    .split('\n')
    .map((line) => /^\s*\d+\t(.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined)
    .join('\n');
}

/** The history the upstream got, as JSON text (the read tool's description names an example reference). */
function historyText(record: UpstreamRecord): string {
  return JSON.stringify(record.body?.messages ?? record.body?.input);
}

/** The reference the upstream got in place of the tool result. */
function referenceIn(record: UpstreamRecord): string {
  const match = REFERENCE.exec(historyText(record));
  expect(match, historyText(record).slice(0, 400)).not.toBeNull();
  return JSON.parse(`"${match![1]!}"`) as string;
}

/** What the scripted model does on one API: read what was offloaded, then answer in text. */
interface ApiScript {
  /** The result the proxy gave the read call, when the request's history ends with it. */
  readResult(record: UpstreamRecord): string | undefined;
  /** The answer calling `read_offloaded` on `ref` (and, with `alsoOwnTool`, the agent's own Bash in the same turn). */
  sendRead(response: ServerResponse, ref: string, streamed: boolean, alsoOwnTool: boolean): Promise<void> | void;
  sendText(response: ServerResponse, streamed: boolean): Promise<void> | void;
  /** The names of the request's tools, in order. */
  toolNames(record: UpstreamRecord): unknown[];
}

function lastOf(record: UpstreamRecord, field: string): Record<string, unknown> | undefined {
  const items = record.body?.[field];
  return Array.isArray(items) ? (items.at(-1) as Record<string, unknown>) : undefined;
}

const ANTHROPIC: ApiScript = {
  readResult(record) {
    const last = lastOf(record, 'messages');
    const block = Array.isArray(last?.content) ? (last.content[0] as Record<string, unknown>) : undefined;
    return block?.type === 'tool_result' && block.tool_use_id === 'toolu_read' ? String(block.content) : undefined;
  },
  sendRead(response, ref, streamed, alsoOwnTool) {
    const content = [
      { type: 'text' as const, text: 'Let me read it.' },
      { type: 'tool_use' as const, id: 'toolu_read', name: 'read_offloaded', input: { ref } },
      ...(alsoOwnTool ? [{ type: 'tool_use' as const, id: 'toolu_ls', name: 'Bash', input: { command: 'ls' } }] : []),
    ];
    const usage = { input_tokens: 900, output_tokens: 20 };
    if (streamed) return sendStream(response, anthropicStreamEvents(content, usage));
    return sendJson(response, anthropicBody(content, usage, 'tool_use'));
  },
  sendText(response, streamed) {
    const usage = { input_tokens: 1500, output_tokens: 9 };
    if (streamed) return sendStream(response, anthropicStreamEvents([{ type: 'text', text: FINAL_TEXT }], usage));
    return sendJson(response, anthropicBody([{ type: 'text', text: FINAL_TEXT }], usage));
  },
  toolNames: (record) => (record.body?.tools as { name: string }[]).map((tool) => tool.name),
};

const RESPONSES: ApiScript = {
  readResult(record) {
    const last = lastOf(record, 'input');
    return last?.type === 'function_call_output' && last.call_id === 'call_read' ? String(last.output) : undefined;
  },
  sendRead(response, ref, streamed, alsoOwnTool) {
    const output = [
      {
        type: 'function_call' as const,
        call_id: 'call_read',
        name: 'read_offloaded',
        arguments: JSON.stringify({ ref }),
      },
      ...(alsoOwnTool
        ? [{ type: 'function_call' as const, call_id: 'call_ls', name: 'shell', arguments: '{"command":["ls"]}' }]
        : []),
    ];
    if (streamed) return sendStream(response, responsesStreamEvents(output, 900));
    return sendJson(response, responsesBody(output, 900));
  },
  sendText(response, streamed) {
    const output = [{ type: 'message' as const, text: FINAL_TEXT }];
    if (streamed) return sendStream(response, responsesStreamEvents(output, 1500));
    return sendJson(response, responsesBody(output, 1500));
  },
  toolNames: (record) => (record.body?.tools as { name: string }[]).map((tool) => tool.name),
};

function chatToolCallChunks(calls: readonly { id: string; name: string; arguments: string }[]): string[] {
  const base = { id: 'chatcmpl-read', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-test' };
  const chunk = (choice: Record<string, unknown>): string =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }] })}\n\n`;
  return [
    chunk({ delta: { role: 'assistant', content: null }, finish_reason: null }),
    ...calls.flatMap((call, index) => [
      chunk({
        delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] },
        finish_reason: null,
      }),
      // the arguments in two pieces, as the API streams them
      chunk({
        delta: { tool_calls: [{ index, function: { arguments: call.arguments.slice(0, 5) } }] },
        finish_reason: null,
      }),
      chunk({
        delta: { tool_calls: [{ index, function: { arguments: call.arguments.slice(5) } }] },
        finish_reason: null,
      }),
    ]),
    chunk({ delta: {}, finish_reason: 'tool_calls' }),
    'data: [DONE]\n\n',
  ];
}

const CHAT: ApiScript = {
  readResult(record) {
    const last = lastOf(record, 'messages');
    return last?.role === 'tool' && last.tool_call_id === 'call_read' ? String(last.content) : undefined;
  },
  sendRead(response, ref, streamed, alsoOwnTool) {
    const calls = [
      { id: 'call_read', name: 'read_offloaded', arguments: JSON.stringify({ ref }) },
      ...(alsoOwnTool ? [{ id: 'call_ls', name: 'shell', arguments: '{"command":"ls"}' }] : []),
    ];
    if (streamed) return sendStream(response, chatToolCallChunks(calls));
    return sendJson(response, {
      ...chatBody('', 900),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
    });
  },
  sendText(response, streamed) {
    if (streamed) return sendStream(response, chatStreamChunks(FINAL_TEXT, 1500));
    return sendJson(response, chatBody(FINAL_TEXT, 1500));
  },
  toolNames: (record) => (record.body?.tools as { function: { name: string } }[]).map((tool) => tool.function.name),
};

/** The scripted model: with a reference in its history and no read answered yet, it reads; then it answers. */
function scriptModel(api: ApiScript, streamed: boolean, options: { alsoOwnTool?: boolean; alwaysRead?: boolean } = {}) {
  return (record: UpstreamRecord, response: ServerResponse): Promise<void> | void => {
    const read = api.readResult(record);
    if (REFERENCE.test(historyText(record)) && (read === undefined || options.alwaysRead === true))
      return api.sendRead(response, referenceIn(record), streamed, options.alsoOwnTool === true);
    return api.sendText(response, streamed);
  };
}

const AGENT_TOOL = {
  anthropic: { name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object', properties: {} } },
  responses: {
    type: 'function',
    name: 'shell',
    description: 'Runs a command.',
    parameters: { type: 'object' },
    strict: false,
  },
  chat: {
    type: 'function',
    function: { name: 'shell', description: 'Runs a command.', parameters: { type: 'object' } },
  },
} as const;

let upstream: ScriptedUpstream;
let proxy: RunningProxy;

beforeEach(async () => {
  upstream = await startScriptedUpstream();
  proxy = await startProxy(upstream.origin, { readTool: 'proxy' });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

async function askAnthropic(streamed: boolean): Promise<Anthropic.ContentBlock[]> {
  const client = new Anthropic({ apiKey: 'sk-ant-reader', baseURL: proxy.origin, maxRetries: 0 });
  const params = {
    model: 'claude-test',
    max_tokens: 64,
    tools: [AGENT_TOOL.anthropic],
    messages: [
      { role: 'user', content: 'Count the rows of the table.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_dump', name: 'Bash', input: { command: 'dump' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_dump', content: TOOL_OUTPUT }] },
    ] as Anthropic.MessageParam[],
  };
  if (streamed) return (await client.messages.stream(params).finalMessage()).content;
  return (await client.messages.create(params)).content;
}

async function askResponses(streamed: boolean): Promise<OpenAI.Responses.ResponseOutputItem[]> {
  const client = new OpenAI({ apiKey: 'sk-reader', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });
  const params = {
    model: 'gpt-test',
    tools: [AGENT_TOOL.responses] as OpenAI.Responses.Tool[],
    input: [
      { role: 'user', content: 'Count the rows of the table.' },
      { type: 'function_call', call_id: 'call_dump', name: 'shell', arguments: '{"command":["dump"]}' },
      { type: 'function_call_output', call_id: 'call_dump', output: TOOL_OUTPUT },
    ] as OpenAI.Responses.ResponseInput,
  };
  if (streamed) return (await client.responses.stream(params).finalResponse()).output;
  return (await client.responses.create(params)).output;
}

async function askChat(streamed: boolean): Promise<OpenAI.Chat.ChatCompletionMessage> {
  const client = new OpenAI({ apiKey: 'sk-reader', baseURL: `${proxy.origin}/v1`, maxRetries: 0 });
  const params = {
    model: 'gpt-test',
    tools: [AGENT_TOOL.chat] as OpenAI.Chat.ChatCompletionTool[],
    messages: [
      { role: 'user', content: 'Count the rows of the table.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_dump', type: 'function', function: { name: 'shell', arguments: '{"command":"dump"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_dump', content: TOOL_OUTPUT },
    ] as OpenAI.Chat.ChatCompletionMessageParam[],
  };
  if (streamed) {
    const stream = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    return (await stream.finalChatCompletion()).choices[0]!.message;
  }
  return (await client.chat.completions.create(params)).choices[0]!.message;
}

/** Each API: its script, a call of the official client, and what of its answer names a tool call. */
const APIS = [
  {
    name: 'Anthropic Messages',
    script: ANTHROPIC,
    ask: async (streamed: boolean) => {
      const content = await askAnthropic(streamed);
      return {
        text: content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        calls: content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : [])),
      };
    },
  },
  {
    name: 'OpenAI Responses',
    script: RESPONSES,
    ask: async (streamed: boolean) => {
      const output = await askResponses(streamed);
      return {
        text: output
          .flatMap((item) => (item.type === 'message' ? item.content : []))
          .map((part) => (part.type === 'output_text' ? part.text : ''))
          .join(''),
        calls: output.flatMap((item) => (item.type === 'function_call' ? [item.name] : [])),
      };
    },
  },
  {
    name: 'Chat Completions',
    script: CHAT,
    ask: async (streamed: boolean) => {
      const message = await askChat(streamed);
      return {
        text: message.content ?? '',
        calls: (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call.function.name] : [])),
      };
    },
  },
] as const;

describe('reads answered by the proxy', () => {
  for (const api of APIS) {
    describe(api.name, () => {
      for (const streamed of [false, true]) {
        const mode = streamed ? 'streamed' : 'not streamed';

        it(`answers the model's read and gives the client the final answer alone (${mode})`, async () => {
          upstream.answer(scriptModel(api.script, streamed));
          const answer = await api.ask(streamed);

          expect(answer).toEqual({ text: FINAL_TEXT, calls: [] });
          expect(upstream.requests).toHaveLength(2);
          // the upstream got the stored content itself, every line of it
          expect(linesOf(api.script.readResult(upstream.requests[1]!) ?? '')).toBe(TOOL_OUTPUT);
          const metrics = await sendRaw(proxy.origin, '/_agent-context/metrics', { method: 'GET' });
          expect(metrics.body.toString('utf8')).toMatch(/^agent_context_reads_total\{route="\/v1\/[a-z/]+"\} 1$/m);
        });

        it(`re-asks a turn that also called the agent's own tool, which the client never sees with the read (${mode})`, async () => {
          upstream.answer(scriptModel(api.script, streamed, { alsoOwnTool: true }));
          const answer = await api.ask(streamed);

          expect(answer.calls).not.toContain('read_offloaded');
          expect(answer.text).toBe(FINAL_TEXT);
          // the re-asked history holds the read, not the call of the agent's tool that has no result
          expect(JSON.stringify(upstream.requests[1]?.body)).not.toMatch(/call_ls|toolu_ls/);
        });
      }

      it('adds the read tool after the agent’s own tools, the same at every request', async () => {
        upstream.answer(scriptModel(api.script, false));
        await api.ask(false);

        expect(upstream.requests.map((record) => api.script.toolNames(record))).toEqual([
          [api.name === 'Anthropic Messages' ? 'Bash' : 'shell', 'read_offloaded'],
          [api.name === 'Anthropic Messages' ? 'Bash' : 'shell', 'read_offloaded'],
        ]);
      });
    });
  }
});

describe('the answer the client gets', () => {
  it('is the final upstream answer byte for byte, status and headers kept', async () => {
    const finalEvents = anthropicStreamEvents([{ type: 'text', text: FINAL_TEXT }], {
      input_tokens: 1500,
      output_tokens: 9,
    });
    upstream.answer((record, response) => {
      if (ANTHROPIC.readResult(record) === undefined)
        return ANTHROPIC.sendRead(response, referenceIn(record), true, false);
      response.setHeader('x-upstream-mark', 'final');
      return sendStream(response, finalEvents);
    });
    const body = JSON.stringify({
      model: 'claude-test',
      max_tokens: 64,
      stream: true,
      messages: [
        { role: 'user', content: 'Count the rows.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_dump', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_dump', content: TOOL_OUTPUT }] },
      ],
    });
    const reply = await sendRaw(proxy.origin, '/v1/messages', {
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-raw', 'anthropic-version': '2023-06-01' },
      body,
    });

    expect(reply.status).toBe(200);
    expect(reply.headers['x-upstream-mark']).toBe('final');
    expect(reply.body.toString('utf8')).toBe(finalEvents.join(''));
  });

  it('is passed on as it comes when it outgrows what the proxy holds', async () => {
    await proxy.close();
    proxy = await startProxy(upstream.origin, { readTool: 'proxy', maxBodyBytes: 64 * 1024 });
    const long = 'a long answer line. '.repeat(20_000);
    const events = anthropicStreamEvents([{ type: 'text', text: long }], { input_tokens: 10, output_tokens: 9 });
    let clientSawData!: () => void;
    const seen = new Promise<void>((resolve) => (clientSawData = resolve));
    // the upstream ends its answer only once the client has its start: a proxy holding it whole would wait forever
    upstream.answer((_record, response) =>
      sendStream(response, events, (index) => (index === 4 ? seen : Promise.resolve())),
    );
    const received = await new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest(
        `${proxy.origin}/v1/messages`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-raw', 'anthropic-version': '2023-06-01' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            clientSawData();
          });
          response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(
        JSON.stringify({
          model: 'claude-test',
          max_tokens: 64,
          stream: true,
          messages: [{ role: 'user', content: 'Talk.' }],
        }),
      );
    });

    expect(received).toBe(events.join(''));
  });

  it('is an error in the provider’s shape when the model keeps reading past the bound of rounds', async () => {
    upstream.answer(scriptModel(ANTHROPIC, false, { alwaysRead: true }));
    const client = new Anthropic({ apiKey: 'sk-ant-reader', baseURL: proxy.origin, maxRetries: 0 });
    const asking = client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Count the rows.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_dump', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_dump', content: TOOL_OUTPUT }] },
      ],
    });

    await expect(asking).rejects.toThrow(/read_offloaded after 8 rounds/);
    // the first request, then eight rounds of reads answered
    expect(upstream.requests).toHaveLength(9);
  });

  it('leaves a client that has a read_offloaded tool of its own to answer it', async () => {
    upstream.answer((record, response) => ANTHROPIC.sendRead(response, 'its-own', false, false));
    const client = new Anthropic({ apiKey: 'sk-ant-reader', baseURL: proxy.origin, maxRetries: 0 });
    const answer = await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      tools: [{ name: 'read_offloaded', description: 'The agent’s own.', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'Read it.' }],
    });

    expect(answer.content.some((block) => block.type === 'tool_use' && block.name === 'read_offloaded')).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('a token count', () => {
  it('counts the request with the read tool the proxy adds to it', async () => {
    upstream.answer((_record, response) => sendJson(response, { input_tokens: 321 }));
    const client = new Anthropic({ apiKey: 'sk-ant-reader', baseURL: proxy.origin, maxRetries: 0 });
    const count = await client.messages.countTokens({
      model: 'claude-test',
      tools: [AGENT_TOOL.anthropic],
      messages: [{ role: 'user', content: 'Count the rows.' }],
    });

    expect(count.input_tokens).toBe(321);
    expect(ANTHROPIC.toolNames(upstream.requests[0]!)).toEqual(['Bash', 'read_offloaded']);
  });
});

describe('the session after a read', () => {
  it('sends the next request the history the client keeps, which extends what the first round sent', async () => {
    upstream.answer(scriptModel(ANTHROPIC, false));
    const client = new Anthropic({ apiKey: 'sk-ant-reader', baseURL: proxy.origin, maxRetries: 0 });
    const history: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Count the rows of the table.' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_dump', name: 'Bash', input: { command: 'dump' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_dump', content: TOOL_OUTPUT }] },
    ];
    const first = await client.messages.create({ model: 'claude-test', max_tokens: 64, messages: history });
    upstream.answer((_record, response) => ANTHROPIC.sendText(response, false));
    await client.messages.create({
      model: 'claude-test',
      max_tokens: 64,
      messages: [...history, { role: 'assistant', content: first.content }, { role: 'user', content: 'Thanks.' }],
    });

    const firstRound = upstream.requests[0]?.body?.messages as unknown[];
    const next = upstream.requests[2]?.body?.messages as unknown[];
    // the reads stay out of the session: the next request repeats the first round's history, the reference kept
    expect(next.slice(0, firstRound.length)).toEqual(firstRound);
    expect(JSON.stringify(next)).not.toContain('toolu_read');
  });
});
