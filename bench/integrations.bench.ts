/**
 * Framework integrations: each integration's per-call overhead when nothing needs
 * doing, on a 2,000-message history in its framework's own shape, against the context
 * manager's own `prepare` on the same history (measured in the same run). Goal: <= 1 ms.
 *
 * Each integration adds one `measure*` function below and appends it to `CASES`.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { BenchRow, BenchRunOptions } from './report.js';

export const title = 'Framework integrations';

/** The history length of every case. */
export const HISTORY_LENGTH = 2000;
/** The goal for one call that has nothing to do, in milliseconds. */
export const GOAL_MS = 1;

type IntegrationCase = (options: BenchRunOptions) => Promise<BenchRow[]>;

// ---- LangChain (`agent-context-offload/langchain`) ----

/** A LangChain agent's state after 1,000 tool calls with small results: nothing to offload or compact. */
async function buildLangchainHistory(): Promise<BaseMessage[]> {
  const { AIMessage, HumanMessage, ToolMessage } = await import('@langchain/core/messages');
  const messages: BaseMessage[] = [
    new HumanMessage({ content: 'Check every module for the handler bug.', id: 'human-0' }),
  ];
  for (let turn = 0; messages.length < HISTORY_LENGTH; turn++) {
    const id = `call_${String(turn).padStart(6, '0')}`;
    messages.push(
      new AIMessage({
        content: `Step ${turn}: reading the next file.`,
        id: `ai-${turn}`,
        tool_calls: [{ id, name: 'read_file', args: { path: `src/module-${turn}.ts` }, type: 'tool_call' }],
      }),
      new ToolMessage({
        content: `ok: ${turn} lines checked`,
        tool_call_id: id,
        name: 'read_file',
        id: `tool-${turn}`,
      }),
    );
  }
  return messages.slice(0, HISTORY_LENGTH);
}

/** The hook's function, whether LangChain's shape is the function or `{ hook }`. */
function hookFunction<T>(hook: T | { hook: T } | undefined): T {
  if (hook === undefined) throw new Error('the middleware has no beforeModel hook');
  return typeof hook === 'function' ? hook : (hook as { hook: T }).hook;
}

/**
 * `beforeModel` of `contextOffloadMiddleware` on 2,000 LangChain messages with nothing to do,
 * against the context manager's own `prepare` on the same history and LangChain's own
 * `summarizationMiddleware` (its token check when under its trigger), all in this run.
 */
async function measureLangchain(options: BenchRunOptions): Promise<BenchRow[]> {
  const { measureMedians } = await import('./report.js');
  const { contextOffloadMiddleware } = await import('../src/langchain.js');
  const { createContextManager } = await import('../src/api/context-manager.js');
  const { createLangchainFormat } = await import('../src/formats/langchain.js');
  const { createMemoryStore } = await import('../src/stores/memory-store.js');
  const { fakeModel, summarizationMiddleware } = await import('langchain');
  const messages = await buildLangchainHistory();
  const state = { messages };
  const runtime = { context: {} };
  const quiet = { warn: () => {} };

  const middleware = contextOffloadMiddleware({ store: createMemoryStore(), logger: quiet });
  const beforeModel = hookFunction(middleware.beforeModel) as (state: unknown, runtime: unknown) => Promise<unknown>;
  const manager = createContextManager<BaseMessage>({
    store: createMemoryStore(),
    logger: quiet,
    format: createLangchainFormat() as never,
  });
  const summarization = summarizationMiddleware({ model: fakeModel(), trigger: { tokens: 10_000_000 } } as never);
  const summarizationBeforeModel = hookFunction(summarization.beforeModel) as (
    state: unknown,
    runtime: unknown,
  ) => Promise<unknown>;
  // Sanity, and the first call that memoizes conversions and counts: nothing to do, no update.
  if ((await beforeModel(state, runtime)) !== undefined)
    throw new Error('beforeModel changed a history with nothing to do');
  await manager.prepare(messages);
  if ((await summarizationBeforeModel(state, runtime)) !== undefined)
    throw new Error('summarizationMiddleware changed the history');

  const middlewareCase = 'langchain: contextOffloadMiddleware beforeModel, nothing to do (2,000 messages)';
  const prepareCase = 'manager.prepare (langchain format)';
  const summarizationCase = "langchain's summarizationMiddleware beforeModel (under its trigger)";
  const medians = await measureMedians(
    {
      [middlewareCase]: () => beforeModel(state, runtime),
      [prepareCase]: () => manager.prepare(messages),
      [summarizationCase]: () => summarizationBeforeModel(state, runtime),
    },
    { ...options, iterations: 200 },
  );
  const middlewareMs = medians[middlewareCase]!;
  return [
    {
      name: middlewareCase,
      medianMs: middlewareMs,
      baseline: { name: prepareCase, medianMs: medians[prepareCase]! },
      goal: `<= ${GOAL_MS} ms`,
      met: middlewareMs <= GOAL_MS,
    },
    {
      name: middlewareCase,
      medianMs: middlewareMs,
      baseline: { name: summarizationCase, medianMs: medians[summarizationCase]! },
      goal: `<= ${GOAL_MS} ms`,
      met: middlewareMs <= GOAL_MS,
    },
  ];
}

// ---- Vercel AI SDK (`agent-context-offload/ai-sdk`) ----

type AiSdkMessage = { role: string; content: string | Array<Record<string, unknown>> };

/** An AI SDK loop's messages after 1,000 tool calls with small results: nothing to offload or compact. */
function buildAiSdkHistory(): AiSdkMessage[] {
  const messages: AiSdkMessage[] = [{ role: 'user', content: 'Check every module for the handler bug.' }];
  for (let turn = 0; messages.length < HISTORY_LENGTH; turn++) {
    const toolCallId = `call_${String(turn).padStart(6, '0')}`;
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${turn}: reading the next file.` },
          { type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/module-${turn}.ts` } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId,
            toolName: 'read_file',
            output: { type: 'text', value: `ok: ${turn} lines checked` },
          },
        ],
      },
    );
  }
  return messages.slice(0, HISTORY_LENGTH);
}

/** The same history as the provider prompt a middleware sees: user and assistant content always in parts. */
function toAiSdkProviderPrompt(messages: readonly AiSdkMessage[]): AiSdkMessage[] {
  return messages.map((message) =>
    typeof message.content === 'string' ? { ...message, content: [{ type: 'text', text: message.content }] } : message,
  );
}

/**
 * The AI SDK hooks on 2,000 messages with nothing to do, against the context manager's own
 * `prepare` on the same history: `createPrepareStep` (the SDK hands it the same message objects
 * at every step), and `createContextMiddleware` on the same prompt objects and on a fresh copy
 * per call (the SDK converts the history into a new provider prompt for every call: the
 * middleware compares it with the previous call's to hand the manager the objects it knows).
 */
async function measureAiSdk(options: BenchRunOptions): Promise<BenchRow[]> {
  const { measureMedians } = await import('./report.js');
  const { Bench } = await import('tinybench');
  const { createContextMiddleware, createPrepareStep } = await import('../src/ai-sdk.js');
  const { createContextManager } = await import('../src/api/context-manager.js');
  const { createMemoryStore } = await import('../src/stores/memory-store.js');
  const quiet = { warn: () => {} };
  const createManager = () =>
    createContextManager<AiSdkMessage>({ format: 'ai-sdk', store: createMemoryStore(), logger: quiet });
  const messages = buildAiSdkHistory();
  const prompt = toAiSdkProviderPrompt(messages);
  const manager = createManager();
  const prepareStep = createPrepareStep(createManager());
  const middleware = createContextMiddleware(createManager());
  const step = { messages, stepNumber: 1, steps: [{ usage: { inputTokens: undefined } }] };
  const params = { prompt };
  // Sanity, and the first calls that memoize conversions and counts: nothing to do, nothing changed.
  if ((await prepareStep(step)) !== undefined) throw new Error('prepareStep changed a history with nothing to do');
  if ((await middleware.transformParams({ type: 'generate', params })) !== params)
    throw new Error('the middleware changed a prompt with nothing to do');
  await manager.prepare(messages);

  const prepareStepCase = 'ai-sdk: createPrepareStep, nothing to do (2,000 messages)';
  const middlewareCase = 'ai-sdk: createContextMiddleware, nothing to do, same prompt objects';
  const prepareCase = 'manager.prepare (ai-sdk format)';
  const medians = await measureMedians(
    {
      [prepareStepCase]: () => prepareStep(step),
      [middlewareCase]: () => middleware.transformParams({ type: 'generate', params }),
      [prepareCase]: () => manager.prepare(messages),
    },
    { ...options, iterations: 200 },
  );

  // A fresh prompt per call, copied outside the timed window.
  const freshCase = 'ai-sdk: createContextMiddleware, nothing to do, a fresh prompt per call (as the SDK sends it)';
  let fresh = { prompt: structuredClone(prompt) };
  const bench = new Bench({ iterations: options.quick ? 3 : 20, time: 0, warmup: true, warmupIterations: 1 });
  bench.add(freshCase, () => middleware.transformParams({ type: 'generate', params: fresh }), {
    beforeEach: () => {
      fresh = { prompt: structuredClone(prompt) };
    },
  });
  await bench.run();
  const freshResult = bench.tasks[0]?.result as { latency?: { p50?: number }; error?: unknown } | undefined;
  if (freshResult?.error) throw freshResult.error;
  const freshMs = freshResult?.latency?.p50 ?? Number.NaN;

  const baseline = { name: prepareCase, medianMs: medians[prepareCase]! };
  const row = (name: string, medianMs: number, extra?: string): BenchRow => ({
    name,
    medianMs,
    baseline,
    ...(extra === undefined ? {} : { extra }),
    goal: `<= ${GOAL_MS} ms`,
    met: medianMs <= GOAL_MS,
  });
  return [
    row(prepareStepCase, medians[prepareStepCase]!),
    row(middlewareCase, medians[middlewareCase]!),
    row(
      freshCase,
      freshMs,
      'new objects each call, each converted and checked again: the middleware keeps no memory (the decisions are in the store)',
    ),
  ];
}

// ---- OpenAI Agents SDK (`agent-context-offload/openai-agents`) ----

type AgentsItem = Record<string, unknown>;

/** An Agents SDK run's items after 1,000 tool calls with small results: nothing to offload or compact. */
function buildAgentsHistory(): AgentsItem[] {
  const items: AgentsItem[] = [{ type: 'message', role: 'user', content: 'Check every module for the handler bug.' }];
  for (let turn = 0; items.length < HISTORY_LENGTH; turn++) {
    const callId = `call_${String(turn).padStart(6, '0')}`;
    items.push(
      {
        type: 'function_call',
        callId,
        name: 'read_file',
        arguments: JSON.stringify({ path: `src/module-${turn}.ts` }),
        status: 'completed',
      },
      {
        type: 'function_call_result',
        callId,
        name: 'read_file',
        status: 'completed',
        output: { type: 'text', text: `ok: ${turn} lines checked` },
      },
    );
  }
  return items.slice(0, HISTORY_LENGTH);
}

/**
 * `createCallModelInputFilter` on 2,000 Agents SDK items with nothing to do (the runner hands it
 * the same item objects at every call: the filter sets `preserveInputIdentity`), against the
 * context manager's own `prepare` on the same history, in this run.
 */
async function measureOpenAIAgents(options: BenchRunOptions): Promise<BenchRow[]> {
  const { measureMedians } = await import('./report.js');
  const { createCallModelInputFilter } = await import('../src/openai-agents.js');
  const { createContextManager } = await import('../src/api/context-manager.js');
  const { createMemoryStore } = await import('../src/stores/memory-store.js');
  const quiet = { warn: () => {} };
  const createManager = () =>
    createContextManager<AgentsItem>({ format: 'openai-agents', store: createMemoryStore(), logger: quiet });
  const items = buildAgentsHistory();
  const manager = createManager();
  const filter = createCallModelInputFilter(createManager());
  const modelData = { input: items as never[], instructions: 'Find the bug.' };
  const args = { modelData, agent: {} as never, context: undefined };
  // Sanity, and the first calls that memoize conversions and counts: nothing to do, nothing changed.
  if ((await filter(args)) !== modelData) throw new Error('callModelInputFilter changed an input with nothing to do');
  await manager.prepare(items);

  const filterCase = 'openai-agents: createCallModelInputFilter, nothing to do (2,000 items)';
  const prepareCase = 'manager.prepare (openai-agents format)';
  const medians = await measureMedians(
    {
      [filterCase]: () => filter(args),
      [prepareCase]: () => manager.prepare(items),
    },
    { ...options, iterations: 200 },
  );
  const filterMs = medians[filterCase]!;
  return [
    {
      name: filterCase,
      medianMs: filterMs,
      baseline: { name: prepareCase, medianMs: medians[prepareCase]! },
      goal: `<= ${GOAL_MS} ms`,
      met: filterMs <= GOAL_MS,
    },
  ];
}

/** One entry per integration; append yours. */
const CASES: IntegrationCase[] = [measureLangchain, measureAiSdk, measureOpenAIAgents];

/** Runs every integration's case, in order. */
export async function run(options: BenchRunOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const measure of CASES) rows.push(...(await measure(options)));
  return rows;
}
