/**
 * The CLI's summarizer wiring: the client it wraps (to count requests) keeps its default model,
 * so the library still knows that an OpenAI client has none.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chooseSummarizer, createChosenSummarizer, describeSummarizer } from '../../../src/cli/summarizer-choice.js';
import { DEFAULT_SUMMARY_MODEL } from '../../../src/core/options/defaults.js';

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
    expect(chooseSummarizer(none, { ANTHROPIC_API_KEY: 'sk-ant-test' })).toMatchObject({
      provider: 'anthropic',
      chosenBy: 'ANTHROPIC_API_KEY',
    });
    expect(chooseSummarizer(none, { ANTHROPIC_API_KEY: ' ' })).toMatchObject({
      provider: 'extractive',
      chosenBy: 'default',
    });
    expect(chooseSummarizer(none, {})).toMatchObject({ provider: 'extractive', chosenBy: 'default' });
  });
});

describe('describeSummarizer', () => {
  const none = { provider: undefined, model: undefined, baseURL: undefined };

  it('suggests an LLM after an extractive summarizer chosen by default, only when asked (compact asks, replay and eval do not)', () => {
    const fallback = chooseSummarizer(none, {});
    expect(describeSummarizer(fallback, { suggestLlm: true })).toBe(
      'extractive (offline, deterministic; set ANTHROPIC_API_KEY or pass --provider for an LLM summary)',
    );
    expect(describeSummarizer(fallback)).toBe('extractive (offline, deterministic)');
  });

  it('does not suggest an LLM when --provider extractive asked for the extractive summarizer', () => {
    const chosen = chooseSummarizer({ ...none, provider: 'extractive' }, {});
    expect(describeSummarizer(chosen, { suggestLlm: true })).toBe('extractive (offline, deterministic)');
  });

  it('names the provider, the default model, the base URL and why it was chosen', () => {
    expect(describeSummarizer(chooseSummarizer(none, { ANTHROPIC_API_KEY: 'sk-ant-test' }))).toBe(
      `anthropic ${DEFAULT_SUMMARY_MODEL}, ANTHROPIC_API_KEY is set`,
    );
    expect(
      describeSummarizer(chooseSummarizer({ provider: 'openai', model: 'm', baseURL: 'http://127.0.0.1:9/v1' }, {})),
    ).toBe('openai m at http://127.0.0.1:9/v1');
  });
});

describe('chooseSummarizer usage errors', () => {
  it('point at the --help of the command that was run', () => {
    let thrown: unknown;
    try {
      chooseSummarizer({ provider: 'gemini', model: undefined, baseURL: undefined }, {}, 'replay');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      message: '--provider must be one of anthropic, openai, extractive, got "gemini"',
      command: 'replay',
    });
  });
});
