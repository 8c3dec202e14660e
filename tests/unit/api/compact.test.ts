/**
 * The public `compactMessages`: environment at call time, summarizer selection,
 * eager validation. The Anthropic client factory is replaced so no SDK or network is used.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compactMessages, EXTRACTIVE_FALLBACK_WARNING, restoreRecentFiles } from '../../../src/api/compact.js';
import { InvalidMessageError, InvalidOptionError, MissingDependencyError } from '../../../src/core/errors.js';
import { stripLedger } from '../../../src/core/compact/summary/ledger.js';
import { computeMinSummaryInputTokens } from '../../../src/core/compact/summary/summarize-with-llm.js';
import type { LlmClient } from '../../../src/core/ports.js';
import { defaultTokenCounter } from '../../../src/infrastructure/tokenizer.js';
import type { Message } from '../../../src/core/types.js';
import {
  charCounter,
  createRecordingLogger,
  createScriptedSummarizer,
  MemoryFileSystem,
  readFileTurn,
} from '../../fixtures/compact-fixtures.js';

const { createAnthropicLlmClient } = vi.hoisted(() => ({ createAnthropicLlmClient: vi.fn() }));
vi.mock('../../../src/infrastructure/anthropic-client.js', () => ({ createAnthropicLlmClient }));

const ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'CONTEXT_TOKEN_LIMIT',
  'COMPACT_THRESHOLD_RATIO',
  'SUMMARY_MODEL',
  'MAX_RESTORE_FILES',
  'COMPACT_OUTPUT_DIR',
];
let savedEnv: Record<string, string | undefined>;
beforeEach(() => {
  savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  for (const name of ENV_NAMES) delete process.env[name];
  createAnthropicLlmClient.mockReset();
});
afterEach(() => {
  for (const name of ENV_NAMES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

const history: Message[] = [
  { role: 'system', content: 'You are an agent.' },
  { role: 'user', content: 'Fix the bug.' },
  // a long read: the summary and the restored file take less room than the history
  ...readFileTurn('a.ts', `contents of a.ts\n${'.'.repeat(3000)}`),
  { role: 'assistant', content: 'Fixed.' },
];

function createPorts() {
  const fileSystem = new MemoryFileSystem({ '/work/a.ts': 'A' });
  const logger = createRecordingLogger();
  return {
    fileSystem,
    logger,
    options: {
      fileReader: fileSystem.reader,
      fileWriter: fileSystem.writer,
      logger,
      tokenCounter: charCounter,
      workDir: '/work',
      force: true,
    },
  };
}

function createRecordingClient(
  reply = 'LLM summary',
  defaultModel?: string | null,
): LlmClient & { prompts: Array<{ prompt: string; model: string }> } {
  const prompts: Array<{ prompt: string; model: string }> = [];
  const client = {
    prompts,
    summarize: async (prompt: string, model: string) => (prompts.push({ prompt, model }), reply),
  };
  return defaultModel === undefined ? client : { ...client, defaultModel };
}

describe('compactMessages: who writes the summary', () => {
  it('uses summarizer first, over llmClient and ANTHROPIC_API_KEY', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    const { options } = createPorts();
    const summarizer = createScriptedSummarizer(['from summarizer']);
    const llmClient = createRecordingClient();
    const result = await compactMessages(history, { ...options, summarizer, llmClient });
    expect(stripLedger(result.summary ?? '')).toBe('from summarizer');
    expect(llmClient.prompts).toHaveLength(0);
    expect(createAnthropicLlmClient).not.toHaveBeenCalled();
  });

  it('wraps llmClient with the package summary prompt and summaryModel', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    process.env.SUMMARY_MODEL = 'model-from-env';
    const { options } = createPorts();
    const llmClient = createRecordingClient();
    const result = await compactMessages(history, { ...options, llmClient });
    expect(stripLedger(result.summary ?? '')).toBe('LLM summary');
    expect(llmClient.prompts).toHaveLength(1);
    expect(llmClient.prompts[0]?.model).toBe('model-from-env');
    expect(llmClient.prompts[0]?.prompt).toContain('Pay special attention to the MOST RECENT messages');
    expect(llmClient.prompts[0]?.prompt).toContain('Fix the bug.');
    expect(createAnthropicLlmClient).not.toHaveBeenCalled();
  });

  it('creates an Anthropic client when ANTHROPIC_API_KEY is set, honouring ANTHROPIC_BASE_URL', async () => {
    process.env.ANTHROPIC_API_KEY = ' sk-test ';
    process.env.ANTHROPIC_BASE_URL = 'http://127.0.0.1:9999';
    const client = createRecordingClient('anthropic summary');
    createAnthropicLlmClient.mockResolvedValue(client);
    const { options } = createPorts();
    const result = await compactMessages(history, options);
    expect(createAnthropicLlmClient).toHaveBeenCalledWith({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9999' });
    expect(stripLedger(result.summary ?? '')).toBe('anthropic summary');
    expect(client.prompts[0]?.model).toBe('claude-haiku-4-5-20251001');
  });

  it('rejects with MISSING_DEPENDENCY when the key is set but the SDK is missing (no silent fallback), writing nothing', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    createAnthropicLlmClient.mockRejectedValue(new MissingDependencyError('install @anthropic-ai/sdk'));
    const { options, fileSystem } = createPorts();
    await expect(compactMessages(history, options)).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(fileSystem.events).toEqual([]);
  });

  it('falls back to the extractive summarizer, with a warning when it is used', async () => {
    const { options, logger } = createPorts();
    const result = await compactMessages(history, options);
    expect(result.compacted).toBe(true);
    expect(result.summary).toMatch(/\S/);
    expect(logger.warnings).toContain(EXTRACTIVE_FALLBACK_WARNING);
    expect(createAnthropicLlmClient).not.toHaveBeenCalled();
  });

  it('does not warn about the fallback when nothing is compacted', async () => {
    const { options, logger } = createPorts();
    const result = await compactMessages(history, { ...options, force: false });
    expect(result.skippedReason).toBe('below-threshold');
    expect(logger.warnings).toEqual([]);
  });
});

describe('compactMessages: the token counter says its encoding', () => {
  it("counts the LLM's prompt message by message with any counter whose encoding is 'o200k_base', a wrapper of the default included", async () => {
    const { options } = createPorts();
    const counted: string[] = [];
    const wrapped = {
      count: (text: string) => (counted.push(text), defaultTokenCounter.count(text)),
      encoding: 'o200k_base',
    };
    const llmClient = createRecordingClient();
    await compactMessages(history, { ...options, tokenCounter: wrapped, llmClient, summaryModel: 'm' });
    expect(llmClient.prompts).toHaveLength(1);
    expect(counted).not.toContain(llmClient.prompts[0]?.prompt);
  });
});

describe('compactMessages: result.summarizer names the summarizer chosen', () => {
  it("is 'custom' for a summarizer of your own, over llmClient and ANTHROPIC_API_KEY", async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    const { options } = createPorts();
    const result = await compactMessages(history, {
      ...options,
      summarizer: createScriptedSummarizer(['s']),
      llmClient: createRecordingClient(),
    });
    expect(result).toMatchObject({ compacted: true, summarizer: 'custom' });
  });

  it("is 'llm-client' for llmClient, over ANTHROPIC_API_KEY", async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    const { options } = createPorts();
    const result = await compactMessages(history, { ...options, llmClient: createRecordingClient() });
    expect(result).toMatchObject({ compacted: true, summarizer: 'llm-client' });
  });

  it("is 'anthropic' for the client created from ANTHROPIC_API_KEY", async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    createAnthropicLlmClient.mockResolvedValue(createRecordingClient('anthropic summary'));
    const { options } = createPorts();
    const result = await compactMessages(history, options);
    expect(result).toMatchObject({ compacted: true, summarizer: 'anthropic' });
    expect(stripLedger(result.summary ?? '')).toBe('anthropic summary');
  });

  it("is 'extractive' for the fallback, a blank ANTHROPIC_API_KEY included", async () => {
    process.env.ANTHROPIC_API_KEY = '  ';
    const { options } = createPorts();
    const result = await compactMessages(history, options);
    expect(result).toMatchObject({ compacted: true, summarizer: 'extractive' });
    expect(createAnthropicLlmClient).not.toHaveBeenCalled();
  });

  it('names the summarizer that would have run when nothing was compacted', async () => {
    const { options, logger } = createPorts();
    const llmClient = createRecordingClient();
    expect(await compactMessages(history, { ...options, llmClient, force: false })).toMatchObject({
      skippedReason: 'below-threshold',
      summarizer: 'llm-client',
    });
    expect(await compactMessages(history, { ...options, force: false })).toMatchObject({
      skippedReason: 'below-threshold',
      summarizer: 'extractive',
    });
    expect(llmClient.prompts).toEqual([]);
    expect(logger.warnings).toEqual([]);
  });

  it('names the summarizer that failed', async () => {
    const { options } = createPorts();
    const summarizer = createScriptedSummarizer([new Error('down')]);
    const result = await compactMessages(history, { ...options, summarizer, maxRetries: 0 });
    expect(result).toMatchObject({ compacted: false, skippedReason: 'summarizer-failed', summarizer: 'custom' });
  });
});

describe('compactMessages: the summary model: the OpenAI client has no default model', () => {
  it('rejects a client with no default model (an OpenAI client) when no model is given, before writing anything', async () => {
    const { options, fileSystem } = createPorts();
    const llmClient = createRecordingClient('never', null);
    const promise = compactMessages(history, { ...options, llmClient });
    await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(promise).rejects.toThrow(/^summaryModel \(or SUMMARY_MODEL\) is required with an OpenAI client/);
    expect(fileSystem.events).toEqual([]);
    expect(llmClient.prompts).toEqual([]);
  });

  it('sends SUMMARY_MODEL, or summaryModel over it, to a client with no default model', async () => {
    process.env.SUMMARY_MODEL = 'gpt-4.1-mini';
    const { options } = createPorts();
    const llmClient = createRecordingClient('LLM summary', null);
    expect((await compactMessages(history, { ...options, llmClient })).compacted).toBe(true);
    await compactMessages(history, { ...options, llmClient, summaryModel: 'qwen2.5:14b' });
    expect(llmClient.prompts.map((prompt) => prompt.model)).toEqual(['gpt-4.1-mini', 'qwen2.5:14b']);
  });

  it("uses the client's defaultModel when no model is given, and the Claude default for a client that does not say", async () => {
    const { options } = createPorts();
    const withDefault = createRecordingClient('LLM summary', 'llama3.1:8b');
    const withoutDefault = createRecordingClient();
    await compactMessages(history, { ...options, llmClient: withDefault });
    await compactMessages(history, { ...options, llmClient: withoutDefault });
    expect(withDefault.prompts[0]?.model).toBe('llama3.1:8b');
    expect(withoutDefault.prompts[0]?.model).toBe('claude-haiku-4-5-20251001');
  });
});

describe('compactMessages: summaryInputMaxTokens too small for one prompt', () => {
  it('rejects up front with the option, the minimum and the value, writing nothing and calling no LLM', async () => {
    const { options, fileSystem } = createPorts();
    const llmClient = createRecordingClient();
    const minimum = computeMinSummaryInputTokens(1200, charCounter);
    const promise = compactMessages(history, { ...options, llmClient, summaryInputMaxTokens: 500 });
    await expect(promise).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(promise).rejects.toThrow(
      new RegExp(`^summaryInputMaxTokens must be at least ${minimum} for a 1200-word summary .*got 500$`),
    );
    expect(fileSystem.events).toEqual([]);
    expect(llmClient.prompts).toEqual([]);
  });

  it('sizes the minimum for summaryMaxWords and accepts exactly it', async () => {
    const { options } = createPorts();
    const llmClient = createRecordingClient();
    const minimum = computeMinSummaryInputTokens(50, charCounter);
    await expect(
      compactMessages(history, { ...options, llmClient, summaryMaxWords: 50, summaryInputMaxTokens: minimum - 1 }),
    ).rejects.toThrow(new RegExp(`at least ${minimum} for a 50-word summary`));
    expect(
      (await compactMessages(history, { ...options, llmClient, summaryMaxWords: 50, summaryInputMaxTokens: minimum }))
        .compacted,
    ).toBe(true);
  });

  it('rejects with ANTHROPIC_API_KEY set before the Anthropic client is created', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test';
    const { options, fileSystem } = createPorts();
    await expect(compactMessages(history, { ...options, summaryInputMaxTokens: 500 })).rejects.toThrow(
      /^summaryInputMaxTokens must be at least/,
    );
    expect(createAnthropicLlmClient).not.toHaveBeenCalled();
    expect(fileSystem.events).toEqual([]);
  });

  it('does not apply to a summarizer of your own, which never sees the prompt', async () => {
    const { options } = createPorts();
    const result = await compactMessages(history, {
      ...options,
      summarizer: createScriptedSummarizer(['s']),
      summaryInputMaxTokens: 500,
    });
    expect(result.compacted).toBe(true);
  });
});

describe('compactMessages: environment and validation', () => {
  it('reads the trigger variables at call time', async () => {
    const { options } = createPorts();
    const summarizer = createScriptedSummarizer(['s']);
    process.env.CONTEXT_TOKEN_LIMIT = '10';
    expect((await compactMessages(history, { ...options, force: false, summarizer })).compacted).toBe(true);
    process.env.CONTEXT_TOKEN_LIMIT = '100000';
    expect((await compactMessages(history, { ...options, force: false, summarizer })).skippedReason).toBe(
      'below-threshold',
    );
  });

  it('rejects an invalid variable before writing anything', async () => {
    process.env.MAX_RESTORE_FILES = 'many';
    const { options, fileSystem } = createPorts();
    await expect(compactMessages(history, options)).rejects.toThrow(
      new InvalidOptionError('MAX_RESTORE_FILES must be an integer >= 0, got "many"'),
    );
    expect(fileSystem.events).toEqual([]);
  });

  it('rejects a malformed history with the path of the bad field', async () => {
    const { options } = createPorts();
    await expect(compactMessages([{ role: 'robot', content: 'x' }] as never, options)).rejects.toThrow(
      InvalidMessageError,
    );
  });

  it('honours COMPACT_OUTPUT_DIR relative to workDir', async () => {
    process.env.COMPACT_OUTPUT_DIR = 'archives';
    const { options } = createPorts();
    const result = await compactMessages(history, {
      ...options,
      summarizer: createScriptedSummarizer(['s']),
      sessionId: 'run-7',
    });
    expect(result.originalMessagesPath).toMatch(
      /^\/work\/archives\/run-7\/compact-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-1\.json$/,
    );
  });
});

describe('compactMessages: the default clock and timer', () => {
  it("names the archive with the system clock's UTC time", async () => {
    const { options } = createPorts();
    const before = new Date();
    const result = await compactMessages(history, { ...options, summarizer: createScriptedSummarizer(['s']) });
    const after = new Date();
    const stamp = /compact-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z-1\.json$/.exec(
      result.originalMessagesPath ?? '',
    );
    expect(stamp).not.toBeNull();
    const [, day, hours, minutes, seconds] = stamp as unknown as [string, string, string, string, string];
    const named = Date.parse(`${day}T${hours}:${minutes}:${seconds}Z`);
    // the name is cut to the second
    expect(named).toBeGreaterThanOrEqual(Math.floor(before.getTime() / 1000) * 1000);
    expect(named).toBeLessThanOrEqual(after.getTime());
  });

  it('waits retryBaseDelayMs on a timer before the second summary attempt', async () => {
    const { options, logger } = createPorts();
    const summarizer = createScriptedSummarizer([new Error('overloaded'), 's']);
    vi.useFakeTimers();
    try {
      const compaction = compactMessages(history, { ...options, summarizer, maxRetries: 1, retryBaseDelayMs: 5 });
      await vi.advanceTimersByTimeAsync(4);
      expect(summarizer.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      const result = await compaction;
      expect(stripLedger(result.summary ?? '')).toBe('s');
      expect(summarizer.calls).toHaveLength(2);
      expect(logger.warnings).toContain('compact: summary attempt 1 failed (overloaded); retrying in 5 ms');
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancels that wait when the signal aborts', async () => {
    const { options } = createPorts();
    const controller = new AbortController();
    const reason = new Error('stop');
    const summarizer = createScriptedSummarizer([
      async () => {
        setTimeout(() => controller.abort(reason), 5);
        throw new Error('overloaded');
      },
    ]);
    vi.useFakeTimers();
    try {
      // an hour's wait: only a timer the signal clears lets this settle
      const compaction = expect(
        compactMessages(history, {
          ...options,
          summarizer,
          maxRetries: 1,
          retryBaseDelayMs: 3_600_000,
          signal: controller.signal,
        }),
      ).rejects.toBe(reason);
      await vi.advanceTimersByTimeAsync(5);
      await compaction;
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('restoreRecentFiles (public piece)', () => {
  it('returns the restored file messages', async () => {
    const { fileSystem, logger } = createPorts();
    expect(
      await restoreRecentFiles(history, {
        workDir: '/work',
        fileReader: fileSystem.reader,
        logger,
        tokenCounter: charCounter,
      }),
    ).toEqual([{ role: 'user', content: '[Restored after compact] a.ts:\nA' }]);
  });

  it('reads MAX_RESTORE_FILES at call time', async () => {
    process.env.MAX_RESTORE_FILES = '0';
    const { fileSystem } = createPorts();
    expect(await restoreRecentFiles(history, { workDir: '/work', fileReader: fileSystem.reader })).toEqual([]);
  });
});
