/**
 * `agent-context-offload/proxy`: an HTTP handler that applies the context manager to every model
 * request an agent sends (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions) and
 * forwards it upstream, so an agent in any language gets offload and compaction by changing its
 * base URL. `agent-context proxy` runs it as a server.
 *
 * @packageDocumentation
 */
export { createProxyHandler } from './proxy/proxy-handler.js';
export type { ContextProxyHandler } from './proxy/proxy-handler.js';
export type { UpgradeListener } from './proxy/upgrade-forward.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_KEPT_BYTES,
  DEFAULT_MAX_READ_ROUNDS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PROXY_DIR,
  DEFAULT_UPSTREAMS,
} from './proxy/proxy-options.js';
export type { ProxyHandlerOptions, ProxyReadTool, ProxyRequestEvent, ProxySummarizer } from './proxy/proxy-options.js';
export type { ProxyProvider, ProxyRoutePath } from './proxy/routes.js';
export { CLAUDE_CODE_SESSION_HEADER, SESSION_HEADER } from './proxy/session-id.js';
export { AUTH_HEADER } from './proxy/auth.js';
