/**
 * `agent-context-offload/openai-agents`: offload and compaction for the OpenAI Agents SDK
 * (`@openai/agents`), driven by a context manager made with
 * `createContextManager({ format: 'openai-agents', ... })`. Four pieces, one per place the SDK
 * lets you in: {@link createCallModelInputFilter} (the run's `callModelInputFilter`: offload and
 * compaction before every model call, the session untouched), {@link createCompactingSession}
 * (a session whose `runCompaction()` hook shrinks what is stored after each turn),
 * {@link withOffload} / {@link offloadTools} (a large tool output becomes a reference before
 * anything stores it) and {@link createReadTool} (the model reads offloaded content back).
 * Nothing here imports the SDK at run time: only its types.
 *
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { createContextManager } from 'agent-context-offload';
 * import { createCallModelInputFilter, createReadTool, offloadTools } from 'agent-context-offload/openai-agents';
 *
 * const manager = createContextManager({ format: 'openai-agents', outputDir: '.offload' });
 * const agent = new Agent({ name: 'assistant', tools: [...offloadTools(myTools, manager), createReadTool(manager)] });
 * const result = await run(agent, 'Summarize the build logs', { callModelInputFilter: createCallModelInputFilter(manager) });
 * ```
 *
 * @packageDocumentation
 */
export { createCallModelInputFilter } from './integrations/openai-agents/call-model-input-filter.js';
export { createCompactingSession } from './integrations/openai-agents/compacting-session.js';
export type {
  CompactingSession,
  CompactingSessionOptions,
  SessionRewrite,
} from './integrations/openai-agents/compacting-session.js';
export { offloadTools, withOffload } from './integrations/openai-agents/offload-tool.js';
export type { AnyFunctionTool } from './integrations/openai-agents/offload-tool.js';
export { createReadTool } from './integrations/openai-agents/read-tool.js';
export type { ReadOffloadedAgentTool } from './integrations/openai-agents/read-tool.js';
export type { IntegrationContextManager } from './integrations/manager-source.js';
