import { createContextManager } from '../src/api/context-manager.js';
import { countTokens } from '../src/api/tokens.js';
import { silentLogger } from '../src/core/ports.js';
import { createMemoryStore } from '../src/stores/memory-store.js';
import { sharedSummarizer } from './peers/shared-summary.js';
import { loadCorpus } from './corpus/load-corpus.js';
import { findRequestTurns } from '../src/cli/replay/request-turns.js';
const [name, windowText] = process.argv.slice(2);
const window = Number(windowText);
const [t] = await loadCorpus({ directory: process.env.ACO_CORPUS_DIR!, names: [name!] });
const manager = createContextManager({ store: createMemoryStore(), contextTokenLimit: window, provider: 'openai', summarizer: sharedSummarizer, logger: silentLogger, compaction: { restore: { maxFiles: 0 } }, cost: { family: 'anthropic' } });
let history: any[] = []; let seen = 0; let lastUsage: any;
const turns = findRequestTurns(t!.messages);
for (const [i, end] of turns.entries()) {
  history = [...history, ...t!.messages.slice(seen, end)]; seen = end;
  const r = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage });
  lastUsage = { inputTokens: t!.toolDefinitionTokens + countTokens(r.messages), messageCount: r.messages.length };
  history = r.messages;
  const acts = r.actions.map((a: any) => a.type + (a.reason ? ':' + a.reason : '')).join(',');
  if (acts) console.log(`request ${i + 1}/${turns.length}`, countTokens(r.messages), acts);
}
