/**
 * The OpenAI client with the real `openai` SDK over real HTTP, against a local server speaking
 * chat completions, as vLLM or Ollama would.
 */
import { stripLedger } from '../../../src/core/compact/summary/ledger.js';
import OpenAI from 'openai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compactMessages } from '../../../src/api/compact.js';
import { retryWithBackoff } from '../../../src/core/compact/retry.js';
import { computeSummaryMaxTokens, createLlmSummarizer } from '../../../src/core/compact/summary/summarize-with-llm.js';
import { InvalidOptionError, MissingDependencyError } from '../../../src/core/errors.js';
import { silentLogger, type TokenCounter } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createOpenAILlmClient, type OpenAILike } from '../../../src/infrastructure/openai-client.js';
import {
  chatCompletion,
  openAIError,
  startFakeProviderServer,
  type FakeProviderServer,
} from '../../fixtures/scripted-llm-server.js';

const API_KEY = 'sk-openai-test-key';
const MODEL = 'qwen2.5-coder:14b';
const MOST_RECENT_RULE =
  'Pay special attention to the MOST RECENT messages — summarize the current task state, what was just done, and what the next logical step should be. This information is critical because the original recent messages will NOT be preserved.';
const tokenCounter: TokenCounter = { count: (text) => Math.ceil(text.length / 4) };
const instantSleep = async (): Promise<void> => undefined;

// The failing test's log is long enough that a summary makes the history smaller (a compaction
// that would not is skipped as 'no-gain').
const history: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Make the importer skip blank lines.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'npm test' } }] },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'call_1',
        is_error: true,
        content: `FAIL importer.test.ts\n${'  at parseLine (src/importer.ts:42:7)\n'.repeat(120)}`,
      },
    ],
  },
  { role: 'assistant', content: 'One test fails; fixing the parser next.' },
];

let server: FakeProviderServer;
let workDir: string;

beforeEach(async () => {
  server = await startFakeProviderServer();
  workDir = await mkdtemp(join(tmpdir(), 'openai-client-'));
});

afterEach(async () => {
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

function createClient(options: { maxTokensParameter?: 'max_tokens' | 'max_completion_tokens' } = {}) {
  return createOpenAILlmClient({ apiKey: API_KEY, baseURL: `${server.origin}/v1`, ...options });
}

describe('createOpenAILlmClient over HTTP', () => {
  it('accepts a real OpenAI SDK client as OpenAILike (type check)', () => {
    const sdkClient: OpenAILike = new OpenAI({ apiKey: API_KEY, baseURL: `${server.origin}/v1` });
    expect(typeof sdkClient.chat.completions.create).toBe('function');
  });

  it('sends the prompt as one user message with the given model and max_tokens, bearer key, and returns the content', async () => {
    server.enqueue('/v1/chat/completions', chatCompletion('## Goals & Decisions\nSkip blank lines.'));
    const client = await createClient();
    await expect(client.summarize('Summarize this.', MODEL, { maxTokens: 640 })).resolves.toBe(
      '## Goals & Decisions\nSkip blank lines.',
    );

    const [request] = server.requestsTo('/v1/chat/completions');
    expect(request?.method).toBe('POST');
    expect(request?.body).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Summarize this.' }],
      max_tokens: 640,
    });
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('sends max_completion_tokens instead when asked (OpenAI reasoning models)', async () => {
    const client = await createClient({ maxTokensParameter: 'max_completion_tokens' });
    await client.summarize('p', 'o4-mini', { maxTokens: 9000 });
    const body = server.requestsTo('/v1/chat/completions')[0]?.body;
    expect(body).toMatchObject({ model: 'o4-mini', max_completion_tokens: 9000 });
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('through createLlmSummarizer: the server receives the summary prompt and max_tokens sized from the word budget', async () => {
    const summarizer = createLlmSummarizer(await createClient(), { model: MODEL, tokenCounter });
    await summarizer.summarize(history.slice(1), { maxWords: 800 });
    const body = server.requestsTo('/v1/chat/completions')[0]?.body as {
      model: string;
      max_tokens: number;
      messages: { content: string }[];
    };
    expect(body.model).toBe(MODEL);
    expect(body.max_tokens).toBe(computeSummaryMaxTokens(800));
    const prompt = body.messages[0]?.content ?? '';
    expect(prompt).toContain(MOST_RECENT_RULE);
    expect(prompt).toContain('at most 800 words');
    expect(prompt).toContain('[tool_result bash id=call_1, error]\nFAIL importer.test.ts');
  });

  it('has no default model: compactMessages sends summaryModel', async () => {
    server.enqueue('/v1/chat/completions', chatCompletion('## Task Status\nFixing the parser.'));
    const result = await compactMessages(history, {
      llmClient: await createClient(),
      summaryModel: 'llama3.1:8b',
      force: true,
      workDir,
      logger: silentLogger,
    });
    expect(result.compacted).toBe(true);
    expect(stripLedger(result.summary ?? '')).toBe('## Task Status\nFixing the parser.');
    expect(server.requestsTo('/v1/chat/completions')[0]?.body.model).toBe('llama3.1:8b');
  });

  describe('no default model', () => {
    beforeEach(() => {
      vi.stubEnv('SUMMARY_MODEL', undefined);
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('has defaultModel null, and compactMessages without a model rejects before writing or sending anything (never a Claude model)', async () => {
      const llmClient = await createClient();
      expect(llmClient.defaultModel).toBeNull();
      const promise = compactMessages(history, { llmClient, force: true, workDir, logger: silentLogger });
      await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
      await expect(promise).rejects.toThrow(/^summaryModel \(or SUMMARY_MODEL\) is required with an OpenAI client/);
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(0);
      expect(await readdir(workDir)).toEqual([]);
    });

    it('takes SUMMARY_MODEL from the environment', async () => {
      vi.stubEnv('SUMMARY_MODEL', 'gpt-4.1-mini');
      server.enqueue('/v1/chat/completions', chatCompletion('## Task Status\nDone.'));
      const result = await compactMessages(history, {
        llmClient: await createClient(),
        force: true,
        workDir,
        logger: silentLogger,
      });
      expect(result.compacted).toBe(true);
      expect(server.requestsTo('/v1/chat/completions')[0]?.body.model).toBe('gpt-4.1-mini');
    });

    it('takes the model the client was created with, which summaryModel overrides', async () => {
      server.enqueue('/v1/chat/completions', chatCompletion('First.'), chatCompletion('Second.'));
      const llmClient = await createOpenAILlmClient({ apiKey: API_KEY, baseURL: `${server.origin}/v1`, model: MODEL });
      expect(llmClient.defaultModel).toBe(MODEL);
      await compactMessages(history, { llmClient, force: true, workDir, logger: silentLogger });
      await compactMessages(history, {
        llmClient,
        summaryModel: 'llama3.1:8b',
        force: true,
        workDir,
        logger: silentLogger,
      });
      expect(server.requestsTo('/v1/chat/completions').map((request) => request.body.model)).toEqual([
        MODEL,
        'llama3.1:8b',
      ]);
    });

    it('rejects a blank model', async () => {
      await expect(createOpenAILlmClient({ apiKey: API_KEY, model: ' ' })).rejects.toThrow(
        new InvalidOptionError('model must be a non-empty string, got " "'),
      );
    });
  });

  describe('retries', () => {
    it('turns the SDK retries off: a 503 rejects after one request', async () => {
      server.enqueue('/v1/chat/completions', openAIError(503, 'server_error'));
      await expect((await createClient()).summarize('p', MODEL)).rejects.toMatchObject({ status: 503 });
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(1);
    });

    it('503 then 529 then success: our retry gets the summary', async () => {
      server.enqueue(
        '/v1/chat/completions',
        openAIError(503, 'server_error'),
        openAIError(529, 'overloaded'),
        chatCompletion('Recovered.'),
      );
      const client = await createClient();
      const reply = await retryWithBackoff(() => client.summarize('p', MODEL), {
        maxRetries: 2,
        baseDelayMs: 0,
        sleep: instantSleep,
      });
      expect(reply).toBe('Recovered.');
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(3);
    });

    it('surfaces retry-after as retryAfterMs on the SDK error, and our retry waits that long', async () => {
      server.enqueue(
        '/v1/chat/completions',
        openAIError(429, 'rate_limit_exceeded', { 'retry-after': '3' }),
        chatCompletion('After waiting.'),
      );
      const client = await createClient();
      const waits: number[] = [];
      const reply = await retryWithBackoff(() => client.summarize('p', MODEL), {
        maxRetries: 1,
        baseDelayMs: 10,
        sleep: async (delayMs) => {
          waits.push(delayMs);
        },
        onRetry: (error) => {
          expect(error).toBeInstanceOf(OpenAI.RateLimitError);
          expect(error).toMatchObject({ status: 429, retryAfterMs: 3000 });
        },
      });
      expect(reply).toBe('After waiting.');
      expect(waits).toEqual([3000]);
    });

    it('a client passed in keeps its own settings (its SDK retries included)', async () => {
      server.enqueue(
        '/v1/chat/completions',
        openAIError(503, 'server_error', { 'retry-after-ms': '1' }),
        chatCompletion('Second try.'),
      );
      const own = new OpenAI({ apiKey: API_KEY, baseURL: `${server.origin}/v1`, maxRetries: 1 });
      await expect((await createOpenAILlmClient({ client: own })).summarize('p', MODEL)).resolves.toBe('Second try.');
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(2);
    });
  });

  describe('failures', () => {
    it('a permanent 500 rejects, and compactMessages returns the input, compacted false, summarizer-failed', async () => {
      for (let index = 0; index < 4; index += 1)
        server.enqueue('/v1/chat/completions', openAIError(500, 'server_error'));
      const client = await createClient();
      await expect(client.summarize('p', MODEL)).rejects.toMatchObject({ status: 500 });

      const result = await compactMessages(history, {
        llmClient: client,
        summaryModel: MODEL,
        force: true,
        maxRetries: 2,
        retryBaseDelayMs: 0,
        workDir,
        logger: silentLogger,
      });
      expect(result.compacted).toBe(false);
      expect(result.messages).toBe(history);
      expect(result.skippedReason).toBe('summarizer-failed');
      expect(result.error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(4);
    });

    it.each([null, '', '  \n'])('blank content (%o) is a failure of the summarizer', async (content) => {
      server.enqueue('/v1/chat/completions', chatCompletion(content));
      const client = await createClient();
      const summarizer = createLlmSummarizer(client, { model: MODEL, tokenCounter });
      await expect(summarizer.summarize(history.slice(1), { maxWords: 100 })).rejects.toMatchObject({
        code: 'SUMMARIZER_FAILED',
      });
    });

    it('a reply with no choices is blank', async () => {
      server.enqueue('/v1/chat/completions', {
        body: { id: 'x', object: 'chat.completion', created: 1, model: MODEL, choices: [] },
      });
      await expect((await createClient()).summarize('p', MODEL)).resolves.toBe('');
    });

    // the server answers 'too late' after 10 s: a signal that did not end the request fails the test
    it('aborting through signal rejects with the abort reason while the server is still working', async () => {
      const controller = new AbortController();
      const reason = new Error('user pressed stop');
      server.enqueue('/v1/chat/completions', {
        ...chatCompletion('too late'),
        delayMs: 10_000,
        onReceived: () => controller.abort(reason),
      });
      const client = await createClient();
      await expect(client.summarize('p', MODEL, { signal: controller.signal })).rejects.toBe(reason);
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(1);
    });

    it('compactMessages aborted mid-request rejects with the abort reason and compacts nothing', async () => {
      const controller = new AbortController();
      const reason = new Error('stop compaction');
      server.enqueue('/v1/chat/completions', {
        ...chatCompletion('too late'),
        delayMs: 10_000,
        onReceived: () => controller.abort(reason),
      });
      await expect(
        compactMessages(history, {
          llmClient: await createClient(),
          summaryModel: MODEL,
          force: true,
          workDir,
          logger: silentLogger,
          signal: controller.signal,
        }),
      ).rejects.toBe(reason);
      expect(server.requestsTo('/v1/chat/completions')).toHaveLength(1);
    });
  });

  describe('options', () => {
    it('a missing SDK rejects with MissingDependencyError saying what to install', async () => {
      const notFound = Object.assign(new Error("Cannot find package 'openai'"), { code: 'ERR_MODULE_NOT_FOUND' });
      const promise = createOpenAILlmClient({ apiKey: API_KEY, importSdk: () => Promise.reject(notFound) });
      await expect(promise).rejects.toBeInstanceOf(MissingDependencyError);
      await expect(promise).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY', cause: notFound });
      await expect(promise).rejects.toThrow('npm install openai');
    });

    it('rejects a bad maxTokensParameter, settings with a client, and a bad maxRetries', async () => {
      await expect(
        createOpenAILlmClient({ apiKey: API_KEY, maxTokensParameter: 'max' as 'max_tokens' }),
      ).rejects.toThrow(/^maxTokensParameter must be "max_tokens" or "max_completion_tokens", got "max"$/);
      const own = new OpenAI({ apiKey: API_KEY, baseURL: `${server.origin}/v1` });
      await expect(createOpenAILlmClient({ client: own, baseURL: 'http://elsewhere', maxRetries: 3 })).rejects.toThrow(
        InvalidOptionError,
      );
      await expect(createOpenAILlmClient({ client: own, baseURL: 'http://elsewhere', maxRetries: 3 })).rejects.toThrow(
        /^baseURL, maxRetries configure the client/,
      );
      await expect(createOpenAILlmClient({ apiKey: API_KEY, maxRetries: 0.5 })).rejects.toThrow(
        /^maxRetries must be an integer >= 0, got 0.5$/,
      );
    });
  });
});
