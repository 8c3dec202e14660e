/**
 * OpenAI Agents SDK: offload and compaction around `run()`, with the SDK's own hooks.
 *
 * Runs offline: the model is the SDK's scripted test model. In the first run it fetches a large
 * build log (too large for the small window: cut as the tool returns it, so the model, the run
 * and the session only ever hold its reference, head and tail), then reads the failing line
 * back with the read tool. In the second run it
 * writes a long report; the history is then over a small window, and the session compacts what
 * it stores after the turn. The third run starts from the summary. Everything is written to a
 * temporary directory, removed at the end.
 *
 * Run after `npm run build`: `npx tsx examples/openai-agents.ts`
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, MemorySession, run, setTracingDisabled, tool, type AgentInputItem } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing';
import { z } from 'zod';
import { createContextManager } from 'agent-context-offload';
import {
  createCallModelInputFilter,
  createCompactingSession,
  createReadTool,
  offloadTools,
} from 'agent-context-offload/openai-agents';

// Offline: no traces are exported.
setTracingDisabled(true);

/** A CI build log of 3,000 lines with one error in it. */
const buildLog = Array.from({ length: 3000 }, (_, index) =>
  index === 2211
    ? `line ${index + 1} ERROR: cannot resolve module "left-pad" from src/format.ts`
    : `line ${index + 1} ok: compiled src/module-${index + 1}.ts`,
).join('\n');

const fetchBuildLog = tool({
  name: 'fetch_build_log',
  description: 'Returns the full log of the last CI build.',
  parameters: z.object({}),
  execute: async () => buildLog,
});

/** The text of the tool result answering `callId` in what the model was sent. */
function toolOutput(input: string | AgentInputItem[], callId: string): string {
  const item = Array.isArray(input)
    ? input.find((entry) => entry.type === 'function_call_result' && entry.callId === callId)
    : undefined;
  if (item?.type !== 'function_call_result') return '(none)';
  const output: unknown = item.output;
  if (typeof output === 'string') return output;
  // the SDK sends a string tool output as { type: 'text', text }
  return typeof (output as { text?: unknown }).text === 'string'
    ? (output as { text: string }).text
    : JSON.stringify(output);
}

const outputDir = await mkdtemp(join(tmpdir(), 'aco-openai-agents-example-'));
try {
  // The few lines a user adds: one context manager, and the SDK's hooks built from it.
  const manager = createContextManager({
    format: 'openai-agents',
    outputDir, // where offloaded results and compaction archives go
    contextTokenLimit: 2000, // a tiny window, so that this short conversation gets compacted
    offload: { directThreshold: 4000 }, // older outputs of 4,000+ characters go to the store as they age (a new one over half the window is cut)
    logger: { warn: () => undefined }, // (quiet: this example uses the offline summarizer on purpose)
  });
  const session = createCompactingSession(new MemorySession(), manager);
  const callModelInputFilter = createCallModelInputFilter(manager);

  const model = new ScriptedModel([
    // run 1: fetch the log, read the failing line back by the reference it was shown, answer
    modelResponder(() => [functionCall('fetch_build_log', {}, { callId: 'call_log' })]),
    modelResponder(({ request }) => {
      const reference = toolOutput(request.input, 'call_log');
      console.log(`The 2nd model call sees the log as: ${reference}`);
      return [functionCall('read_offloaded', { ref: reference, pattern: 'ERROR' }, { callId: 'call_read' })];
    }),
    modelResponder(({ request }) => {
      console.log(`The 3rd model call reads it back:\n${toolOutput(request.input, 'call_read')}`);
      return [assistantMessage('The build fails at line 2212: "left-pad" cannot be resolved from src/format.ts.')];
    }),
    // run 2: a long report, which takes the history over the window
    modelResponder(() => [
      assistantMessage(
        `Incident report. ${'The build broke because a dependency was removed from the registry. '.repeat(200)}`,
      ),
    ]),
    // run 3: starts from the compacted history
    modelResponder(({ request }) => {
      const first = Array.isArray(request.input) ? JSON.stringify(request.input[0]).slice(0, 90) : '';
      console.log(`Run 3's model input starts with: ${first}...`);
      return [assistantMessage('You are welcome.')];
    }),
  ]);

  const agent = new Agent({
    name: 'ci-doctor',
    instructions: 'Find out why the build fails.',
    model,
    tools: [...offloadTools([fetchBuildLog], manager), createReadTool(manager)],
  });

  const first = await run(agent, 'Why does the build fail?', { session, callModelInputFilter });
  console.log(`Run 1 answered: ${String(first.finalOutput)}`);

  await run(agent, 'Write the incident report.', { session, callModelInputFilter });
  const stored = await session.getItems();
  console.log(
    `After run 2 the session stores ${stored.length} items; the first: ${JSON.stringify(stored[0]).slice(0, 80)}...`,
  );

  await run(agent, 'Thanks!', { session, callModelInputFilter });
} finally {
  await rm(outputDir, { recursive: true, force: true });
}
