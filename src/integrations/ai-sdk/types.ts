/**
 * The shapes the AI SDK integration works with, written out structurally so that this package
 * never imports `ai` (not even its types): the same objects fit `ai` 6 and `ai` 7, whose
 * declared types differ in generics and names but agree on these fields.
 */
import { assertContextManager as assertIntegrationManager, type IntegrationContextManager } from '../manager-source.js';

/** Marks a tool whose results must never be offloaded (the read tool): {@link withOffload} leaves it as it is. */
export const NEVER_OFFLOAD = Symbol.for('agent-context-offload.ai-sdk.never-offload');

/** Provider-specific options, as the AI SDK passes them through (`providerOptions`). */
export type AiSdkProviderOptions = Record<string, Record<string, unknown>>;

/**
 * What a tool's `toModelOutput` returns (the AI SDK's `ToolResultOutput`): what the model is
 * sent for one tool result, and what the response messages store.
 */
export type AiSdkToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'json'; value: unknown; providerOptions?: AiSdkProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'error-json'; value: unknown; providerOptions?: AiSdkProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: AiSdkProviderOptions }
  | { type: 'content'; value: unknown[]; providerOptions?: AiSdkProviderOptions };

/** The argument the AI SDK passes to a tool's `toModelOutput`. */
export interface AiSdkToModelOutputOptions {
  /** The id of the tool call this result answers. */
  toolCallId: string;
  /** The tool call's input. */
  input: unknown;
  /** What the tool's `execute` returned. */
  output: unknown;
}

/**
 * Throws {@link InvalidOptionError} unless `manager` has the context manager's `prepare` and
 * `offloadOutput` functions.
 */
export function assertContextManager(
  manager: unknown,
  field = 'manager',
): asserts manager is IntegrationContextManager {
  assertIntegrationManager(manager, 'ai-sdk', field);
}
