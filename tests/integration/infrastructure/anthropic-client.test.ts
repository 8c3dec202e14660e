/**
 * The Anthropic client with the real `@anthropic-ai/sdk` over real HTTP, against a local server
 * speaking the Messages API.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { retryWithBackoff } from '../../../src/core/compact/retry.js';
import { computeSummaryMaxTokens, createLlmSummarizer } from '../../../src/core/compact/summary/summarize-with-llm.js';
import { InvalidOptionError, MissingDependencyError } from '../../../src/core/errors.js';
import { silentLogger, type TokenCounter } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createAnthropicLlmClient, type AnthropicLike } from '../../../src/infrastructure/anthropic-client.js';
import {
  anthropicError,
  anthropicMessage,
  startFakeProviderServer,
  type FakeProviderServer,
} from '../../fixtures/scripted-llm-server.js';

const API_KEY = 'sk-ant-test-key';
const MODEL = 'claude-haiku-4-5-20251001';
const MOST_RECENT_RULE =
  'Pay special attention to the MOST RECENT messages — summarize the current task state, what was just done, and what the next logical step should be. This information is critical because the original recent messages will NOT be preserved.';
const tokenCounter: TokenCounter = { count: (text) => Math.ceil(text.length / 4) };
const instantSleep = async (): Promise<void> => undefined;

const history: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Rename the exporter and update its tests.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/exporter.ts' } }],
  },
  // long enough that its summary is smaller: compaction keeps no result that does not shrink the history
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: `export function exportAll() {}\n${'// generated line\n'.repeat(300)}`,
      },
    ],
  },
  { role: 'assistant', content: 'Renamed; running the tests next.' },
];

let server: FakeProviderServer;
let workDir: string;

beforeEach(async () => {
  server = await startFakeProviderServer();
  workDir = await mkdtemp(join(tmpdir(), 'anthropic-client-'));
});

afterEach(async () => {
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

function createClient() {
  return createAnthropicLlmClient({ apiKey: API_KEY, baseURL: server.origin });
}

/** The SDK sends the key as `x-api-key` or as a bearer token, depending on its version. */
function sentKey(headers: Record<string, unknown>): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string') return apiKey;
  const authorization = headers.authorization;
  return typeof authorization === 'string' ? authorization.replace(/^Bearer /, '') : undefined;
}

describe('createAnthropicLlmClient over HTTP', () => {
  it('accepts a real Anthropic SDK client as AnthropicLike (type check)', () => {
    const sdkClient: AnthropicLike = new Anthropic({ apiKey: API_KEY, baseURL: server.origin });
    expect(typeof sdkClient.messages.create).toBe('function');
  });

  it('sends the prompt as one user message with model and max_tokens, and joins the text blocks of the reply', async () => {
    server.enqueue(
      '/v1/messages',
      anthropicMessage([
        { type: 'text', text: '## Goals & Decisions\n' },
        { type: 'thinking', thinking: 'hidden', signature: 'sig' },
        { type: 'text', text: 'Rename the exporter.' },
      ]),
    );
    const client = await createClient();
    const reply = await client.summarize('Summarize this.', MODEL, { maxTokens: 512 });

    expect(reply).toBe('## Goals & Decisions\nRename the exporter.');
    const [request] = server.requestsTo('/v1/messages');
    expect(request?.method).toBe('POST');
    expect(request?.body).toMatchObject({
      model: MODEL,
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Summarize this.' }],
    });
    expect(sentKey(request?.headers ?? {})).toBe(API_KEY);
    expect(request?.headers['anthropic-version']).toEqual(expect.any(String));
  });

  it('through createLlmSummarizer: the server receives the summary prompt and max_tokens sized from the word budget', async () => {
    server.enqueue('/v1/messages', anthropicMessage('## Goals & Decisions\nRename the exporter.'));
    const summarizer = createLlmSummarizer(await createClient(), { model: MODEL, tokenCounter });
    const summary = await summarizer.summarize(history.slice(1), { maxWords: 1200 });

    expect(summary).toBe('## Goals & Decisions\nRename the exporter.');
    const body = server.requestsTo('/v1/messages')[0]?.body as {
      model: string;
      max_tokens: number;
      messages: { content: string }[];
    };
    expect(body.model).toBe(MODEL);
    expect(body.max_tokens).toBe(computeSummaryMaxTokens(1200));
    const prompt = body.messages[0]?.content ?? '';
    expect(prompt).toContain(MOST_RECENT_RULE);
    expect(prompt).toContain('[1] user:\nRename the exporter and update its tests.');
    expect(prompt).toContain('[tool_use read_file id=toolu_1]\n{"path":"src/exporter.ts"}');
    for (const title of ['Goals & Decisions', 'File Operations', 'Tool Calls', 'Task Status', 'Errors & Resolutions']) {
      expect(prompt).toContain(`## ${title}`);
    }
  });

  it('counts tokens with messages.countTokens, sending system messages as the system prompt', async () => {
    server.enqueue('/v1/messages/count_tokens', { body: { input_tokens: 1234 } });
    const client = await createClient();
    await expect(client.countTokens(history, MODEL)).resolves.toBe(1234);
    const body = server.requestsTo('/v1/messages/count_tokens')[0]?.body;
    expect(body).toEqual({
      model: MODEL,
      system: 'You are a coding agent.',
      messages: history.slice(1).map((message) => ({ role: message.role, content: message.content })),
    });
  });

  describe('retries', () => {
    it('turns the SDK retries off: a 529 rejects after one request', async () => {
      server.enqueue('/v1/messages', anthropicError(529, 'overloaded_error'));
      const client = await createClient();
      await expect(client.summarize('p', MODEL)).rejects.toMatchObject({ status: 529 });
      expect(server.requestsTo('/v1/messages')).toHaveLength(1);
    });

    it('529 then 503 then success: our retry gets the summary', async () => {
      server.enqueue(
        '/v1/messages',
        anthropicError(529, 'overloaded_error'),
        anthropicError(503, 'api_error'),
        anthropicMessage('Recovered.'),
      );
      const client = await createClient();
      const failures: unknown[] = [];
      const reply = await retryWithBackoff(() => client.summarize('p', MODEL), {
        maxRetries: 2,
        baseDelayMs: 0,
        sleep: instantSleep,
        onRetry: (error) => failures.push(error),
      });
      expect(reply).toBe('Recovered.');
      expect(failures.map((error) => (error as { status?: number }).status)).toEqual([529, 503]);
      expect(server.requestsTo('/v1/messages')).toHaveLength(3);
    });

    it.each([
      [{ 'retry-after': '7' }, 7000],
      [{ 'retry-after-ms': '250' }, 250],
      [{ 'retry-after': '2', 'retry-after-ms': '1500' }, 1500],
    ])('surfaces %o as retryAfterMs = %i on the SDK error', async (headers, expected) => {
      server.enqueue('/v1/messages', anthropicError(429, 'rate_limit_error', headers));
      const client = await createClient();
      const error = await client.summarize('p', MODEL).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      expect(error).toMatchObject({ status: 429, retryAfterMs: expected });
    });

    it('reads an HTTP-date retry-after as the time left', async () => {
      const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
      server.enqueue('/v1/messages', anthropicError(429, 'rate_limit_error', { 'retry-after': inTenSeconds }));
      const client = await createClient();
      const sent = Date.now();
      const error = (await client.summarize('p', MODEL).catch((caught: unknown) => caught)) as {
        retryAfterMs: number;
      };
      const answered = Date.now();
      // the date less the time it was read at, which lies between the request and its answer
      expect(error.retryAfterMs).toBeGreaterThanOrEqual(Date.parse(inTenSeconds) - answered);
      expect(error.retryAfterMs).toBeLessThanOrEqual(Date.parse(inTenSeconds) - sent);
    });

    it('adds no retryAfterMs when the response names no delay', async () => {
      server.enqueue('/v1/messages', anthropicError(500, 'api_error'));
      const error = await (await createClient()).summarize('p', MODEL).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect(error).not.toHaveProperty('retryAfterMs');
    });

    it('a client passed in keeps its own settings (its SDK retries included)', async () => {
      server.enqueue(
        '/v1/messages',
        anthropicError(529, 'overloaded_error', { 'retry-after-ms': '1' }),
        anthropicMessage('Second try.'),
      );
      const own = new Anthropic({ apiKey: API_KEY, baseURL: server.origin, maxRetries: 1 });
      const client = await createAnthropicLlmClient({ client: own });
      await expect(client.summarize('p', MODEL)).resolves.toBe('Second try.');
      expect(server.requestsTo('/v1/messages')).toHaveLength(2);
    });
  });

  describe('failures', () => {
    it('a permanent 500 rejects after every retry', async () => {
      server.enqueue(
        '/v1/messages',
        anthropicError(500, 'api_error'),
        anthropicError(500, 'api_error'),
        anthropicError(500, 'api_error'),
      );
      const client = await createClient();
      const promise = retryWithBackoff(() => client.summarize('p', MODEL), {
        maxRetries: 2,
        baseDelayMs: 0,
        sleep: instantSleep,
      });
      await expect(promise).rejects.toMatchObject({ status: 500 });
      expect(server.requestsTo('/v1/messages')).toHaveLength(3);
    });

    it('compactMessages with a permanently failing API returns the input, compacted false, summarizer-failed', async () => {
      for (let index = 0; index < 3; index += 1) server.enqueue('/v1/messages', anthropicError(500, 'api_error'));
      const result = await compactMessages(history, {
        llmClient: await createClient(),
        force: true,
        maxRetries: 2,
        retryBaseDelayMs: 0,
        workDir,
        logger: silentLogger,
      });
      expect(result.compacted).toBe(false);
      expect(result.messages).toBe(history);
      expect(result.skippedReason).toBe('summarizer-failed');
      expect(result.error).toMatchObject({ status: 500 });
      expect(server.requestsTo('/v1/messages')).toHaveLength(3);
    });

    it('compactMessages over the API: 529 then success compacts, with the summary from the server', async () => {
      server.enqueue(
        '/v1/messages',
        anthropicError(529, 'overloaded_error', { 'retry-after-ms': '1' }),
        anthropicMessage('## Task Status\nRunning the tests.'),
      );
      const result = await compactMessages(history, {
        llmClient: await createClient(),
        force: true,
        maxRetries: 2,
        retryBaseDelayMs: 0,
        workDir,
        logger: silentLogger,
      });
      expect(result.compacted).toBe(true);
      // the summary from the server, then the ledger compaction appends to every summary
      expect(result.summary?.startsWith('## Task Status\nRunning the tests.\n')).toBe(true);
      expect(result.messages[1]).toEqual({ role: 'user', content: `[Conversation compressed]\n\n${result.summary}` });
      expect(server.requestsTo('/v1/messages')).toHaveLength(2);
    });

    it('blank content is a failure: the client returns it, the summarizer rejects, compaction skips', async () => {
      server.enqueue('/v1/messages', anthropicMessage('   '), anthropicMessage([]));
      const client = await createClient();
      await expect(client.summarize('p', MODEL)).resolves.toBe('   ');
      await expect(
        createLlmSummarizer(client, { model: MODEL, tokenCounter }).summarize(history.slice(1), { maxWords: 100 }),
      ).rejects.toMatchObject({
        code: 'SUMMARIZER_FAILED',
      });

      server.enqueue('/v1/messages', anthropicMessage(''), anthropicMessage(''));
      const result = await compactMessages(history, {
        llmClient: client,
        force: true,
        maxRetries: 1,
        retryBaseDelayMs: 0,
        workDir,
        logger: silentLogger,
      });
      expect(result).toMatchObject({ compacted: false, skippedReason: 'summarizer-failed' });
      expect(result.messages).toBe(history);
    });

    // the server answers 'too late' after 10 s: a signal that did not end the request fails the test
    it('aborting through signal rejects with the abort reason while the server is still working', async () => {
      const controller = new AbortController();
      const reason = new Error('user pressed stop');
      server.enqueue('/v1/messages', {
        ...anthropicMessage('too late'),
        delayMs: 10_000,
        onReceived: () => controller.abort(reason),
      });
      const client = await createClient();
      await expect(client.summarize('p', MODEL, { signal: controller.signal })).rejects.toBe(reason);
      expect(server.requestsTo('/v1/messages')).toHaveLength(1);
    });

    it('an already aborted signal sends nothing', async () => {
      const client = await createClient();
      const controller = new AbortController();
      controller.abort();
      await expect(client.summarize('p', MODEL, { signal: controller.signal })).rejects.toBe(controller.signal.reason);
      expect(server.requestsTo('/v1/messages')).toHaveLength(0);
    });
  });

  describe('options', () => {
    it('a missing SDK rejects with MissingDependencyError saying what to install', async () => {
      const notFound = Object.assign(new Error("Cannot find package '@anthropic-ai/sdk'"), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
      const promise = createAnthropicLlmClient({ apiKey: API_KEY, importSdk: () => Promise.reject(notFound) });
      await expect(promise).rejects.toBeInstanceOf(MissingDependencyError);
      await expect(promise).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY', cause: notFound });
      await expect(promise).rejects.toThrow('npm install @anthropic-ai/sdk');
    });

    it('another failure to load the SDK propagates as it is', async () => {
      const broken = new SyntaxError('Unexpected token');
      await expect(createAnthropicLlmClient({ importSdk: () => Promise.reject(broken) })).rejects.toBe(broken);
    });

    it('does not load the SDK when a client is passed', async () => {
      let loaded = false;
      const own = new Anthropic({ apiKey: API_KEY, baseURL: server.origin });
      await createAnthropicLlmClient({
        client: own,
        importSdk: async () => {
          loaded = true;
          return {};
        },
      });
      expect(loaded).toBe(false);
    });

    it('rejects settings that would be ignored with a client passed, and a bad maxRetries', async () => {
      const own = new Anthropic({ apiKey: API_KEY, baseURL: server.origin });
      await expect(createAnthropicLlmClient({ client: own, apiKey: 'other' })).rejects.toThrow(InvalidOptionError);
      await expect(createAnthropicLlmClient({ client: own, apiKey: 'other' })).rejects.toThrow(
        /^apiKey configures the client this function constructs/,
      );
      await expect(createAnthropicLlmClient({ apiKey: API_KEY, maxRetries: -1 })).rejects.toThrow(
        /^maxRetries must be an integer >= 0, got -1$/,
      );
    });

    it('has the Claude default as defaultModel, or the model it was created with, which compactMessages sends when no model is given', async () => {
      vi.stubEnv('SUMMARY_MODEL', undefined);
      try {
        expect((await createClient()).defaultModel).toBe(MODEL);
        const llmClient = await createAnthropicLlmClient({
          apiKey: API_KEY,
          baseURL: server.origin,
          model: 'claude-sonnet-4-6',
        });
        expect(llmClient.defaultModel).toBe('claude-sonnet-4-6');
        server.enqueue('/v1/messages', anthropicMessage('## Task Status\nDone.'));
        await compactMessages(history, { llmClient, force: true, workDir, logger: silentLogger });
        expect(server.requestsTo('/v1/messages')[0]?.body).toMatchObject({ model: 'claude-sonnet-4-6' });
        await expect(createAnthropicLlmClient({ apiKey: API_KEY, model: '' })).rejects.toThrow(
          /^model must be a non-empty string/,
        );
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('maxRetries turns the SDK retries back on for a constructed client', async () => {
      server.enqueue(
        '/v1/messages',
        anthropicError(503, 'api_error', { 'retry-after-ms': '1' }),
        anthropicMessage('Retried by the SDK.'),
      );
      const client = await createAnthropicLlmClient({ apiKey: API_KEY, baseURL: server.origin, maxRetries: 1 });
      await expect(client.summarize('p', MODEL)).resolves.toBe('Retried by the SDK.');
      expect(server.requestsTo('/v1/messages')).toHaveLength(2);
    });
  });
});
