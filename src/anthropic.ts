/**
 * `agent-context-offload/anthropic`: the summary client over the Anthropic SDK (an optional
 * peer, loaded when a client is created) and the SDK shapes it accepts.
 *
 * @packageDocumentation
 */
export { createAnthropicLlmClient } from './infrastructure/anthropic-client.js';
export type {
  AnthropicLike,
  AnthropicLlmClient,
  AnthropicCountTokensOptions,
  CreateAnthropicLlmClientOptions,
  AnthropicCreateBodyLike,
  AnthropicCountTokensBodyLike,
  AnthropicMessageLike,
  AnthropicMessageParamLike,
  AnthropicUsageLike,
  AnthropicRequestOptionsLike,
} from './infrastructure/anthropic-client.js';
export type { SdkImporter, RetryAfterError } from './infrastructure/llm-client-support.js';
