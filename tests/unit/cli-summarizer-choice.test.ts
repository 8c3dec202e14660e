/**
 * The CLI's summarizer wiring: the client it wraps (to count requests) keeps its default model,
 * so the library still knows that an OpenAI client has none (DESIGN §8).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chooseSummarizer, createChosenSummarizer } from '../../src/cli/summarizer-choice.js';
import { DEFAULT_SUMMARY_MODEL } from '../../src/core/defaults.js';

const hooks = { onRequestStart: async () => undefined, onRequestEnd: () => undefined };

beforeEach(() => {
  vi.stubEnv('OPENAI_API_KEY', 'sk-test');
  vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createChosenSummarizer', () => {
  it('keeps the OpenAI client without a default model, and passes --model as summaryModel', async () => {
    const choice = chooseSummarizer({ provider: 'openai', model: 'qwen-test', baseURL: 'http://127.0.0.1:9/v1' }, {});
    const options = await createChosenSummarizer(choice, { calls: 0 }, hooks);
    if (!('llmClient' in options)) throw new Error('expected an LLM client');
    expect(options.llmClient.defaultModel).toBeNull();
    expect(options.summaryModel).toBe('qwen-test');
  });

  it("keeps the Anthropic client's Claude default", async () => {
    const choice = chooseSummarizer({ provider: 'anthropic', model: undefined, baseURL: 'http://127.0.0.1:9' }, {});
    const options = await createChosenSummarizer(choice, { calls: 0 }, hooks);
    if (!('llmClient' in options)) throw new Error('expected an LLM client');
    expect(options.llmClient.defaultModel).toBe(DEFAULT_SUMMARY_MODEL);
    expect(options).not.toHaveProperty('summaryModel');
  });
});

describe('chooseSummarizer without --provider', () => {
  it('picks what compactMessages would: Anthropic when ANTHROPIC_API_KEY is set, else the extractive summarizer', () => {
    const none = { provider: undefined, model: undefined, baseURL: undefined };
    expect(chooseSummarizer(none, { ANTHROPIC_API_KEY: 'sk-ant-test' })).toMatchObject({ provider: 'anthropic', chosenBy: 'ANTHROPIC_API_KEY' });
    expect(chooseSummarizer(none, { ANTHROPIC_API_KEY: ' ' })).toMatchObject({ provider: 'extractive', chosenBy: 'default' });
    expect(chooseSummarizer(none, {})).toMatchObject({ provider: 'extractive', chosenBy: 'default' });
  });
});
