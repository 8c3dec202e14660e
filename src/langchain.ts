/**
 * `agent-context-offload/langchain`: offload and compaction for LangChain.js agents, as one
 * `createAgent` middleware. LangChain (`langchain`, `@langchain/core`, optional peers) is
 * imported when the middleware is created, not when this module is loaded.
 *
 * @packageDocumentation
 */
export { contextOffloadMiddleware, DEFAULT_MIDDLEWARE_NAME, DEFAULT_RESUME_MESSAGE } from './integrations/langchain/context-offload-middleware.js';
export type { ContextOffloadMiddlewareOptions } from './integrations/langchain/context-offload-middleware.js';
export type { ContextOffloadMiddleware } from './integrations/langchain/middleware.js';
