/**
 * The context manager of one proxy session: one stays warm per session and credential, over the
 * whole window (the system prompt and tools are each request's `fixedTokens`). The session's
 * decisions are records in the store, so a new manager (a forgotten one, another process)
 * prepares a history alike.
 */
import { createContextManager } from '../api/context-manager.js';
import type { ReferenceReader } from '../api/compact.js';
import type { ContextManager } from '../core/manage/types.js';
import type { ContentStore, Logger, Summarizer } from '../core/ports.js';
import type { Message } from '../core/types.js';
import type { ProxyHandlerOptions } from './proxy-options.js';
import type { ProxyProvider } from './routes.js';

/** What every session's manager shares. */
export interface SessionManagerFactoryOptions {
  store: ContentStore;
  /** The window, in tokens. */
  window: number;
  /** The handler's options: the manager's groups among them, checked when the handler was created. */
  options: ProxyHandlerOptions;
  /** What a reference line tells the model to read it with. */
  referenceReader: ReferenceReader;
  logger: Logger;
}

/** Creates the manager of a session: its provider family prices and calibrates, its model's cache discount prices a rewritten prefix. */
export type SessionManagerFactory = (
  sessionId: string,
  provider: ProxyProvider,
  summarizer: Summarizer,
  model?: string,
) => ContextManager<Message>;

/** The factory of the proxy's session managers. */
export function createSessionManagerFactory(factory: SessionManagerFactoryOptions): SessionManagerFactory {
  const { store, window, options, referenceReader, logger } = factory;
  return (sessionId, provider, summarizer, model) =>
    createContextManager({
      store,
      sessionId,
      format: 'anthropic',
      // Gemini's tokenizer is no family the manager calibrates for: its figures calibrate as any other's
      provider: provider === 'gemini' ? 'other' : provider,
      model,
      summarizer,
      contextTokenLimit: window,
      offload: options.offload,
      compaction: options.compaction,
      // a proxy never puts its own files into an agent's context: restore only from a directory named for it
      workDir: options.workDir,
      // without reads answered here, the agent has no read tool of ours: it opens a reference (a path) with its own tools
      referenceReader,
      logger,
    });
}
