/**
 * `summarizer: 'upstream'` over a long session, against an upstream that refuses any request
 * over its window with a 400, as a real provider does (its count: the local o200k count of the
 * request, times 1.5 as Anthropic counts or 1.05 for OpenAI's framing, plus the reply's ceiling). Every summary request fits the window, the agent's
 * requests keep going through, and an upstream that refuses every summary request leaves the
 * extractive summarizer to write the summary: the session never sends its whole history.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultTokenCounter } from '../../../src/infrastructure/tokenizer.js';
import { sendRaw, startProxy, type RunningProxy } from './proxy-harness.js';
import {
  anthropicBody,
  chatBody,
  sendJson,
  startScriptedUpstream,
  type ScriptedUpstream,
  type UpstreamRecord,
} from '../../fixtures/scripted-llm-server.js';

const WINDOW = 12_000;
/** The provider's tokens per local token: Anthropic's tokenizer counts about 1.5 times o200k's. */
const ANTHROPIC_RATIO = 1.5;
const OPENAI_RATIO = 1.05;
const SUMMARY = '## Goals & Decisions\nScripted summary of the session.';

function isSummaryRequest(record: UpstreamRecord): boolean {
  const text = JSON.stringify(record.body ?? {});
  return text.includes('Stop working on the task now') || text.includes('<conversation>');
}

/** The upstream's count of a request: its input as the provider counts it, plus the reply's ceiling. */
function providerTokens(body: Record<string, unknown>, ratio: number): number {
  const input = JSON.stringify([body.system, body.tools, body.messages, body.input]);
  const reply = [body.max_tokens, body.max_completion_tokens, body.max_output_tokens].find(
    (value): value is number => typeof value === 'number',
  );
  return Math.ceil(ratio * defaultTokenCounter.count(input)) + (reply ?? 0);
}

let upstream: ScriptedUpstream;
let proxy: RunningProxy;
/** What the upstream counted of each request, in order. */
let counted: { summary: boolean; tokens: number }[];

/** An upstream with a window of {@link WINDOW} tokens; `refuseSummaries` answers every summary request 400. */
async function startWindowedUpstream(refuseSummaries = false): Promise<ScriptedUpstream> {
  counted = [];
  return startScriptedUpstream((record, response) => {
    const body = record.body ?? {};
    const chat = record.url.startsWith('/v1/chat/completions');
    const tokens = providerTokens(body, chat ? OPENAI_RATIO : ANTHROPIC_RATIO);
    const summary = isSummaryRequest(record);
    counted.push({ summary, tokens });
    if (tokens > WINDOW || (summary && refuseSummaries)) {
      const message = `prompt is too long: ${tokens} tokens > ${WINDOW} maximum`;
      return sendJson(
        response,
        chat
          ? { error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' } }
          : { type: 'error', error: { type: 'invalid_request_error', message } },
        400,
      );
    }
    const text = summary ? SUMMARY : 'ok';
    if (chat) return sendJson(response, chatBody(text, tokens));
    return sendJson(response, anthropicBody([{ type: 'text', text }], { input_tokens: tokens, output_tokens: 5 }));
  });
}

afterEach(async () => {
  await proxy.close();
  await upstream.close();
});

/** The user's message of turn `turn`: about 1,300 characters of prose. */
function userMessage(turn: number): string {
  return `Turn ${turn}: ${'the module under review keeps its state in a map and flushes it on exit; '.repeat(18)}`;
}

type Api = 'anthropic' | 'openai-chat';

/** Runs a session of `turns` requests, the client keeping its whole history; resolves the status of each. */
async function runSession(api: Api, turns: number): Promise<number[]> {
  const history: { role: string; content: string }[] =
    api === 'openai-chat' ? [{ role: 'system', content: 'You are a coding agent.' }] : [];
  const statuses: number[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    history.push({ role: 'user', content: userMessage(turn) });
    const reply =
      api === 'anthropic'
        ? await sendRaw(proxy.origin, '/v1/messages', {
            headers: {
              'content-type': 'application/json',
              'x-api-key': 'sk-ant-agent-key',
              'anthropic-version': '2023-06-01',
            },
            body: JSON.stringify({
              model: 'claude-test',
              max_tokens: 512,
              system: 'You are a coding agent.',
              messages: history,
            }),
          })
        : await sendRaw(proxy.origin, '/v1/chat/completions', {
            headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-agent-key' },
            body: JSON.stringify({ model: 'gpt-test', max_completion_tokens: 512, messages: history }),
          });
    statuses.push(reply.status);
    history.push({ role: 'assistant', content: 'ok' });
  }
  return statuses;
}

function compactions(): { summarizer: string; fallbackFrom?: string | undefined }[] {
  return proxy.events.flatMap((event) =>
    event.actions.flatMap((action) =>
      action.type === 'compact' ? [{ summarizer: action.summarizer, fallbackFrom: action.fallbackFrom }] : [],
    ),
  );
}

describe('upstream summaries in a window', () => {
  it.each<Api>(['anthropic', 'openai-chat'])(
    'keeps every summary request within the window, and the session keeps working (%s)',
    async (api) => {
      upstream = await startWindowedUpstream();
      proxy = await startProxy(upstream.origin, { contextTokenLimit: WINDOW, summarizer: 'upstream' });

      const statuses = await runSession(api, 45);

      expect(counted.filter((request) => request.summary).length).toBeGreaterThan(0);
      expect(counted.filter((request) => request.tokens > WINDOW)).toEqual([]);
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(compactions().length).toBeGreaterThan(0);
      expect(compactions().every((compaction) => compaction.fallbackFrom === undefined)).toBe(true);
    },
  );

  it('asks nothing when the window cannot hold a summary request, and the extractive summarizer writes it', async () => {
    upstream = await startWindowedUpstream();
    proxy = await startProxy(upstream.origin, { contextTokenLimit: 3000, summarizer: 'upstream' });

    const statuses = await runSession('anthropic', 12);

    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(counted.filter((request) => request.summary)).toEqual([]);
    expect(compactions().length).toBeGreaterThan(0);
    expect(compactions().every((compaction) => compaction.fallbackFrom === 'custom')).toBe(true);
    expect(proxy.warnings.some((warning) => warning.includes('a window of 3000 tokens leaves'))).toBe(true);
  });

  it('falls back to the extractive summarizer when the upstream refuses every summary request, asking once per compaction', async () => {
    upstream = await startWindowedUpstream(true);
    proxy = await startProxy(upstream.origin, { contextTokenLimit: WINDOW, summarizer: 'upstream' });

    const statuses = await runSession('anthropic', 30);

    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(counted.filter((request) => !request.summary && request.tokens > WINDOW)).toEqual([]);
    const done = compactions();
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((compaction) => compaction.summarizer === 'extractive')).toBe(true);
    expect(done.every((compaction) => compaction.fallbackFrom === 'custom')).toBe(true);
    // a refusal is final: one summary request per compaction, never retried
    expect(counted.filter((request) => request.summary)).toHaveLength(done.length);
    expect(proxy.warnings.some((warning) => warning.includes('the extractive summarizer writes this summary'))).toBe(
      true,
    );
  });
});
