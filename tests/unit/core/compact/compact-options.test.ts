import { describe, expect, it } from 'vitest';
import {
  assertSummaryInputMaxTokens,
  resolveCompactOptions,
  resolveRestoreOptions,
  resolveSummaryModel,
} from '../../../../src/core/compact/compact-options.js';
import { computeMinSummaryInputTokens } from '../../../../src/core/compact/summary/summarize-with-llm.js';
import type { LlmClient } from '../../../../src/core/ports.js';
import { InvalidOptionError, UnsafePathError } from '../../../../src/core/errors.js';

const cwd = '/home/agent/project';

describe('resolveCompactOptions', () => {
  it('applies every default', () => {
    expect(resolveCompactOptions({}, {}, cwd)).toEqual({
      contextTokenLimit: 200_000,
      compactThresholdRatio: 0.92,
      force: false,
      lastUsage: undefined,
      tokenSafetyFactor: 1,
      // no default here: the client's own default applies (resolveSummaryModel)
      summaryModel: undefined,
      summaryMaxWords: 1200,
      summaryInputMaxTokens: 100_000,
      maxRetries: 2,
      retryBaseDelayMs: 1000,
      outputDir: '.compact',
      offloadDir: undefined,
      archive: 'required',
      sessionId: 'default',
      maxRestoreFiles: 5,
      maxRestoreTokensPerFile: 5000,
      maxRestoreTokensTotal: 50_000,
      workDir: cwd,
      readToolNames: ['read_file'],
      pathField: 'path',
      resumeMessage: undefined,
      referenceReader: 'read-tool',
      signal: undefined,
    });
  });

  it('resolves offloadDir against workDir', () => {
    expect(resolveCompactOptions({ workDir: '/repo', offloadDir: '.offload' }, {}, cwd).offloadDir).toBe(
      '/repo/.offload',
    );
    expect(resolveCompactOptions({ offloadDir: '/var/offload' }, {}, cwd).offloadDir).toBe('/var/offload');
    expect(() => resolveCompactOptions({ offloadDir: ' ' }, {}, cwd)).toThrow(/^offloadDir /);
  });

  it('reads every environment variable', () => {
    const env = {
      CONTEXT_TOKEN_LIMIT: '100000',
      COMPACT_THRESHOLD_RATIO: '0.8',
      SUMMARY_MODEL: ' claude-sonnet-4-6 ',
      SUMMARY_MAX_WORDS: '500',
      COMPACT_MAX_RETRIES: '0',
      COMPACT_OUTPUT_DIR: '/var/archive',
      MAX_RESTORE_FILES: '3',
      MAX_RESTORE_TOKENS_PER_FILE: '100',
      MAX_RESTORE_TOKENS_TOTAL: '200',
    };
    expect(resolveCompactOptions({}, env, cwd)).toMatchObject({
      contextTokenLimit: 100_000,
      compactThresholdRatio: 0.8,
      summaryModel: 'claude-sonnet-4-6',
      summaryMaxWords: 500,
      maxRetries: 0,
      outputDir: '/var/archive',
      maxRestoreFiles: 3,
      maxRestoreTokensPerFile: 100,
      maxRestoreTokensTotal: 200,
    });
  });

  it('prefers options over the environment', () => {
    const resolved = resolveCompactOptions(
      { maxRestoreFiles: 1, summaryModel: 'm', outputDir: 'out' },
      { MAX_RESTORE_FILES: '9', SUMMARY_MODEL: 'x', COMPACT_OUTPUT_DIR: 'y' },
      cwd,
    );
    expect(resolved).toMatchObject({ maxRestoreFiles: 1, summaryModel: 'm', outputDir: 'out' });
  });

  it('treats an empty variable as unset', () => {
    expect(resolveCompactOptions({}, { MAX_RESTORE_FILES: '', SUMMARY_MODEL: '  ' }, cwd)).toMatchObject({
      maxRestoreFiles: 5,
      summaryModel: undefined,
    });
  });

  it('rejects an invalid variable, naming it, what it expects and what it got', () => {
    expect(() => resolveCompactOptions({}, { MAX_RESTORE_FILES: 'five' }, cwd)).toThrow(
      new InvalidOptionError('MAX_RESTORE_FILES must be an integer >= 0, got "five"'),
    );
    expect(() => resolveCompactOptions({}, { COMPACT_MAX_RETRIES: '-1' }, cwd)).toThrow(
      /COMPACT_MAX_RETRIES must be an integer >= 0, got "-1"/,
    );
    expect(() => resolveCompactOptions({}, { SUMMARY_MAX_WORDS: '0' }, cwd)).toThrow(
      /SUMMARY_MAX_WORDS must be an integer >= 1/,
    );
    expect(() => resolveCompactOptions({}, { MAX_RESTORE_TOKENS_TOTAL: '1e3x' }, cwd)).toThrow(
      /MAX_RESTORE_TOKENS_TOTAL/,
    );
  });

  it('rejects an invalid option, naming it', () => {
    expect(() => resolveCompactOptions({ maxRestoreTokensPerFile: -5 }, {}, cwd)).toThrow(
      /maxRestoreTokensPerFile must be an integer >= 0, got -5/,
    );
    expect(() => resolveCompactOptions({ force: 'yes' as never }, {}, cwd)).toThrow(
      /force must be a boolean, got "yes"/,
    );
    expect(() => resolveCompactOptions({ readToolNames: 'read_file' as never }, {}, cwd)).toThrow(
      /readToolNames must be an array of strings/,
    );
    expect(() => resolveCompactOptions({ resumeMessage: ' ' }, {}, cwd)).toThrow(
      /resumeMessage must be a non-blank string/,
    );
    expect(() => resolveCompactOptions({ tokenSafetyFactor: -1 }, {}, cwd)).toThrow(
      /tokenSafetyFactor must be a number > 0/,
    );
    expect(() => resolveCompactOptions({ retryBaseDelayMs: -1 }, {}, cwd)).toThrow(
      /retryBaseDelayMs must be a number >= 0/,
    );
    expect(() => resolveCompactOptions({ lastUsage: 5 as never }, {}, cwd)).toThrow(/lastUsage must be an object/);
  });

  it('rejects an unsafe sessionId (path separators, ..)', () => {
    expect(() => resolveCompactOptions({ sessionId: '../escape' }, {}, cwd)).toThrow(UnsafePathError);
    expect(() => resolveCompactOptions({ sessionId: 'a/b' }, {}, cwd)).toThrow(/sessionId must be 1-200 characters/);
  });

  it('rejects ports without their methods', () => {
    expect(() => resolveCompactOptions({ summarizer: {} as never }, {}, cwd)).toThrow(
      new InvalidOptionError('summarizer must be an object with summarize(), got an object'),
    );
    expect(() => resolveCompactOptions({ llmClient: { summarize: 'x' } as never }, {}, cwd)).toThrow(
      /llmClient must be an object with summarize\(\)/,
    );
    expect(() => resolveCompactOptions({ fileReader: { read: async () => '' } as never }, {}, cwd)).toThrow(
      /fileReader must be an object with read\(\) and exists\(\)/,
    );
    expect(() => resolveCompactOptions({ fileWriter: { ensureDir: async () => undefined } as never }, {}, cwd)).toThrow(
      /fileWriter must be an object with writeFile\(\)/,
    );
    expect(() => resolveCompactOptions({ logger: {} as never }, {}, cwd)).toThrow(
      /logger must be an object with warn\(\)/,
    );
    expect(() => resolveCompactOptions({ signal: {} as never }, {}, cwd)).toThrow(/signal must be an AbortSignal/);
    expect(() => resolveCompactOptions({ tokenCounter: { count: 1 } as never }, {}, cwd)).toThrow(
      /tokenCounter must be an object with a count\(text\) method/,
    );
    expect(() =>
      resolveCompactOptions({ llmClient: { summarize: async () => '', defaultModel: '' } }, {}, cwd),
    ).toThrow(new InvalidOptionError('llmClient.defaultModel must be a non-empty string or null, got ""'));
  });

  it('resolves a relative workDir against the current directory and normalizes an absolute one', () => {
    expect(resolveCompactOptions({ workDir: 'sub/../other' }, {}, cwd).workDir).toBe('/home/agent/project/other');
    expect(resolveCompactOptions({ workDir: '/srv//app/' }, {}, cwd).workDir).toBe('/srv/app');
    expect(() => resolveCompactOptions({ workDir: '' }, {}, cwd)).toThrow(/workDir must be a non-blank string/);
  });
});

describe('resolveRestoreOptions', () => {
  it('resolves only the restoration settings, ignoring unrelated variables', () => {
    expect(
      resolveRestoreOptions(
        { pathField: 'file_path', readToolNames: ['Read'] },
        { SUMMARY_MAX_WORDS: 'bad', MAX_RESTORE_FILES: '2' },
        cwd,
      ),
    ).toEqual({
      maxRestoreFiles: 2,
      maxRestoreTokensPerFile: 5000,
      maxRestoreTokensTotal: 50_000,
      workDir: cwd,
      readToolNames: ['Read'],
      pathField: 'file_path',
    });
  });
});

describe('resolveSummaryModel: the OpenAI client has no default model', () => {
  const client = (defaultModel?: string | null): LlmClient =>
    defaultModel === undefined ? { summarize: async () => 's' } : { summarize: async () => 's', defaultModel };

  it('takes summaryModel (option, else SUMMARY_MODEL) over any client default', () => {
    expect(resolveSummaryModel('gpt-4.1-mini', client(null))).toBe('gpt-4.1-mini');
    expect(resolveSummaryModel('claude-sonnet-4-6', client('claude-opus-4-1'))).toBe('claude-sonnet-4-6');
    const model = resolveCompactOptions({}, { SUMMARY_MODEL: ' qwen2.5:14b ' }, cwd).summaryModel;
    expect(resolveSummaryModel(model, client(null))).toBe('qwen2.5:14b');
  });

  it("else the client's defaultModel, else DEFAULT_SUMMARY_MODEL for a client that does not say", () => {
    expect(resolveSummaryModel(undefined, client('my-model'))).toBe('my-model');
    expect(resolveSummaryModel(undefined, client())).toBe('claude-haiku-4-5-20251001');
  });

  it('rejects a client whose defaultModel is null when no model is given', () => {
    expect(() => resolveSummaryModel(undefined, client(null))).toThrow(InvalidOptionError);
    expect(() => resolveSummaryModel(undefined, client(null))).toThrow(
      /^summaryModel \(or SUMMARY_MODEL\) is required with an OpenAI client/,
    );
  });
});

describe('assertSummaryInputMaxTokens', () => {
  const counter = { count: (text: string) => Math.ceil(text.length / 4) };

  it('accepts the minimum one prompt needs and rejects one token less, naming the option, the minimum and the value', () => {
    const minimum = computeMinSummaryInputTokens(1200, counter);
    expect(() =>
      assertSummaryInputMaxTokens({ summaryInputMaxTokens: minimum, summaryMaxWords: 1200 }, counter),
    ).not.toThrow();
    expect(() =>
      assertSummaryInputMaxTokens({ summaryInputMaxTokens: minimum - 1, summaryMaxWords: 1200 }, counter),
    ).toThrow(
      new InvalidOptionError(
        `summaryInputMaxTokens must be at least ${minimum} for a 1200-word summary (the prompt's instructions take ${minimum - 1000} tokens, plus 1000 for the conversation), got ${minimum - 1}`,
      ),
    );
  });

  it('accepts the default 100000', () => {
    const resolved = resolveCompactOptions({}, {}, cwd);
    expect(() => assertSummaryInputMaxTokens(resolved, counter)).not.toThrow();
  });
});
