/**
 * `agent-context-offload/openai-agents`:
 * the real Agents SDK runner (`@openai/agents` 0.20) driving the SDK's own mock model
 * (`ScriptedModel` from `@openai/agents/testing`), offline, with real files in temp directories
 * and the default extractive summarizer. The assertions are on what the mock model received.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  MemorySession,
  run,
  setTracingDisabled,
  tool,
  type AgentInputItem,
  type FunctionTool,
} from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponder,
  ScriptedModel,
  type RecordedModelCall,
} from '@openai/agents/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createContextManager } from '../../../src/api/context-manager.js';
import { createReadOffloadedTool } from '../../../src/api/read-offloaded-tool.js';
import { InvalidOptionError } from '../../../src/core/errors.js';
import { createFileStore } from '../../../src/stores/file-store.js';
import {
  createCallModelInputFilter,
  createCompactingSession,
  createReadTool,
  offloadTools,
  withOffload,
  type IntegrationContextManager,
} from '../../../src/openai-agents.js';

const directories: string[] = [];

async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'aco-openai-agents-'));
  directories.push(directory);
  return directory;
}

beforeAll(() => setTracingDisabled(true));
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A build log of `lines` lines; line 1234 (when there is one) holds the one error. */
function buildLog(lines: number): string {
  return Array.from({ length: lines }, (_, index) =>
    index + 1 === 1234
      ? 'line 1234 ERROR: cannot resolve module "left-pad"'
      : `line ${index + 1} ok: compiled src/module-${index + 1}.ts in ${index % 97} ms`,
  ).join('\n');
}

const LOG = buildLog(2000);
const REFERENCE = /^\[(Content offloaded to|Tool result offloaded to file): [^\]\n]+\]$/;

/** Prose of about `words` words, for turns that weigh on the window without any tool result. */
function prose(words: number, topic: string): string {
  return Array.from({ length: words }, (_, index) => `${topic}${index % 13 === 12 ? '.' : ''}`).join(' ');
}

const fetchLog = tool({
  name: 'fetch_build_log',
  description: 'Returns the full build log of the last CI run.',
  parameters: z.object({}),
  execute: async () => LOG,
});

const lookup = tool({
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => `definition of ${word}`,
});

/** The text of a `function_call_result`'s output: a string, a `{ type: 'text' }` output, or parts. */
function outputText(item: AgentInputItem | undefined): string {
  if (item === undefined || item.type !== 'function_call_result')
    throw new Error(`not a function_call_result: ${JSON.stringify(item)}`);
  const output: unknown = item.output;
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: { text?: string }) => part.text ?? '').join('');
  return (output as { text?: string }).text ?? '';
}

function inputOf(call: RecordedModelCall | undefined): AgentInputItem[] {
  const input = call?.request.input;
  if (!Array.isArray(input)) throw new Error(`the model was called with ${JSON.stringify(input)}`);
  return input;
}

function resultFor(input: readonly AgentInputItem[], callId: string): AgentInputItem | undefined {
  return input.find((item) => item.type === 'function_call_result' && item.callId === callId);
}

/** Every text an input holds (messages and tool outputs), one string. */
function textOf(input: readonly AgentInputItem[]): string {
  return JSON.stringify(input);
}

function managerFor(
  outputDir: string,
  options: Partial<Parameters<typeof createContextManager>[0]> = {},
): IntegrationContextManager {
  // The extractive summarizer says once that it is not an LLM; the tests know.
  return createContextManager({
    format: 'openai-agents',
    outputDir,
    logger: { warn: () => undefined },
    // assistant prose over the inline limit would leave by offload: these turns stand for history a compaction must take
    offload: { timing: 'on-arrival', directThreshold: 2000, maxInlineResultChars: 100_000 },
    ...options,
  });
}

describe('createCallModelInputFilter', () => {
  /** The loop of the issue: fetch the log, read it back by pattern, answer. */
  async function runLogLoop(outputDir: string) {
    const manager = managerFor(outputDir);
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('fetch_build_log', {}, { callId: 'call_log' })]),
      modelResponder((call) => {
        const reference = outputText(resultFor(inputOf(call), 'call_log'));
        return [functionCall('read_offloaded', { ref: reference, pattern: 'ERROR' }, { callId: 'call_read' })];
      }),
      modelResponder(() => [assistantMessage('The build fails at line 1234: left-pad cannot be resolved.')]),
    ]);
    const agent = new Agent({
      name: 'ci-doctor',
      instructions: 'Find why the build fails.',
      model,
      tools: [fetchLog, createReadTool(manager)],
    });
    const result = await run(agent, 'Why does the build fail?', {
      callModelInputFilter: createCallModelInputFilter(manager),
    });
    return { model, result };
  }

  it('offloads a large tool result before the model sees it: the next model input holds the reference', async () => {
    const outputDir = await tempDir();
    const { model } = await runLogLoop(outputDir);

    const seen = outputText(resultFor(inputOf(model.calls[1]), 'call_log'));
    expect(seen).toMatch(REFERENCE);
    expect(textOf(inputOf(model.calls[1]))).not.toContain('line 1999 ok');
    const files = await readdir(outputDir, { recursive: true });
    const stored = await Promise.all(
      files.filter((name) => name.endsWith('.md')).map((name) => readFile(join(outputDir, name), 'utf8')),
    );
    expect(stored).toContain(LOG);
  });

  it('lets the model read the offloaded result back with the read tool', async () => {
    const { model } = await runLogLoop(await tempDir());

    expect(model.calls).toHaveLength(3);
    const answer = outputText(resultFor(inputOf(model.calls[2]), 'call_read'));
    expect(answer).toMatch(/^\s*1234:\tline 1234 ERROR: cannot resolve module "left-pad"$/m);
    expect(answer).not.toContain('line 1999 ok');
  });

  it('changes only the model call: the run keeps the full tool output', async () => {
    const { result } = await runLogLoop(await tempDir());

    expect(outputText(resultFor(result.history, 'call_log'))).toBe(LOG);
  });

  it('compacts an over-limit history: a later model input holds the summary instead of the old turns', async () => {
    const outputDir = await tempDir();
    const manager = managerFor(outputDir, { contextTokenLimit: 1000 });
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [functionCall('lookup', { word: 'charlie' }, { callId: 'call_3' })]),
      modelResponder(() => [assistantMessage('done')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });
    await run(agent, 'Look up three words.', { callModelInputFilter: createCallModelInputFilter(manager) });

    expect(model.calls).toHaveLength(4);
    expect(textOf(inputOf(model.calls[1]))).not.toContain('[Conversation compressed]');
    const compacted = inputOf(model.calls[2]);
    expect(textOf(compacted)).toContain('[Conversation compressed]');
    expect(textOf(compacted)).not.toContain(prose(500, 'alpha'));
    expect(compacted.length).toBeLessThan(inputOf(model.calls[1]).length + 3);
  });

  it('keeps the compacted prefix byte for byte on the calls after a compaction (summarized once)', async () => {
    const outputDir = await tempDir();
    let compactions = 0;
    const manager = managerFor(outputDir, { contextTokenLimit: 1000, onCompact: () => void (compactions += 1) });
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [functionCall('lookup', { word: 'charlie' }, { callId: 'call_3' })]),
      modelResponder(() => [assistantMessage('done')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });
    await run(agent, 'Look up three words.', { callModelInputFilter: createCallModelInputFilter(manager) });

    const third = inputOf(model.calls[2]);
    const fourth = inputOf(model.calls[3]);
    expect(JSON.stringify(fourth.slice(0, third.length))).toBe(JSON.stringify(third));
    expect(compactions).toBe(1);
  });

  it('reuses a compaction in the next run over the same session, whose items are fresh copies: the summary comes back byte for byte', async () => {
    let compactions = 0;
    const manager = managerFor(await tempDir(), { contextTokenLimit: 1000, onCompact: () => void (compactions += 1) });
    const filter = createCallModelInputFilter(manager);
    const session = new MemorySession();
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [assistantMessage('Both looked up.')]),
      modelResponder(() => [assistantMessage('Nothing else.')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });

    await run(agent, 'Look up two words.', { session, callModelInputFilter: filter });
    await run(agent, 'Anything else?', { session, callModelInputFilter: filter });

    expect(compactions).toBe(1);
    const before = inputOf(model.calls[2]);
    const after = inputOf(model.calls[3]);
    const summaryOf = (input: readonly AgentInputItem[]) =>
      input.find((item) => JSON.stringify(item).includes('[Conversation compressed]'));
    expect(JSON.stringify(summaryOf(after))).toBe(JSON.stringify(summaryOf(before)));
    // the first run's request was sent again during that run (so its session kept it); the next
    // run's request is this one. The session keeps the model's calls without their ids.
    const withoutIds = (items: readonly AgentInputItem[]) =>
      JSON.stringify(items.map(({ id: _id, ...item }: AgentInputItem & { id?: unknown }) => item));
    expect(withoutIds(after.slice(0, before.length - 1))).toBe(withoutIds(before.slice(1)));
    expect(textOf(after)).toContain('Anything else?');
    // the session itself was not changed by the filter
    expect(textOf(await session.getItems())).toContain(prose(500, 'alpha'));
  });

  it('keeps the run’s own request in the session when it compacts during the run', async () => {
    const manager = managerFor(await tempDir(), { contextTokenLimit: 1000 });
    const session = new MemorySession();
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [assistantMessage('Both looked up.')]),
    ]);

    await run(new Agent({ name: 'notes', model, tools: [lookup] }), 'Look up two words.', {
      session,
      callModelInputFilter: createCallModelInputFilter(manager),
    });

    expect(textOf(inputOf(model.calls[2]))).toContain('[Conversation compressed]');
    const stored = await session.getItems();
    expect(stored[0]).toMatchObject({ role: 'user', content: 'Look up two words.' });
    expect(textOf(stored)).not.toContain('[Conversation compressed]');
    expect(stored.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'message',
      'function_call',
      'function_call_result',
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);
  });

  it('compacts a long history given as the run’s input on the first call, the request after the summary', async () => {
    const manager = managerFor(await tempDir(), { contextTokenLimit: 1000 });
    const model = new ScriptedModel([modelResponder(() => [assistantMessage('ok')])]);
    const history: AgentInputItem[] = [
      { role: 'user', content: 'Describe alpha.' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: prose(600, 'alpha') }] },
      { role: 'user', content: 'Describe bravo.' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: prose(600, 'bravo') }] },
      { role: 'user', content: 'Now compare them.' },
    ];

    await run(new Agent({ name: 'notes', model }), history, {
      callModelInputFilter: createCallModelInputFilter(manager),
    });

    const sent = inputOf(model.calls[0]);
    expect(textOf(sent)).toContain('[Conversation compressed]');
    expect(textOf(sent)).not.toContain(prose(600, 'alpha'));
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'Now compare them.' });
  });

  it('returns the input as it is when nothing needs doing', async () => {
    const manager = managerFor(await tempDir());
    const filter = createCallModelInputFilter(manager);
    const modelData = { input: [{ role: 'user', content: 'hello' } as AgentInputItem], instructions: 'Be brief.' };

    const filtered = await filter({ modelData, agent: new Agent({ name: 'a' }), context: undefined });

    expect(filtered).toBe(modelData);
  });

  it('asks the runner for the items themselves (preserveInputIdentity)', async () => {
    expect(createCallModelInputFilter(managerFor(await tempDir())).preserveInputIdentity).toBe(true);
  });

  it('rejects a manager that is not a context manager, naming it', () => {
    expect(() => createCallModelInputFilter({ prepare: 'no' } as unknown as IntegrationContextManager)).toThrow(
      InvalidOptionError,
    );
    expect(() => createCallModelInputFilter({ prepare: 'no' } as unknown as IntegrationContextManager)).toThrow(
      /manager must be a context manager.*prepare is "no"/,
    );
  });
});

describe('createCompactingSession', () => {
  it('compacts the stored history after a turn, so the next run starts from the summary', async () => {
    const outputDir = await tempDir();
    const manager = managerFor(outputDir, { contextTokenLimit: 1000 });
    const inner = new MemorySession();
    const session = createCompactingSession(inner, manager);
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [assistantMessage('Both words looked up.')]),
      modelResponder(() => [assistantMessage('Nothing else to do.')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });

    await run(agent, 'Look up two words.', { session });
    const stored = await inner.getItems();
    expect(textOf(stored)).toContain('[Conversation compressed]');
    expect(textOf(stored)).not.toContain(prose(500, 'alpha'));

    await run(agent, 'Anything else?', { session });
    const nextInput = inputOf(model.calls[3]);
    expect(textOf(nextInput)).toContain('[Conversation compressed]');
    expect(textOf(nextInput)).toContain('Anything else?');
    expect(textOf(nextInput)).not.toContain(prose(500, 'bravo'));
  });

  it('stores what the input filter sent, in a streamed run: one summary, not two', async () => {
    let compactions = 0;
    const manager = managerFor(await tempDir(), { contextTokenLimit: 1000, onCompact: () => void (compactions += 1) });
    const inner = new MemorySession();
    const model = new ScriptedModel([
      modelResponder(() => [
        assistantMessage(prose(500, 'alpha')),
        functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' }),
      ]),
      modelResponder(() => [
        assistantMessage(prose(500, 'bravo')),
        functionCall('lookup', { word: 'bravo' }, { callId: 'call_2' }),
      ]),
      modelResponder(() => [assistantMessage('Both looked up.')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });

    const streamed = await run(agent, 'Look up two words.', {
      stream: true,
      session: createCompactingSession(inner, manager),
      callModelInputFilter: createCallModelInputFilter(manager),
    });
    for await (const _event of streamed) {
      // drain the stream
    }
    await streamed.completed;

    expect(model.calls.every((call) => call.streamed)).toBe(true);
    expect(textOf(inputOf(model.calls[2]))).toContain('[Conversation compressed]');
    const stored = await inner.getItems();
    expect(compactions).toBe(1);
    // what the filter sent, as the session keeps items: without the ids of the model's calls
    const withoutIds = (items: readonly AgentInputItem[]) =>
      JSON.stringify(items.map(({ id: _id, ...item }: AgentInputItem & { id?: unknown }) => item));
    expect(withoutIds(stored.slice(0, 4))).toBe(withoutIds(inputOf(model.calls[2]).slice(0, 4)));
    expect(stored[0]).toMatchObject({ role: 'user', content: 'Look up two words.' });
    expect(textOf(stored)).toContain('[Conversation compressed]');
    expect(textOf(stored)).not.toContain(prose(500, 'alpha'));
    expect(stored.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Both looked up.' }],
    });
  });

  it('offloads large tool outputs in the stored history', async () => {
    const outputDir = await tempDir();
    const manager = managerFor(outputDir);
    const inner = new MemorySession();
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('fetch_build_log', {}, { callId: 'call_log' })]),
      modelResponder(() => [assistantMessage('Read it.')]),
    ]);
    const agent = new Agent({ name: 'ci-doctor', model, tools: [fetchLog] });

    await run(agent, 'Fetch the log.', { session: createCompactingSession(inner, manager) });

    const stored = await inner.getItems();
    expect(outputText(resultFor(stored, 'call_log'))).toMatch(REFERENCE);
    expect(textOf(stored)).not.toContain('line 1999 ok');
  });

  it('leaves the stored history alone when nothing needs doing', async () => {
    const manager = managerFor(await tempDir());
    const inner = new MemorySession();
    const rewrites: unknown[] = [];
    const session = createCompactingSession(inner, manager, { onRewrite: (rewrite) => rewrites.push(rewrite) });
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' })]),
      modelResponder(() => [assistantMessage('alpha: a letter.')]),
    ]);

    await run(new Agent({ name: 'notes', model, tools: [lookup] }), 'Define alpha.', { session });

    const stored = await inner.getItems();
    expect(stored.map((item) => item.type ?? 'message')).toEqual([
      'message',
      'function_call',
      'function_call_result',
      'message',
    ]);
    expect(rewrites).toEqual([]);
  });

  it('leaves the stored history alone when the input filter had nothing to do either', async () => {
    const manager = managerFor(await tempDir());
    const rewrites: unknown[] = [];
    const session = createCompactingSession(new MemorySession(), manager, {
      onRewrite: (rewrite) => rewrites.push(rewrite),
    });
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' })]),
      modelResponder(() => [assistantMessage('alpha: a letter.')]),
      modelResponder(() => [assistantMessage('bravo: a word.')]),
    ]);
    const agent = new Agent({ name: 'notes', model, tools: [lookup] });
    const callModelInputFilter = createCallModelInputFilter(manager);

    await run(agent, 'Define alpha.', { session, callModelInputFilter });
    await run(agent, 'Define bravo.', { session, callModelInputFilter });

    expect(rewrites).toEqual([]);
    expect(await session.getItems()).toHaveLength(6);
  });

  it('stores through the wrapped session (same id, same items)', async () => {
    const inner = new MemorySession({ sessionId: 'session-1' });
    const session = createCompactingSession(inner, managerFor(await tempDir()));
    await session.addItems([{ role: 'user', content: 'hello' }]);

    expect(await session.getSessionId()).toBe('session-1');
    expect(await inner.getItems()).toEqual([{ role: 'user', content: 'hello' }]);
    expect(await session.popItem()).toEqual({ role: 'user', content: 'hello' });
    expect(await inner.getItems()).toEqual([]);
  });

  it('rejects what is not a session, naming the missing methods', async () => {
    const manager = managerFor(await tempDir());
    expect(() => createCompactingSession({ getItems: async () => [] } as never, manager)).toThrow(
      /session must be an Agents SDK Session.*without getSessionId\(\)/,
    );
  });
});

describe('withOffload / offloadTools', () => {
  it('replaces a large output with its reference before anything stores it', async () => {
    const outputDir = await tempDir();
    const manager = managerFor(outputDir);
    const inner = new MemorySession();
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('fetch_build_log', {}, { callId: 'call_log' })]),
      modelResponder(() => [assistantMessage('Got it.')]),
    ]);

    const result = await run(
      new Agent({ name: 'ci-doctor', model, tools: [withOffload(fetchLog, manager)] }),
      'Fetch the log.',
      { session: inner },
    );

    expect(outputText(resultFor(inputOf(model.calls[1]), 'call_log'))).toMatch(REFERENCE);
    expect(outputText(resultFor(result.history, 'call_log'))).toMatch(REFERENCE);
    expect(outputText(resultFor(await inner.getItems(), 'call_log'))).toMatch(REFERENCE);
    const read = await createReadOffloadedTool({ outputDir }).execute({
      ref: outputText(resultFor(result.history, 'call_log')),
      pattern: 'ERROR',
    });
    expect(read).toContain('ERROR: cannot resolve module "left-pad"');
  });

  it('offloads a large JSON output as the text the SDK would send', async () => {
    const outputDir = await tempDir();
    const manager = managerFor(outputDir);
    const rows = Array.from({ length: 300 }, (_, index) => ({
      id: index,
      name: `row ${index}`,
      status: index === 217 ? 'failed' : 'ok',
    }));
    const fetchRows = tool({
      name: 'fetch_rows',
      description: 'Returns every row.',
      parameters: z.object({}),
      execute: async () => rows,
    });
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('fetch_rows', {}, { callId: 'call_rows' })]),
      modelResponder(() => [assistantMessage('ok')]),
    ]);

    await run(new Agent({ name: 'rows', model, tools: [withOffload(fetchRows, manager)] }), 'Fetch the rows.');

    const reference = outputText(resultFor(inputOf(model.calls[1]), 'call_rows'));
    expect(reference).toMatch(REFERENCE);
    const read = await createReadOffloadedTool({ outputDir }).execute({ ref: reference, pattern: 'failed' });
    expect(read).toContain('"id":217');
  });

  it('returns a small output as it is', async () => {
    const manager = managerFor(await tempDir());
    const model = new ScriptedModel([
      modelResponder(() => [functionCall('lookup', { word: 'alpha' }, { callId: 'call_1' })]),
      modelResponder(() => [assistantMessage('ok')]),
    ]);

    const result = await run(
      new Agent({ name: 'notes', model, tools: offloadTools([lookup], manager) }),
      'Define alpha.',
    );

    expect(outputText(resultFor(result.history, 'call_1'))).toBe('definition of alpha');
  });

  it('leaves the tool it wraps unchanged, and tools with an outputSchema or the read tool unwrapped', async () => {
    const manager = managerFor(await tempDir());
    const invoke = fetchLog.invoke;
    const wrapped = withOffload(fetchLog, manager);
    const readTool = createReadTool(manager);
    const typed = {
      ...lookup,
      outputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    } as unknown as FunctionTool;

    expect(wrapped).not.toBe(fetchLog);
    expect(fetchLog.invoke).toBe(invoke);
    expect(wrapped.name).toBe(fetchLog.name);
    expect(withOffload(typed, manager)).toBe(typed);
    expect(offloadTools([readTool], manager)[0]).toBe(readTool);
  });

  it('leaves an agent used as a tool as it is (the SDK tracks it by identity)', async () => {
    const manager = managerFor(await tempDir());
    const helper = new Agent({ name: 'helper', instructions: 'Help.' }).asTool({
      toolName: 'helper',
      toolDescription: 'Helps.',
    });

    expect(offloadTools([helper, lookup], manager)[0]).toBe(helper);
  });

  it('rejects what is not a function tool', async () => {
    const manager = managerFor(await tempDir());
    expect(() => withOffload({ type: 'hosted_tool', name: 'web_search' } as never, manager)).toThrow(
      /tool must be an Agents SDK function tool/,
    );
  });
});

describe('withOffload with the default timing, as results age', () => {
  it('returns an output whole up to maxInlineResultChars, and a larger one as its reference, head and tail', async () => {
    const outputDir = await tempDir();
    // a 20,000-token window: a new output is whole up to 40,000 characters
    const manager = createContextManager({
      format: 'openai-agents',
      outputDir,
      contextTokenLimit: 20_000,
      logger: { warn: () => undefined },
    });
    const mid = buildLog(600);
    const fetchMid = tool({
      name: 'fetch_short_log',
      description: 'Returns the short log.',
      parameters: z.object({}),
      execute: async () => mid,
    });
    const model = new ScriptedModel([
      modelResponder(() => [
        functionCall('fetch_build_log', {}, { callId: 'call_log' }),
        functionCall('fetch_short_log', {}, { callId: 'call_mid' }),
      ]),
      modelResponder(() => [assistantMessage('Got both.')]),
    ]);

    await run(
      new Agent({ name: 'ci-doctor', model, tools: offloadTools([fetchLog, fetchMid], manager) }),
      'Fetch the logs.',
    );

    const input = inputOf(model.calls[1]);
    expect(mid.length).toBeLessThan(40_000);
    expect(outputText(resultFor(input, 'call_mid'))).toBe(mid);
    const cut = outputText(resultFor(input, 'call_log'));
    // in a 20,000-token window a cut keeps 3% of it: 800 characters of head, 1,600 of tail
    expect(cut).toMatch(
      /^\[Tool result offloaded to file: [^\]\n]+\]\nRead in pages \(\d+ lines, about \d+ lines a page\): pass an offset and a limit, or search it\.\nPreview \(first 800 and last 1600 of \d+ chars\):\nline 1 ok/,
    );
    expect(cut.endsWith(LOG.slice(-1600))).toBe(true);
    const read = await createReadOffloadedTool({ outputDir }).execute({ ref: cut.split('\n')[0]!, pattern: 'ERROR' });
    expect(read).toContain('ERROR: cannot resolve module "left-pad"');
  });
});

describe('createReadTool', () => {
  it('builds a non-strict function tool from a read tool made over a store', async () => {
    const readTool = createReadOffloadedTool({ store: createFileStore({ dir: await tempDir() }) });
    const agentTool = createReadTool(readTool);

    expect(agentTool).toMatchObject({
      type: 'function',
      name: 'read_offloaded',
      strict: false,
      parameters: readTool.inputSchema,
    });
    expect(await agentTool.needsApproval(undefined as never, {}, 'call_1')).toBe(false);
  });

  it('answers a reference it does not know with a message, not a failed run', async () => {
    const agentTool = createReadTool(managerFor(await tempDir()));
    const answer = await agentTool.invoke(undefined as never, JSON.stringify({ ref: '/etc/passwd' }));
    expect(typeof answer).toBe('string');
    expect(answer).not.toContain('root:');
  });

  it('rejects a source that is neither a read tool nor a manager with one', () => {
    expect(() => createReadTool({} as never)).toThrow(
      /source must be a read tool .* or a context manager with a readTool/,
    );
  });
});
