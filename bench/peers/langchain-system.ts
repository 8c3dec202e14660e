/**
 * LangChain's `contextEditingMiddleware` with `ClearToolUsesEdit` and its
 * `summarizationMiddleware` in the peer benchmark, through their hooks (see
 * `langchain-agent.ts`). Their documented defaults, except where a default is a figure for
 * another window:
 *
 * - `ClearToolUsesEdit`: keeps the 3 most recent results, placeholder `[cleared]`, tool inputs
 *   kept; its default trigger, 100,000 tokens, is Anthropic's `clear_tool_uses` default for a
 *   200,000-token model, so here it is the same half of the window (`trigger: { fraction: 0.5 }`);
 * - `summarizationMiddleware` has no default trigger: it gets deepagents' profile default
 *   (`trigger: { fraction: 0.85 }`, the LangChain family's own), and keeps its default of the
 *   last 20 messages;
 * - both count with the package's counter (`tokenCounter`, `tokenCountMethod: 'model'`), and
 *   the model's profile gives the window.
 *
 * Neither keeps what it removes: a cleared or summarized result is gone.
 */
import { ClearToolUsesEdit, contextEditingMiddleware, summarizationMiddleware } from 'langchain';
import { createAgentHookDriver } from './langchain-agent.js';
import type { PeerSystem } from './replay-system.js';
import { countLangchainTokens, SharedSummaryChatModel } from './shared-summary.js';

/** Creates the two middlewares for a `window`-token model, in the order an agent lists them. */
export function createLangchainMiddleware(model: SharedSummaryChatModel): object[] {
  return [
    // its option type, inferred from a zod schema, resolves to never here (as in integrations.bench.ts)
    summarizationMiddleware({ model, trigger: { fraction: 0.85 }, tokenCounter: countLangchainTokens } as never),
    contextEditingMiddleware({
      edits: [new ClearToolUsesEdit({ trigger: { fraction: 0.5 } })],
      tokenCountMethod: 'model',
    }),
  ];
}

/** LangChain `ClearToolUsesEdit` + `summarizationMiddleware`; no store. */
export const langchainSystem: PeerSystem = {
  name: 'LangChain `ClearToolUsesEdit` + `summarizationMiddleware`',
  hasStore: false,
  open(transcript, window) {
    const model = new SharedSummaryChatModel(window);
    const driver = createAgentHookDriver({ transcript, middleware: createLangchainMiddleware(model), model });
    return Promise.resolve({
      prepareRequest: (end: number) => driver.prepareRequest(end),
      readStore: () => Promise.resolve([]),
      close: () => Promise.resolve(),
    });
  },
};
