/**
 * deepagents' context management in the peer benchmark: its filesystem middleware (a tool
 * result over `toolTokenLimitBeforeEvict` × 4 characters is written to the backend and
 * replaced by its path and a head-and-tail preview) and its summarization middleware (older
 * messages written to a history file in the backend, replaced by a summary naming that file),
 * in `createDeepAgent`'s order, through their hooks (see `langchain-agent.ts`), over a
 * `FilesystemBackend` in a temporary directory.
 *
 * Defaults throughout: summarization takes its trigger and what it keeps from the model's
 * profile (85% of the window, then the last 10%), and summarizes with the agent's model, here
 * the shared summary. Eviction by default starts at 20,000 tokens (80,000 characters), which no
 * result of the samples reaches, so a second row evicts from 1,000 characters, the manager's
 * direct-offload threshold. Its own filesystem tools' results (`read_file`, `edit_file`, `ls`,
 * `glob`, `grep`, ...) are never evicted, by name, as in deepagents (its `read_file` pages
 * instead). deepagents counts tokens with LangChain's `countTokensApproximately` (characters /
 * 4): the one counter here that cannot be replaced.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFilesystemMiddleware, createSummarizationMiddleware, FilesystemBackend } from 'deepagents';
import { createAgentHookDriver } from './langchain-agent.js';
import type { PeerSystem } from './replay-system.js';
import { SharedSummaryChatModel } from './shared-summary.js';

/** deepagents estimates a token as 4 characters. */
const CHARS_PER_TOKEN = 4;

async function readTextFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries.filter((entry) => entry.isFile()).map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
  );
}

/**
 * deepagents' filesystem and summarization middlewares; `evictFromChars` sets eviction's
 * threshold in characters (else its default).
 */
export function createDeepagentsSystem(evictFromChars?: number): PeerSystem {
  const eviction =
    evictFromChars === undefined
      ? 'eviction from 80,000 chars'
      : `eviction from ${evictFromChars.toLocaleString('en-US')} chars`;
  return {
    name: `deepagents (${eviction} + summarization)`,
    hasStore: true,
    async open(transcript, window) {
      const directory = await mkdtemp(join(tmpdir(), 'agent-context-bench-deepagents-'));
      const backend = new FilesystemBackend({ rootDir: directory, virtualMode: true });
      const model = new SharedSummaryChatModel(window);
      const middleware = [
        createFilesystemMiddleware({
          backend,
          ...(evictFromChars === undefined ? {} : { toolTokenLimitBeforeEvict: evictFromChars / CHARS_PER_TOKEN }),
        }),
        createSummarizationMiddleware({ backend }),
      ];
      // a fixed session id (deepagents draws one at random) keeps the history file's path, and so the figures, the same from run to run
      const driver = createAgentHookDriver({
        transcript,
        middleware,
        model,
        initialState: { _summarizationSessionId: 'session_peers' },
      });
      return {
        prepareRequest: (end: number) => driver.prepareRequest(end),
        readStore: () => readTextFiles(directory),
        close: () => rm(directory, { recursive: true, force: true }),
      };
    },
  };
}
