/**
 * `agent-context-offload/openai`: the summary client over the OpenAI SDK (an optional peer,
 * loaded when a client is created) and the SDK shapes it accepts.
 *
 * @packageDocumentation
 */
export { createOpenAILlmClient } from './infrastructure/openai-client.js';
export type {
  OpenAILike,
  OpenAILlmClient,
  CreateOpenAILlmClientOptions,
  OpenAIMaxTokensParameter,
  OpenAIChatCreateBodyLike,
  OpenAIChatCompletionLike,
  OpenAIRequestOptionsLike,
} from './infrastructure/openai-client.js';
export type { SdkImporter, RetryAfterError } from './infrastructure/llm-client-support.js';
