/**
 * The package root loads with neither optional peer installed, and a client
 * factory then rejects with MISSING_DEPENDENCY. The SDKs are made unloadable
 * with module mocks that fail as a missing package does.
 */
import { describe, expect, it, vi } from 'vitest';

function notInstalled(name: string): never {
  throw Object.assign(new Error(`Cannot find package '${name}' imported from src/infrastructure`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

vi.mock('@anthropic-ai/sdk', () => notInstalled('@anthropic-ai/sdk'));
vi.mock('openai', () => notInstalled('openai'));

describe('without the optional SDKs installed', () => {
  it('the package root and the client subpaths import, and export the client factories', async () => {
    const root = await import('../../../src/index.js');
    expect(typeof root.compactMessages).toBe('function');
    expect(typeof (await import('../../../src/anthropic.js')).createAnthropicLlmClient).toBe('function');
    expect(typeof (await import('../../../src/openai.js')).createOpenAILlmClient).toBe('function');
    expect(typeof (await import('../../../src/summarize.js')).createExtractiveSummarizer).toBe('function');
  });

  it('createAnthropicLlmClient rejects with MISSING_DEPENDENCY, saying what to install', async () => {
    const { createAnthropicLlmClient } = await import('../../../src/anthropic.js');
    const { MissingDependencyError } = await import('../../../src/index.js');
    const promise = createAnthropicLlmClient({ apiKey: 'sk-test' });
    await expect(promise).rejects.toBeInstanceOf(MissingDependencyError);
    await expect(promise).rejects.toThrow('npm install @anthropic-ai/sdk');
  });

  it('createOpenAILlmClient rejects with MISSING_DEPENDENCY, saying what to install', async () => {
    const { createOpenAILlmClient } = await import('../../../src/openai.js');
    await expect(createOpenAILlmClient({ apiKey: 'sk-test' })).rejects.toMatchObject({
      code: 'MISSING_DEPENDENCY',
      message: expect.stringContaining('npm install openai'),
    });
  });
});
