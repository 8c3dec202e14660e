/**
 * This package's context manager in the peer benchmark: `createContextManager` with its
 * defaults, told the window, driven as its documentation says (`prepare(history, { lastUsage })`
 * before every request, the prepared messages sent and kept as the history). The settings
 * besides the window are those of `agent-context replay`: a margin of 1 (the figures are in
 * the package's own tokens, and each request's count comes back as the usage figure) and no
 * file restoration (a transcript's paths are not this machine's files); its cost model is
 * Anthropic's, the prices the bench counts with.
 */
import { createContextManager, type ManagerOffloadOptions } from '../../src/api/context-manager.js';
import { countTokens } from '../../src/api/tokens.js';
import type { CostModelOptions } from '../../src/core/cost/cost-model.js';
import { silentLogger } from '../../src/core/ports.js';
import type { LastUsage } from '../../src/core/text/tokens.js';
import type { Message } from '../../src/core/types.js';
import { createMemoryStore } from '../../src/stores/memory-store.js';
import { readStoreTexts, type PeerSession, type PeerSystem } from './replay-system.js';
import { sharedSummarizer } from './shared-summary.js';
import { normalizeMessages, type PeerTranscript } from './transcripts.js';

/**
 * `createContextManager` with the shared summary, its offload settings `offload` (the defaults
 * when not given) and, when given, the cost model `cost` its schedule is decided with.
 */
export function createManagerSystem(offload?: ManagerOffloadOptions, cost?: CostModelOptions): PeerSystem {
  const settings = [
    ...(offload === undefined ? [] : [`offload: ${JSON.stringify(offload)}`]),
    ...(cost === undefined ? [] : [`cost: ${JSON.stringify(cost)}`]),
  ];
  return {
    name:
      settings.length === 0
        ? 'this package (`createContextManager`, defaults)'
        : `this package (\`${settings.join(', ')}\`)`,
    hasStore: true,
    // without a cost of its own, the manager decides with the prices the run is measured with
    open: (transcript, window, costModel) =>
      openManagerSession(transcript, window, offload, cost ?? (costModel === undefined ? undefined : { ...costModel })),
  };
}

/** `createContextManager`, default options, the shared summary. */
export const managerSystem: PeerSystem = createManagerSystem();

function openManagerSession(
  transcript: PeerTranscript,
  window: number,
  offload: ManagerOffloadOptions | undefined,
  cost?: CostModelOptions,
): Promise<PeerSession> {
  const store = createMemoryStore();
  const manager = createContextManager({
    store,
    contextTokenLimit: window,
    provider: 'openai',
    summarizer: sharedSummarizer,
    logger: silentLogger,
    compaction: { restore: { maxFiles: 0 } },
    ...(offload === undefined ? {} : { offload }),
    ...(cost === undefined ? {} : { cost }),
  });
  let history: Message[] = [];
  let seen = 0;
  let lastUsage: LastUsage | undefined;
  return Promise.resolve({
    async prepareRequest(end: number) {
      history = [...history, ...transcript.messages.slice(seen, end)];
      seen = end;
      const { messages } = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage });
      lastUsage = {
        inputTokens: transcript.toolDefinitionTokens + countTokens(messages),
        messageCount: messages.length,
      };
      history = messages;
      return normalizeMessages(messages);
    },
    readStore: () => readStoreTexts(store),
    close: () => Promise.resolve(),
  });
}
