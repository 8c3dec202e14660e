/**
 * agent-context-offload/ai-sdk with `ai` 6 (installed as `ai-v6`; issue 8 item 2, DESIGN §9):
 * the same loop as ai-sdk.test.ts on the real ai 6 generateText / ToolLoopAgent /
 * wrapLanguageModel and its MockLanguageModelV3. In ai 6 a `messages` returned by prepareStep
 * lasts one step only: the hook must re-apply the compaction it did, not redo it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, tool, ToolLoopAgent, wrapLanguageModel, type ModelMessage } from 'ai-v6';
import { MockLanguageModelV3 } from 'ai-v6/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextMiddleware, createPrepareStep, createReadTool, offloadTools } from '../../src/ai-sdk.js';
import { createContextManager, type PrepareOptions } from '../../src/api/context-manager.js';
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
  const directory = await mkdtemp(join(tmpdir(), 'aco-ai-sdk-v6-'));
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

const emptyInput = jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });

function scenarioTools() {
  return {
    fetch_log: tool({ description: 'Fetches the request log.', inputSchema: emptyInput, execute: async () => LOG_TEXT }),
    list_files: tool({ description: 'Lists the files.', inputSchema: emptyInput, execute: async () => LISTING_TEXT }),
    ping: tool({ description: 'Pings.', inputSchema: emptyInput, execute: async () => 'pong' }),
  };
}

/** A MockLanguageModelV3 that answers each call as the scenario scripts it; with `reportUsage`, it reports a prompt size too. */
function createScriptedModel(reportUsage = false): MockLanguageModelV3 {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => scriptedResponse(calls++, options.prompt, reportUsage ? estimatePromptTokens(options.prompt) : undefined),
  });
}

function createScenarioManager(outputDir: string) {
  const summarizer = createCountingSummarizer();
  const manager = createContextManager({ format: 'ai-sdk', outputDir, summarizer, ...SCENARIO_LIMITS, excludeTools: [...SCENARIO_LIMITS.excludeTools] });
  return { manager, summarizer };
}

describe('ai 6: generateText with offloadTools, createPrepareStep and the read tool', () => {
  let model: MockLanguageModelV3;
  let summarizer: ReturnType<typeof createCountingSummarizer>;
  let responseMessages: ModelMessage[];
  let rawFirstOutput: unknown;

  beforeAll(async () => {
    const scenario = createScenarioManager(await createTempDir());
    summarizer = scenario.summarizer;
    model = createScriptedModel();
    const result = await generateText({
      model,
      messages: oldConversation(),
      tools: offloadTools({ ...scenarioTools(), read_offloaded: createReadTool(scenario.manager) }, scenario.manager),
      prepareStep: createPrepareStep(scenario.manager),
      stopWhen: stepCountIs(6),
    });
    responseMessages = result.response.messages;
    rawFirstOutput = result.steps[0]!.toolResults[0]!.output;
  });

  it('runs the five model calls of the loop', () => {
    expect(model.doGenerateCalls).toHaveLength(5);
  });

  it('offloads the 50 KB tool result before the model sees it: the next prompt holds the reference', () => {
    expect(toolResultValue(model.doGenerateCalls[1]!.prompt, 'fetch_log')).toMatch(REFERENCE);
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt).length).toBeLessThan(5_000);
  });

  it('keeps the reference in response.messages and the raw output in steps[0].toolResults', () => {
    expect(JSON.stringify(responseMessages)).not.toContain(LOG_MIDDLE_LINE);
    expect(rawFirstOutput).toBe(LOG_TEXT);
  });

  it('gives the content back when the model calls the read tool with the reference', () => {
    const page = toolResultValue(model.doGenerateCalls[2]!.prompt, 'read_offloaded');
    expect(page).toContain('0001 INFO');
    expect(page).not.toContain('0004 INFO');
  });

  it('compacts the over-limit history: the next prompt holds the summary, not the old messages', () => {
    expect(promptTexts(model.doGenerateCalls[2]!.prompt)).toContain(OLD_TURNS[1]);
    const after = promptTexts(model.doGenerateCalls[3]!.prompt);
    expect(after.some((text) => text.startsWith('[Conversation compressed]'))).toBe(true);
    for (const turn of OLD_TURNS) expect(after).not.toContain(turn);
  });

  it('re-applies the compaction at the next step (ai 6 drops a returned messages) without summarizing again', () => {
    const after = promptTexts(model.doGenerateCalls[4]!.prompt);
    for (const turn of OLD_TURNS) expect(after).not.toContain(turn);
    const summaryAt = (index: number) => promptTexts(model.doGenerateCalls[index]!.prompt).find((text) => text.startsWith('[Conversation compressed]'));
    expect(summaryAt(4)).toBe(summaryAt(3));
    expect(toolResultValue(model.doGenerateCalls[4]!.prompt, 'ping')).toBe('pong');
    expect(summarizer.calls).toBe(1);
  });
});

describe('ai 6: the provider usage after a compaction', () => {
  it('is passed at every step and matched to what the previous step sent, although ai 6 hands back the original history', async () => {
    const warnings: string[] = [];
    const manager = createContextManager({
      format: 'ai-sdk',
      outputDir: await createTempDir(),
      summarizer: createCountingSummarizer(),
      logger: { warn: (message: string) => warnings.push(message) },
      ...SCENARIO_LIMITS,
      excludeTools: [...SCENARIO_LIMITS.excludeTools],
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
    const model = createScriptedModel(true);
    await generateText({
      model,
      messages: oldConversation(),
      tools: offloadTools({ ...scenarioTools(), read_offloaded: createReadTool(manager) }, recording),
      prepareStep: createPrepareStep(recording),
      stopWhen: stepCountIs(6),
    });
    expect(model.doGenerateCalls).toHaveLength(5);
    expect(usages[0]).toBeUndefined();
    // after the compaction at the 4th call, the 5th call's figure covers the compacted prompt
    const compactedLength = model.doGenerateCalls[3]!.prompt.length;
    expect(usages[4]).toEqual({ inputTokens: estimatePromptTokens(model.doGenerateCalls[3]!.prompt), messageCount: compactedLength });
    expect(usages.slice(1).every((usage) => usage !== undefined)).toBe(true);
    expect(warnings.filter((warning) => warning.includes('lastUsage ignored'))).toEqual([]);
  });
});

describe('ai 6: ToolLoopAgent with createPrepareStep', () => {
  it('offloads a large tool result before the second model call', async () => {
    const { manager } = createScenarioManager(await createTempDir());
    const model = createScriptedModel();
    const agent = new ToolLoopAgent({
      model,
      tools: offloadTools({ ...scenarioTools(), read_offloaded: createReadTool(manager) }, manager),
      prepareStep: createPrepareStep(manager),
      stopWhen: stepCountIs(3),
    });
    await agent.generate({ messages: oldConversation() });
    expect(toolResultValue(model.doGenerateCalls[1]!.prompt, 'fetch_log')).toMatch(REFERENCE);
    expect(toolResultValue(model.doGenerateCalls[2]!.prompt, 'read_offloaded')).toContain('0001 INFO');
  });
});

describe('ai 6: wrapLanguageModel with createContextMiddleware', () => {
  let base: MockLanguageModelV3;
  let summarizer: ReturnType<typeof createCountingSummarizer>;
  let responseMessages: ModelMessage[];

  beforeAll(async () => {
    const scenario = createScenarioManager(await createTempDir());
    const manager = scenario.manager;
    summarizer = scenario.summarizer;
    base = createScriptedModel();
    const result = await generateText({
      model: wrapLanguageModel({ model: base, middleware: createContextMiddleware(manager) }),
      messages: oldConversation(),
      tools: { ...scenarioTools(), read_offloaded: createReadTool(manager) },
      stopWhen: stepCountIs(6),
    });
    responseMessages = result.response.messages;
  });

  itBehavesAsTheContextMiddleware({
    prompts: () => base.doGenerateCalls.map((call) => call.prompt),
    responseMessages: () => responseMessages,
    summarizerCalls: () => summarizer.calls,
  });
});
