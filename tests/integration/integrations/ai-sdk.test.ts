/**
 * agent-context-offload/ai-sdk on both supported majors of the AI SDK: `ai` 7 and `ai` 6
 * (installed as `ai-v6`). The same loop runs on each major's real generateText /
 * ToolLoopAgent / wrapLanguageModel and its own mock model (MockLanguageModelV4 in 7,
 * MockLanguageModelV3 in 6), with a real file store in a temp directory and the real extractive
 * summarizer. Every assertion is on what the mock model received (`doGenerateCalls[i].prompt`)
 * or what the SDK returned. The cases past the parameterised suites are the package's own
 * helpers, run on `ai` 7.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ai7 from 'ai';
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import * as ai6 from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createContextMiddleware,
  createPrepareStep,
  createReadTool,
  offloadTools,
  withOffload,
} from '../../../src/ai-sdk.js';
import { createContextManager, type PrepareOptions } from '../../../src/api/context-manager.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import { InvalidOptionError } from '../../../src/core/errors.js';
import {
  createCountingSummarizer,
  estimatePromptTokens,
  itBehavesAsTheContextMiddleware,
  LISTING_TEXT,
  LOG_MIDDLE_LINE,
  LOG_TEXT,
  OLD_TURNS,
  oldConversation,
  promptTexts,
  REFERENCE,
  SCENARIO_LIMITS,
  scriptedResponse,
  toolResultValue,
} from './ai-sdk-scenario.js';

const directories: string[] = [];
async function createTempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'aco-ai-sdk-'));
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A part of the stream a V4 model returns (the provider package's `LanguageModelV4StreamPart`). */
type LanguageModelV4StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer PART> ? PART : never;

type DoGenerate = Extract<
  NonNullable<NonNullable<ConstructorParameters<typeof MockLanguageModelV4>[0]>['doGenerate']>,
  (...args: never[]) => unknown
>;
/** What these tests read of a generateText result, in both majors. */
interface GenerateTextResult {
  text: string;
  steps: ReadonlyArray<{ toolResults: ReadonlyArray<{ output: unknown }> }>;
}

/**
 * One major of the AI SDK: its functions and its mock model. Typed as `ai` 7's: the calls made
 * here have the same shape in both majors, which is what this suite checks at run time.
 */
interface AiSdkMajor {
  name: string;
  ai: Pick<typeof ai7, 'generateText' | 'jsonSchema' | 'stepCountIs' | 'tool' | 'ToolLoopAgent' | 'wrapLanguageModel'>;
  createMockModel(doGenerate: DoGenerate): MockLanguageModelV4;
  /** The messages the loop added (`responseMessages` in 7, `response.messages` in 6). */
  responseMessagesOf(result: unknown): ModelMessage[];
}

const MAJORS: AiSdkMajor[] = [
  {
    name: 'ai 7',
    ai: ai7,
    createMockModel: (doGenerate) => new MockLanguageModelV4({ doGenerate }),
    responseMessagesOf: (result) => (result as { responseMessages: ModelMessage[] }).responseMessages,
  },
  {
    name: 'ai 6',
    ai: ai6 as unknown as AiSdkMajor['ai'],
    createMockModel: (doGenerate) =>
      new MockLanguageModelV3({ doGenerate: doGenerate as never }) as unknown as MockLanguageModelV4,
    responseMessagesOf: (result) => (result as { response: { messages: ModelMessage[] } }).response.messages,
  },
];

/** Each major with its name first, for the suites' titles. */
const BY_NAME = MAJORS.map((major) => [major.name, major] as const);

const emptyInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });

/** The scenario's own tools: a 50 KB log, a 10,000-character listing, a tiny ping. */
function scenarioTools(ai: AiSdkMajor['ai'] = ai7) {
  const input = ai.jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
  return {
    fetch_log: ai.tool({ description: 'Fetches the request log.', inputSchema: input, execute: async () => LOG_TEXT }),
    list_files: ai.tool({ description: 'Lists the files.', inputSchema: input, execute: async () => LISTING_TEXT }),
    ping: ai.tool({ description: 'Pings.', inputSchema: input, execute: async () => 'pong' }),
  };
}

/** A mock model that answers each call as the scenario scripts it; with `reportUsage`, it reports a prompt size too. */
function createScriptedModel(major: AiSdkMajor, reportUsage = false): MockLanguageModelV4 {
  let calls = 0;
  return major.createMockModel(
    async (options) =>
      scriptedResponse(
        calls++,
        options.prompt,
        reportUsage ? estimatePromptTokens(options.prompt) : undefined,
      ) as never,
  );
}

function createScenarioManager(outputDir: string) {
  const summarizer = createCountingSummarizer();
  const manager = createContextManager({ format: 'ai-sdk', outputDir, summarizer, ...SCENARIO_LIMITS });
  return { manager, summarizer };
}

describe.each(BY_NAME)('%s: generateText with offloadTools, createPrepareStep and the read tool', (_name, major) => {
  let model: MockLanguageModelV4;
  let summarizer: ReturnType<typeof createCountingSummarizer>;
  let result: GenerateTextResult;
  let outputDir: string;

  beforeAll(async () => {
    outputDir = await createTempDir();
    const scenario = createScenarioManager(outputDir);
    summarizer = scenario.summarizer;
    model = createScriptedModel(major);
    result = await major.ai.generateText({
      model,
      messages: oldConversation(),
      tools: offloadTools(
        { ...scenarioTools(major.ai), read_offloaded: createReadTool(scenario.manager) },
        scenario.manager,
      ),
      prepareStep: createPrepareStep(scenario.manager),
      stopWhen: major.ai.stepCountIs(6),
    });
  });

  it('runs the five model calls of the loop', () => {
    expect(model.doGenerateCalls).toHaveLength(5);
    expect(result.text).toBe('tenant-3 requests are slow but none fails.');
  });

  it('offloads the 50 KB tool result before the model sees it: the next prompt holds the reference', async () => {
    const shown = toolResultValue(model.doGenerateCalls[1]!.prompt, 'fetch_log');
    expect(shown).toMatch(REFERENCE);
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).not.toContain(LOG_MIDDLE_LINE);
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt).length).toBeLessThan(5_000);
    expect((await readdir(outputDir, { recursive: true })).length).toBeGreaterThan(0);
  });

  it('keeps the reference in the response messages and the raw output in steps[0].toolResults', () => {
    const stored = JSON.stringify(major.responseMessagesOf(result));
    expect(stored).not.toContain(LOG_MIDDLE_LINE);
    expect(stored).toMatch(/offloaded to/);
    expect(result.steps[0]!.toolResults[0]!.output).toBe(LOG_TEXT);
  });

  it('gives the content back when the model calls the read tool with the reference', () => {
    const page = toolResultValue(model.doGenerateCalls[2]!.prompt, 'read_offloaded');
    expect(typeof page).toBe('string');
    expect(page).toContain(LOG_TEXT.split('\n')[0]!.replace(/\.+$/, ''));
    expect(page).toContain(LOG_TEXT.split('\n')[2]!.replace(/\.+$/, ''));
    expect(page).not.toContain(LOG_TEXT.split('\n')[3]!.replace(/\.+$/, ''));
  });

  it('compacts the over-limit history: the next prompt holds the summary, not the old messages', () => {
    const before = promptTexts(model.doGenerateCalls[2]!.prompt);
    expect(before).toContain(OLD_TURNS[1]);
    const after = promptTexts(model.doGenerateCalls[3]!.prompt);
    expect(after.some((text) => text.startsWith('[Conversation compressed]'))).toBe(true);
    for (const turn of OLD_TURNS) expect(after).not.toContain(turn);
    expect(result.steps[2]!.toolResults[0]!.output).toBe(LISTING_TEXT);
    // the exchange in flight follows the summary: the listing the model asked for is there whole
    expect(toolResultValue(model.doGenerateCalls[3]!.prompt, 'list_files')).toBe(LISTING_TEXT);
  });

  // ai 6 keeps the messages prepareStep returns for one step only: the hook applies its compaction again
  it('carries the compacted history to the last call: the same summary, no old message, the summarizer run once', () => {
    const after = promptTexts(model.doGenerateCalls[4]!.prompt);
    for (const turn of OLD_TURNS) expect(after).not.toContain(turn);
    const summaryAt = (index: number) =>
      promptTexts(model.doGenerateCalls[index]!.prompt).find((text) => text.startsWith('[Conversation compressed]'));
    expect(summaryAt(4)).toBe(summaryAt(3));
    expect(toolResultValue(model.doGenerateCalls[4]!.prompt, 'ping')).toBe('pong');
    expect(summarizer.calls).toBe(1);
  });
});

describe.each(BY_NAME)('%s: the provider usage after a compaction', (_name, major) => {
  it('is passed at every step and matched to what the previous step sent, whatever history the SDK hands back', async () => {
    const warnings: string[] = [];
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      summarizer: createCountingSummarizer(),
      logger: { warn: (message: string) => warnings.push(message) },
      ...SCENARIO_LIMITS,
    });
    const usages: unknown[] = [];
    // The manager as the hook sees it, recording the usage each step hands it.
    const recording = {
      readTool: manager.readTool,
      offloadOutput: manager.offloadOutput,
      prepare: (messages: readonly unknown[], options?: PrepareOptions) => {
        usages.push(options?.lastUsage);
        return manager.prepare(messages as never, options);
      },
    };
    const model = createScriptedModel(major, true);
    await major.ai.generateText({
      model,
      messages: oldConversation(),
      tools: offloadTools({ ...scenarioTools(major.ai), read_offloaded: createReadTool(manager) }, recording),
      prepareStep: createPrepareStep(recording),
      stopWhen: major.ai.stepCountIs(6),
    });
    expect(model.doGenerateCalls).toHaveLength(5);
    expect(usages[0]).toBeUndefined();
    // after the compaction at the 4th call, the 5th call's figure covers the compacted prompt
    const compactedLength = model.doGenerateCalls[3]!.prompt.length;
    expect(usages[4]).toEqual({
      inputTokens: estimatePromptTokens(model.doGenerateCalls[3]!.prompt),
      messageCount: compactedLength,
    });
    expect(usages.slice(1).every((usage) => usage !== undefined)).toBe(true);
    expect(warnings.filter((warning) => warning.includes('lastUsage ignored'))).toEqual([]);
  });
});

describe.each(BY_NAME)('%s: ToolLoopAgent with createPrepareStep', (_name, major) => {
  it('offloads a large tool result before the second model call', async () => {
    const { manager } = createScenarioManager(await createTempDir());
    const model = createScriptedModel(major);
    const agent = new major.ai.ToolLoopAgent({
      model,
      tools: offloadTools({ ...scenarioTools(major.ai), read_offloaded: createReadTool(manager) }, manager),
      prepareStep: createPrepareStep(manager),
      stopWhen: major.ai.stepCountIs(3),
    });
    await agent.generate({ messages: oldConversation() });
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(toolResultValue(model.doGenerateCalls[1]!.prompt, 'fetch_log')).toMatch(REFERENCE);
    expect(toolResultValue(model.doGenerateCalls[2]!.prompt, 'read_offloaded')).toContain('0001 INFO');
  });
});

describe.each(BY_NAME)('%s: wrapLanguageModel with createContextMiddleware', (_name, major) => {
  let base: MockLanguageModelV4;
  let summarizer: ReturnType<typeof createCountingSummarizer>;
  let responseMessages: ModelMessage[];

  beforeAll(async () => {
    const scenario = createScenarioManager(await createTempDir());
    const manager = scenario.manager;
    summarizer = scenario.summarizer;
    base = createScriptedModel(major);
    const result = await major.ai.generateText({
      model: major.ai.wrapLanguageModel({ model: base, middleware: createContextMiddleware(manager) }),
      messages: oldConversation(),
      tools: { ...scenarioTools(major.ai), read_offloaded: createReadTool(manager) },
      stopWhen: major.ai.stepCountIs(6),
    });
    responseMessages = major.responseMessagesOf(result);
  });

  itBehavesAsTheContextMiddleware({
    prompts: () => base.doGenerateCalls.map((call) => call.prompt),
    responseMessages: () => responseMessages,
    summarizerCalls: () => summarizer.calls,
  });
});

// the stream parts of a V4 model: ai 7's mock only
describe('ai 7: streamText with offloadTools and createPrepareStep', () => {
  it('offloads a large tool result before the second streamed model call', async () => {
    const { manager } = createScenarioManager(await createTempDir());
    const usage = {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        const chunks: LanguageModelV4StreamPart[] =
          calls === 1
            ? [
                { type: 'tool-call' as const, toolCallId: 'call-fetch', toolName: 'fetch_log', input: '{}' },
                { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage },
              ]
            : [
                { type: 'text-start' as const, id: 'text-1' },
                { type: 'text-delta' as const, id: 'text-1', delta: 'done' },
                { type: 'text-end' as const, id: 'text-1' },
                { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
              ];
        return { stream: simulateReadableStream({ chunks }) };
      },
    });
    const result = streamText({
      model,
      messages: oldConversation(),
      tools: offloadTools(scenarioTools(), manager),
      prepareStep: createPrepareStep(manager),
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe('done');
    expect(model.doStreamCalls).toHaveLength(2);
    expect(toolResultValue(model.doStreamCalls[1]!.prompt, 'fetch_log')).toMatch(REFERENCE);
  });
});

describe('withOffload', () => {
  async function managerIn(options: { threshold: number }) {
    return createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      offload: { timing: 'on-arrival', directThreshold: options.threshold },
    });
  }
  // The SDK's own call of toModelOutput, typed loosely: each tool here declares its own output type.
  const call = (output: unknown) => ({
    toolCallId: 'call-1',
    input: {} as Record<string, never>,
    output: output as never,
  });

  it('sends a small output as the SDK would: text for a string, JSON otherwise', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const wrapped = withOffload(tool({ inputSchema: emptyInput, execute: async () => 'small' }), manager, {
      toolName: 'small',
    });
    expect(await wrapped.toModelOutput!(call('small'))).toEqual({ type: 'text', value: 'small' });
    expect(await wrapped.toModelOutput!(call({ rows: [1, 2], at: undefined }))).toEqual({
      type: 'json',
      value: { rows: [1, 2] },
    });
  });

  it('offloads a large JSON output as a text reference', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const wrapped = withOffload(tool({ inputSchema: emptyInput, execute: async () => ({}) }), manager, {
      toolName: 'rows',
    });
    const output = await wrapped.toModelOutput!(
      call({ rows: Array.from({ length: 200 }, (_, index) => ({ index, name: `row-${index}` })) }),
    );
    expect(output.type).toBe('text');
    expect((output as { value: string }).value).toMatch(REFERENCE);
  });

  it("runs the tool's own toModelOutput first and offloads the text it returns", async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const wrapped = withOffload(
      tool({
        inputSchema: emptyInput,
        execute: async () => ({ log: LOG_TEXT }),
        toModelOutput: ({ output }) => ({ type: 'text', value: `log:\n${(output as { log: string }).log}` }),
      }),
      manager,
      { toolName: 'log' },
    );
    const output = await wrapped.toModelOutput!(call({ log: LOG_TEXT }));
    expect(output).toEqual({ type: 'text', value: expect.stringMatching(REFERENCE) });
  });

  it('keeps an error output an error when it offloads it', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const wrapped = withOffload(
      tool({
        inputSchema: emptyInput,
        execute: async () => LOG_TEXT,
        toModelOutput: ({ output }) => ({ type: 'error-text', value: String(output) }),
      }),
      manager,
      { toolName: 'failing' },
    );
    expect(await wrapped.toModelOutput!(call(LOG_TEXT))).toEqual({
      type: 'error-text',
      value: expect.stringMatching(REFERENCE),
    });
  });

  it('leaves a tool without execute as it is (its results come from the client)', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const clientSide = tool({ inputSchema: emptyInput });
    expect(withOffload(clientSide, manager, { toolName: 'client_side' })).toBe(clientSide);
  });

  it('does not change the tools it is given', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const tools = scenarioTools();
    const wrapped = offloadTools(tools, manager);
    expect(wrapped).not.toBe(tools);
    expect(tools.fetch_log.toModelOutput).toBeUndefined();
    expect(typeof wrapped.fetch_log.toModelOutput).toBe('function');
  });

  it('never wraps the read tool, whatever its key', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    const readTool = createReadTool(manager);
    expect(offloadTools({ pages: readTool }, manager).pages).toBe(readTool);
  });

  it('requires the tool name, which excludeTools is matched against', async () => {
    const manager = await managerIn({ threshold: 1_000 });
    expect(() => withOffload(scenarioTools().fetch_log, manager, {} as never)).toThrow(
      /toolName must be a non-empty string/,
    );
  });

  it("keeps an excluded tool's output inline", async () => {
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      offload: { directThreshold: 1_000, excludeTools: ['fetch_log'] },
    });
    const wrapped = withOffload(scenarioTools().fetch_log, manager, { toolName: 'fetch_log' });
    expect(await wrapped.toModelOutput!(call(LOG_TEXT))).toEqual({ type: 'text', value: LOG_TEXT });
  });

  it('rejects something that is not a context manager, naming it', () => {
    expect(() => offloadTools(scenarioTools(), {} as never)).toThrow(InvalidOptionError);
    expect(() => offloadTools(scenarioTools(), {} as never)).toThrow(/manager must be a context manager/);
  });
});

describe('createReadTool', () => {
  it('accepts a read tool made with createReadOffloadedTool and answers with numbered lines', async () => {
    const outputDir = await createTempDir();
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir,
      offload: { timing: 'on-arrival', directThreshold: 1_000 },
    });
    const reference = await manager.offloadOutput(LOG_TEXT, { toolName: 'fetch_log', toolCallId: 'call-x' });
    const readTool = createReadTool(createReadOffloadedTool({ outputDir }));
    const page = await readTool.execute({ ref: reference, limit: 2 });
    expect(page).toContain('0001 INFO');
    expect(page).not.toContain('0003 INFO');
  });

  it('reaches the model inline, its pages never offloaded, even when longer than the threshold', async () => {
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      offload: { timing: 'on-arrival', directThreshold: 1_000 },
    });
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        calls += 1;
        // 1: fetch the log; 2: read 40 lines (about 4,000 characters) of it back; 3: answer.
        return calls === 1
          ? scriptedResponse(0, prompt)
          : calls === 2
            ? {
                ...scriptedResponse(1, prompt),
                content: [
                  {
                    type: 'tool-call' as const,
                    toolCallId: 'call-read',
                    toolName: 'read_offloaded',
                    input: JSON.stringify({ ref: toolResultValue(prompt, 'fetch_log'), limit: 40 }),
                  },
                ],
              }
            : scriptedResponse(4, prompt);
      },
    });
    await generateText({
      model,
      messages: oldConversation(),
      tools: offloadTools({ ...scenarioTools(), read_offloaded: createReadTool(manager) }, manager),
      prepareStep: createPrepareStep(manager),
      stopWhen: stepCountIs(4),
    });
    const page = toolResultValue(model.doGenerateCalls[2]!.prompt, 'read_offloaded');
    expect(typeof page === 'string' && page.length).toBeGreaterThan(1_000);
    expect(page).toContain('0040 INFO');
    expect(page).not.toMatch(REFERENCE);
  });

  it('gives the AI SDK its JSON Schema through the Standard Schema converter', () => {
    const readTool = createReadTool(createReadOffloadedTool({ outputDir: tmpdir() }));
    expect(readTool.inputSchema['~standard'].jsonSchema.input({ target: 'draft-07' })).toMatchObject({
      required: ['ref'],
    });
  });

  it('rejects a source that is neither a manager nor a read tool', () => {
    expect(() => createReadTool({} as never)).toThrow(InvalidOptionError);
  });
});

describe('createPrepareStep', () => {
  it("passes the last step's input tokens as lastUsage, with the number of messages that step sent", async () => {
    const manager = createContextManager({ format: 'ai-sdk', outputDir: await createTempDir() });
    const seen: unknown[] = [];
    const spied = {
      ...manager,
      prepare: (messages: readonly unknown[], options?: Parameters<typeof manager.prepare>[1]) => {
        seen.push(options?.lastUsage);
        return manager.prepare(messages as never, options);
      },
    };
    const prepareStep = createPrepareStep(spied);
    const first: ModelMessage[] = oldConversation();
    await prepareStep({ messages: first, stepNumber: 0, steps: [] });
    const next: ModelMessage[] = [
      ...first,
      { role: 'assistant', content: 'thinking' },
      { role: 'user', content: 'more' },
    ];
    await prepareStep({ messages: next, stepNumber: 1, steps: [{ usage: { inputTokens: 321 } }] });
    expect(seen).toEqual([undefined, { inputTokens: 321, messageCount: first.length }]);
  });

  it('returns undefined when nothing needs doing, so the SDK sends its own messages', async () => {
    const manager = createContextManager({ format: 'ai-sdk', outputDir: await createTempDir() });
    expect(await createPrepareStep(manager)({ messages: oldConversation(), stepNumber: 0, steps: [] })).toBeUndefined();
  });

  it('rejects messages that are not an array, naming the field', async () => {
    const manager = createContextManager({ format: 'ai-sdk', outputDir: await createTempDir() });
    await expect(createPrepareStep(manager)({ messages: 'hello' as never })).rejects.toThrow(
      /options\.messages must be an array/,
    );
  });
});

describe('ai 7: the default timing, as results age', () => {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const callTool = (toolCallId: string, toolName: string) => ({
    content: [{ type: 'tool-call' as const, toolCallId, toolName, input: '{}' }],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage,
    warnings: [],
  });

  it('sends a tool output whole to the step that acts on it, then offloads it once older results pass their budget', async () => {
    // by default older outputs stay inline up to 20,000 characters; a budget of 60,000 keeps the 50,000-character log
    const roomy = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      offload: { agedBudgetChars: 60_000 },
    });
    const aging = createContextManager({ format: 'ai-sdk', outputDir: await createTempDir() });
    for (const [subject, keepsLog] of [
      [roomy, true],
      [aging, false],
    ] as const) {
      let calls = 0;
      const model = new MockLanguageModelV4({
        doGenerate: async () => {
          calls += 1;
          if (calls === 1) return callTool('call-fetch', 'fetch_log');
          if (calls === 2) return callTool('call-ping', 'ping');
          return {
            content: [{ type: 'text' as const, text: 'Done.' }],
            finishReason: { unified: 'stop' as const, raw: undefined },
            usage,
            warnings: [],
          };
        },
      });
      await generateText({
        model,
        messages: [{ role: 'user', content: 'Read the log.' }],
        tools: offloadTools(scenarioTools(), subject),
        prepareStep: createPrepareStep(subject),
        stopWhen: stepCountIs(4),
      });
      const prompts = model.doGenerateCalls.map((call) => call.prompt);
      // the log (50,000 characters) reaches the model whole in the step after the call
      expect(toolResultValue(prompts[1], 'fetch_log')).toBe(LOG_TEXT);
      // older in the next step: kept within the budget, offloaded past it
      const later = toolResultValue(prompts[2], 'fetch_log');
      if (keepsLog) expect(later).toBe(LOG_TEXT);
      else expect(later).toMatch(/^\[Content offloaded to: /);
      expect(toolResultValue(prompts[2], 'ping')).toBe('pong');
    }
  });

  it('cuts an output over maxInlineResultChars in toModelOutput: its reference, then its head and tail', async () => {
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      offload: { maxInlineResultChars: 10_000 },
    });
    const wrapped = withOffload(scenarioTools().fetch_log, manager, { toolName: 'fetch_log' });
    const output = await wrapped.toModelOutput!({ toolCallId: 'call-1', input: {}, output: LOG_TEXT as never });
    expect(output.type).toBe('text');
    const value = (output as { value: string }).value;
    expect(value).toMatch(REFERENCE);
    expect(value).toContain(
      `\nPreview (first 1000 and last 2000 of ${LOG_TEXT.length} chars):\n${LOG_TEXT.slice(0, 100)}`,
    );
    expect(value.endsWith(LOG_TEXT.slice(-2000))).toBe(true);
    const small = await withOffload(scenarioTools().ping, manager, { toolName: 'ping' }).toModelOutput!({
      toolCallId: 'call-2',
      input: {},
      output: 'x'.repeat(10_000) as never,
    });
    expect(small).toEqual({ type: 'text', value: 'x'.repeat(10_000) });
  });
});
