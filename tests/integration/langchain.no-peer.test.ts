/**
 * `agent-context-offload/langchain` loads without LangChain installed (DESIGN §9: each
 * integration loads its framework lazily), and creating the middleware then rejects with
 * MISSING_DEPENDENCY. LangChain is made unloadable with module mocks that fail as a missing
 * package does.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

function notInstalled(name: string): never {
  throw Object.assign(new Error(`Cannot find package '${name}' imported from src/integrations`), { code: 'ERR_MODULE_NOT_FOUND' });
}

vi.mock('langchain', () => notInstalled('langchain'));
vi.mock('@langchain/core/messages', () => notInstalled('@langchain/core'));
vi.mock('@langchain/core/tools', () => notInstalled('@langchain/core'));

describe('without LangChain installed', () => {
  it('the subpath imports and exports the middleware factory', async () => {
    const entry = await import('../../src/langchain.js');
    expect(typeof entry.contextOffloadMiddleware).toBe('function');
  });

  it('contextOffloadMiddleware rejects with MISSING_DEPENDENCY, saying what to install, and writes nothing', async () => {
    const { contextOffloadMiddleware } = await import('../../src/langchain.js');
    const directory = await mkdtemp(join(tmpdir(), 'aco-langchain-no-peer-'));
    try {
      await expect(contextOffloadMiddleware({ outputDir: directory })).rejects.toMatchObject({
        code: 'MISSING_DEPENDENCY',
        message: expect.stringMatching(/npm install (langchain|@langchain\/core)/),
      });
      expect(await readdir(directory)).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
