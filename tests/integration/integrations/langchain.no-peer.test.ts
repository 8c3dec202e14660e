/**
 * LangChain is an optional peer: only `agent-context-offload/langchain` imports it. Without it
 * installed, the package root still loads and its manager still handles LangChain-shaped
 * (serialized) messages. LangChain is made unloadable with module mocks that fail as a missing
 * package does.
 */
import { describe, expect, it, vi } from 'vitest';

function notInstalled(name: string): never {
  throw Object.assign(new Error(`Cannot find package '${name}' imported from src/integrations`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

vi.mock('langchain', () => notInstalled('langchain'));
vi.mock('@langchain/core/messages', () => notInstalled('@langchain/core'));
vi.mock('@langchain/core/tools', () => notInstalled('@langchain/core'));

describe('without LangChain installed', () => {
  it('the package root loads and its manager prepares LangChain-shaped messages', async () => {
    const { createContextManager, createMemoryStore } = await import('../../../src/index.js');
    const manager = createContextManager<unknown>({ store: createMemoryStore(), format: 'langchain' });
    const history = [{ type: 'human', content: 'Summarize the build log.' }];
    const prepared = await manager.prepare(history);
    expect(prepared.messages).toEqual(history);
  });
});
