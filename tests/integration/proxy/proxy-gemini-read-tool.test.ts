/**
 * Reads answered by the proxy on the Gemini API (`readTool: 'proxy'`): `read_offloaded` declared
 * in the request's tools, the model's calls answered from the store and the upstream asked
 * again, for `generateContent` and both forms of `streamGenerateContent`, so the client (raw
 * `fetch`, as the Gemini SDKs send) only sees answers without a read call.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';

const MODEL_PATH = '/v1beta/models/gemini-2.5-pro';
const KEY_HEADERS = { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-reader' };
const TOOL_OUTPUT = Array.from({ length: 120 }, (_, index) => `row ${index}: checksum ${(index * 7919) % 1000}`).join(
  '\n',
);
const REFERENCE = /\[(?:Content offloaded to|Tool result offloaded to file): ([^\]]+)\]/;
const FINAL_TEXT = 'The table has 120 rows.';
const AGENT_TOOLS = [
  {
    functionDeclarations: [
      { name: 'run_shell_command', description: 'Runs a command.', parameters: { type: 'object' } },
    ],
  },
];

type Part = Record<string, unknown>;
interface Content {
  role: string;
  parts: Part[];
}

/** The content a read answer shows: its numbered lines without their numbers, its footer left out. */
function linesOf(readAnswer: string): string {
  return readAnswer
    .split('\n')
    .map((line) => /^\s*\d+\t(.*)$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined)
    .join('\n');
}

function contentsOf(record: UpstreamRecord): Content[] {
  return record.body?.contents as Content[];
}

/** The function response the proxy gave the model's read, when the request's contents end with one. */
function readResponseIn(record: UpstreamRecord): Record<string, unknown> | undefined {
  const response = contentsOf(record).at(-1)?.parts[0]?.functionResponse as Record<string, unknown> | undefined;
  return response?.name === 'read_offloaded' ? response : undefined;
}

/** How the upstream writes an answer, and how the client's fetch asks for it. */
interface StreamMode {
  name: string;
  method: string;
  /** Writes the chunks of one answer (a whole answer is its one chunk). */
  send(response: ServerResponse, chunks: readonly Record<string, unknown>[]): string;
  /** The answer's chunks, as the client reads them. */
  parse(body: string): Record<string, unknown>[];
}

const MODES: readonly StreamMode[] = [
  {
    name: 'generateContent',
    method: 'generateContent',
    send(response, chunks) {
      // a whole answer: every chunk's parts in one candidate
      const parts = chunks.flatMap((chunk) => candidateOf(chunk).content.parts);
      const body = {
        ...chunks.at(-1),
        candidates: [{ ...candidateOf(chunks.at(-1)!), content: { role: 'model', parts } }],
      };
      sendJson(response, body);
      return JSON.stringify(body);
    },
    parse: (body) => [JSON.parse(body) as Record<string, unknown>],
  },
  {
    name: 'streamGenerateContent?alt=sse',
    method: 'streamGenerateContent?alt=sse',
    send(response, chunks) {
      const text = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('');
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(text);
      return text;
    },
    parse: (body) =>
      body
        .split('\r\n\r\n')
        .filter((event) => event.startsWith('data: '))
        .map((event) => JSON.parse(event.slice(6)) as Record<string, unknown>),
  },
  {
    name: 'streamGenerateContent as a JSON array',
    method: 'streamGenerateContent',
    send(response, chunks) {
      const text = `[${chunks.map((chunk) => JSON.stringify(chunk, null, 2)).join(',\r\n')}]`;
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(text);
      return text;
    },
    parse: (body) => JSON.parse(body) as Record<string, unknown>[],
  },
];

function candidateOf(chunk: Record<string, unknown>): { content: Content; finishReason?: string; index: number } {
  return (chunk.candidates as { content: Content; finishReason?: string; index: number }[])[0]!;
}

function chunk(parts: readonly Part[], finished: boolean, promptTokenCount: number): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finished ? { finishReason: 'STOP' } : {}) }],
    usageMetadata: { promptTokenCount, ...(finished ? { candidatesTokenCount: 9 } : {}) },
    modelVersion: 'gemini-2.5-pro',
  };
}

/** What the scripted model does: with a reference in its contents and no read answered yet, it reads; then it answers. */
interface Script {
  /** The final answer as the upstream wrote it. */
  finalAnswer?: string;
}

function scriptModel(
  mode: StreamMode,
  script: Script,
  options: { alsoOwnTool?: boolean; readId?: string } = {},
): (record: UpstreamRecord, response: ServerResponse) => void {
  return (record, response) => {
    const reference = REFERENCE.exec(JSON.stringify(contentsOf(record)));
    if (reference !== null && readResponseIn(record) === undefined) {
      const ref = JSON.parse(`"${reference[1]!}"`) as string;
      // the call comes in a chunk of its own, after the text and before the finish
      mode.send(response, [
        chunk([{ text: 'Let me read it.' }], false, 900),
        chunk(
          [
            ...(options.alsoOwnTool === true
              ? [{ functionCall: { name: 'run_shell_command', args: { command: 'ls -la' } }, thoughtSignature: 'c2ln' }]
              : []),
            {
              functionCall: {
                ...(options.readId === undefined ? {} : { id: options.readId }),
                name: 'read_offloaded',
                args: { ref },
              },
              ...(options.alsoOwnTool === true ? {} : { thoughtSignature: 'c2ln' }),
            },
          ],
          false,
          900,
        ),
        chunk([{ text: '' }], true, 900),
      ]);
      return;
    }
    script.finalAnswer = mode.send(response, [
      chunk([{ text: 'The table has ' }], false, 1500),
      chunk([{ text: '120 rows.' }], true, 1500),
    ]);
  };
}

const HISTORY: Content[] = [
  { role: 'user', parts: [{ text: 'Count the rows of the table.' }] },
  {
    role: 'model',
    parts: [{ functionCall: { name: 'run_shell_command', args: { command: 'dump' } }, thoughtSignature: 'c2ln' }],
  },
  { role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: { output: TOOL_OUTPUT } } }] },
];

async function ask(mode: StreamMode): Promise<{ raw: string; text: string; calls: unknown[] }> {
  const reply = await fetch(`${proxy.origin}${MODEL_PATH}:${mode.method}`, {
    method: 'POST',
    headers: KEY_HEADERS,
    body: JSON.stringify({ contents: HISTORY, tools: AGENT_TOOLS, generationConfig: { temperature: 0 } }),
  });
  expect(reply.status).toBe(200);
  const raw = await reply.text();
  const parts = mode.parse(raw).flatMap((answer) => candidateOf(answer).content.parts);
  return {
    raw,
    text: parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join(''),
    calls: parts.flatMap((part) => (part.functionCall === undefined ? [] : [(part.functionCall as Part).name])),
  };
}

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

describe('reads answered by the proxy on the Gemini API', () => {
  for (const mode of MODES) {
    describe(mode.name, () => {
      it('answers the model’s read and gives the client the final answer alone, as the upstream wrote it', async () => {
        const script: Script = {};
        upstream.answer(scriptModel(mode, script));
        const answer = await ask(mode);

        expect(answer).toEqual({ raw: script.finalAnswer, text: FINAL_TEXT, calls: [] });
        expect(upstream.requests).toHaveLength(2);
        // the upstream got the stored content itself, every line of it
        const output = (readResponseIn(upstream.requests[1]!)?.response as { output: string }).output;
        expect(linesOf(output)).toBe(TOOL_OUTPUT);
        const metrics = await sendRaw(proxy.origin, '/_agent-context/metrics', { method: 'GET' });
        expect(metrics.body.toString('utf8')).toContain(
          'agent_context_reads_total{route="/v1beta/models/*:generateContent"} 1',
        );
      });

      it('re-asks with the model’s turn, its call kept whole, and a user content answering it by id', async () => {
        upstream.answer(scriptModel(mode, {}, { readId: 'read-1' }));
        await ask(mode);

        const first = contentsOf(upstream.requests[0]!);
        const second = contentsOf(upstream.requests[1]!);
        expect(second.slice(0, first.length)).toEqual(first);
        const [turn, results] = second.slice(first.length);
        expect(turn).toEqual({
          role: 'model',
          parts: [
            { text: 'Let me read it.' },
            {
              functionCall: { id: 'read-1', name: 'read_offloaded', args: { ref: expect.any(String) } },
              thoughtSignature: 'c2ln',
            },
            { text: '' },
          ],
        });
        expect(results?.role).toBe('user');
        expect(results?.parts).toHaveLength(1);
        expect(results?.parts[0]?.functionResponse).toMatchObject({ id: 'read-1', name: 'read_offloaded' });
      });

      it('re-asks a turn that also called the agent’s own tool without that call, which the client never sees', async () => {
        upstream.answer(scriptModel(mode, {}, { alsoOwnTool: true }));
        const answer = await ask(mode);

        expect(answer.calls).toEqual([]);
        expect(answer.text).toBe(FINAL_TEXT);
        expect(JSON.stringify(upstream.requests[1]?.body)).not.toContain('ls -la');
      });
    });
  }

  it('declares the read tool in a tools entry after the agent’s, whose bytes are kept, the same at every request', async () => {
    upstream.answer(scriptModel(MODES[0]!, {}));
    await ask(MODES[0]!);

    const [first, second] = upstream.requests.map((record) => record.body?.tools as unknown[]);
    expect(first?.slice(0, -1)).toEqual(AGENT_TOOLS);
    expect(first?.at(-1)).toMatchObject({
      functionDeclarations: [{ name: 'read_offloaded', parameters: { type: 'OBJECT', required: ['ref'] } }],
    });
    expect(second).toEqual(first);
    expect(upstream.requests[0]!.rawBody.toString('utf8')).toContain(`"tools":[${JSON.stringify(AGENT_TOOLS[0])},`);
  });
});
