/**
 * `agent-context-offload/langchain`: offload and compaction for LangChain.js agents, as one
 * `createAgent` middleware. This subpath imports `langchain` and `@langchain/core` (optional
 * peers of the package: install them to use it); the package root never loads them.
 *
 * @packageDocumentation
 */
export {
  contextOffloadMiddleware,
  DEFAULT_MIDDLEWARE_NAME,
  DEFAULT_RESUME_MESSAGE,
} from './integrations/langchain/context-offload-middleware.js';
export type { ContextOffloadMiddlewareOptions } from './integrations/langchain/context-offload-middleware.js';
export type { ContextOffloadMiddleware } from './integrations/langchain/middleware.js';
