/**
 * `agent-context-offload/ai-sdk`: offload and compaction for Vercel AI SDK loops (`ai` 6 and 7),
 * driven by a context manager made with `createContextManager({ format: 'ai-sdk', ... })`.
 * Three hooks, one per place you can reach: {@link offloadTools} (each tool's `toModelOutput`:
 * a large result is offloaded before the model sees it and before the history stores it),
 * {@link createPrepareStep} (`prepareStep`: offload and compaction before every model call) and
 * {@link createContextMiddleware} (`wrapLanguageModel`: the same on the provider prompt, for loops
 * you do not control). {@link createReadTool} gives the model the read tool for what was
 * offloaded. Nothing here imports `ai`: the objects fit both majors' types.
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { createContextManager } from 'agent-context-offload';
 * import { createPrepareStep, createReadTool, offloadTools } from 'agent-context-offload/ai-sdk';
 *
 * const manager = createContextManager({ format: 'ai-sdk', outputDir: '.offload' });
 * const result = await generateText({
 *   model,
 *   messages,
 *   tools: offloadTools({ ...myTools, read_offloaded: createReadTool(manager) }, manager),
 *   prepareStep: createPrepareStep(manager),
 *   stopWhen: stepCountIs(20),
 * });
 * ```
 *
 * @packageDocumentation
 */
export { offloadTools, withOffload } from './integrations/ai-sdk/offload-tools.js';
export type { WithOffloadOptions } from './integrations/ai-sdk/offload-tools.js';
export { createPrepareStep } from './integrations/ai-sdk/prepare-step.js';
export type {
  AiSdkPrepareStep,
  AiSdkPrepareStepOptions,
  AiSdkPrepareStepResult,
  AiSdkStepUsage,
} from './integrations/ai-sdk/prepare-step.js';
export { createContextMiddleware } from './integrations/ai-sdk/middleware.js';
export type {
  AiSdkContextMiddleware,
  AiSdkCallParams,
  AiSdkTransformParamsOptions,
} from './integrations/ai-sdk/middleware.js';
export { createReadTool } from './integrations/ai-sdk/read-tool.js';
export type { AiSdkReadTool, AiSdkInputSchema } from './integrations/ai-sdk/read-tool.js';
export type {
  AiSdkToolResultOutput,
  AiSdkToModelOutputOptions,
  AiSdkProviderOptions,
} from './integrations/ai-sdk/types.js';
export type { IntegrationContextManager } from './integrations/manager-source.js';
