/**
 * `createContextManager` as users call it (a compacted context fits with room to spare,
 * counting calibrates itself): real files in temp dirs, the
 * o200k counter, real compaction, and an agent loop with the real Anthropic SDK over HTTP
 * against the local fake provider.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { countTokens } from '../../../src/api/tokens.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import { InvalidOptionError, UnsafePathError } from '../../../src/core/errors.js';
import type { ContextAction, ContextCompactAction } from '../../../src/core/manage/types.js';
import type { Logger } from '../../../src/core/ports.js';
import type { ContentBlock, Message } from '../../../src/core/types.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';
import {
  anthropicMessage,
  startFakeProviderServer,
  type FakeProviderServer,
} from '../../fixtures/scripted-llm-server.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { warn: (message) => void warnings.push(message) };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-manager-'));
  warnings.length = 0;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function words(count: number, seed: string): string {
  return Array.from({ length: count }, (_, index) => `${seed}${index % 97}`).join(' ');
}

function toolTurn(id: string, name: string, input: Record<string, unknown>, result: string): Message[] {
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Calling ${name}.` },
        { type: 'tool_use', id, name, input },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

/** The 16 hex digits of sha256 a manager's content name carries. */
function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function resultOf(message: Message | undefined): unknown {
  const blocks = message?.content as Array<{ type: string; content?: unknown }> | undefined;
  return blocks?.find((block) => block.type === 'tool_result')?.content;
}

describe('createContextManager: options are checked once, at creation', () => {
  it.each([
    ['neither outputDir nor store', {}, /pass store or outputDir/],
    [
      'both outputDir and store',
      { outputDir: 'x', store: createMemoryStore() },
      /pass either store or outputDir, not both/,
    ],
    ['an unknown format', { outputDir: 'x', format: 'cohere' }, /format must be one of "anthropic"/],
    [
      'an unknown provider',
      { outputDir: 'x', provider: 'google' },
      /provider must be "anthropic", "openai" or "other", got "google"/,
    ],
    [
      'a cost ratio below 0',
      { outputDir: 'x', cost: { readRatio: -0.1 } },
      /^cost\.readRatio must be a finite number >= 0, got -0.1$/,
    ],
    ['an unknown cost family', { outputDir: 'x', cost: { family: 'gemini' } }, /^cost\.family must be/],
    [
      'a direct threshold below 1',
      { outputDir: 'x', offload: { directThreshold: 0 } },
      /^offload\.directThreshold must be a number >= 1, got 0$/,
    ],
    [
      'a ratio over 1',
      { outputDir: 'x', offload: { ratioThreshold: 1.5 } },
      /^offload\.ratioThreshold must be a number in \[0, 1\], got 1.5$/,
    ],
    ['a hook that is not a function', { outputDir: 'x', onCompact: 'yes' }, /onCompact must be a function, got "yes"/],
    ['a store without its methods', { store: { kind: 'file' } }, /store must be a ContentStore/],
    [
      'a summarizer without summarize()',
      { outputDir: 'x', summarizer: {} },
      /summarizer must be an object with summarize\(\)/,
    ],
    [
      'a window that is not an integer',
      { outputDir: 'x', contextTokenLimit: 1000.5 },
      /contextTokenLimit must be an integer >= 1/,
    ],
    [
      'an unknown offload timing',
      { outputDir: 'x', offload: { timing: 'later' } },
      /^offload\.timing must be "as-they-age" or "on-arrival", got "later"$/,
    ],
    [
      'a bound of a new result below 1',
      { outputDir: 'x', offload: { maxInlineResultChars: 0 } },
      /^offload\.maxInlineResultChars must be an integer >= 1 \(a number of characters\), got 0$/,
    ],
    [
      'a budget of older results that is not an integer',
      { outputDir: 'x', offload: { agedBudgetChars: 10.5 } },
      /^offload\.agedBudgetChars must be an integer >= 1 \(a number of characters\), got 10.5$/,
    ],
  ])('rejects %s, naming the option', (_, options, message) => {
    expect(() => createContextManager(options as never)).toThrow(InvalidOptionError);
    expect(() => createContextManager(options as never)).toThrow(message);
  });

  it('rejects a sessionId that cannot be a folder name', () => {
    expect(() => createContextManager({ outputDir: root, sessionId: '../other' })).toThrow(UnsafePathError);
  });

  it('reads no environment variable: a bad OFFLOAD_CHAR_THRESHOLD does not reach it', () => {
    const saved = process.env.OFFLOAD_CHAR_THRESHOLD;
    process.env.OFFLOAD_CHAR_THRESHOLD = 'many';
    try {
      expect(() => createContextManager({ outputDir: root })).not.toThrow();
    } finally {
      if (saved === undefined) delete process.env.OFFLOAD_CHAR_THRESHOLD;
      else process.env.OFFLOAD_CHAR_THRESHOLD = saved;
    }
  });
});

describe('createContextManager over a file store', () => {
  it('writes direct offloads to <outputDir>/<sessionId>/<id>-<content hash>.md, referenced by absolute path, readable with readTool', async () => {
    const outputDir = join(root, 'context');
    const manager = createContextManager({
      outputDir,
      sessionId: 'session-1',
      logger,
      offload: { timing: 'on-arrival' },
    });
    const output = `${words(400, 'line')}\nneedle: found it\n${words(100, 'tail')}`;
    const result = await manager.prepare([
      { role: 'user', content: 'Search the logs.' },
      ...toolTurn('toolu_1', 'bash', { command: 'grep' }, output),
    ]);

    const path = join(outputDir, 'session-1', `toolu_1-${contentHash(output)}.md`);
    expect(await readFile(path, 'utf8')).toBe(output);
    expect(resultOf(result.messages[2])).toBe(`[Tool result offloaded to file: ${path}]`);
    const page = await manager.readTool.execute({ ref: path, pattern: 'needle' });
    expect(page).toContain('needle: found it');
  });

  it('writes batch offloads under the session too, where the session-bound read tool opens them', async () => {
    const outputDir = join(root, 'context');
    const manager = createContextManager({
      outputDir,
      sessionId: 'session-1',
      logger,
      offload: { timing: 'on-arrival', directThreshold: 100_000 },
    });
    const result = await manager.prepare([
      { role: 'user', content: 'Go.' },
      ...toolTurn('toolu_2', 'bash', {}, words(200, 'out')),
    ]);

    const name = `tool-result-toolu_2-${contentHash(words(200, 'out'))}.md`;
    expect((await readdir(join(outputDir, 'session-1'))).filter((entry) => entry.endsWith('.md'))).toEqual([name]);
    const reference = resultOf(result.messages[2]) as string;
    expect(reference).toBe(`[Content offloaded to: ${join(outputDir, 'session-1', name)}]`);
    expect(await manager.readTool.execute({ ref: reference })).toContain('out0 out1 out2');
  });

  it("binds the read tool to its session: another session's content is refused", async () => {
    const outputDir = join(root, 'context');
    const other = createContextManager({ outputDir, sessionId: 'tenant-b', logger, offload: { timing: 'on-arrival' } });
    const theirs = await other.offloadOutput(words(400, 'secret'), { toolName: 'bash', toolCallId: 'toolu_9' });
    const mine = createContextManager({ outputDir, sessionId: 'tenant-a', logger });
    expect(await mine.readTool.execute({ ref: theirs })).toMatch(/^Refused: .* belongs to another session/);
  });

  it('registers the read tool in every API shape', () => {
    const manager = createContextManager({ outputDir: root, logger });
    expect(manager.readTool.name).toBe('read_offloaded');
    expect(manager.readTool.anthropic.name).toBe('read_offloaded');
    expect(manager.readTool.openai.function.name).toBe('read_offloaded');
  });
});

describe('an agent loop with the Anthropic SDK over HTTP', () => {
  let server: FakeProviderServer;

  beforeEach(async () => {
    server = await startFakeProviderServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it('sends a byte-stable prefix on every request, and anchors each estimate on the last usage', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.origin, maxRetries: 0 });
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      model: 'claude-sonnet-4-6',
      logger,
      offload: { timing: 'on-arrival' },
    });
    // four model turns: three tool calls (one with a large result), then the answer
    const replies = [
      [{ type: 'tool_use', id: 'toolu_a', name: 'bash', input: { command: 'ls' } }],
      [{ type: 'tool_use', id: 'toolu_b', name: 'bash', input: { command: 'cat big.log' } }],
      [{ type: 'tool_use', id: 'toolu_c', name: 'bash', input: { command: 'wc -l big.log' } }],
      [{ type: 'text', text: 'The log has 400 lines.' }],
    ];
    replies.forEach((content, index) => {
      const response = anthropicMessage(content, 'claude-sonnet-4-6');
      (response.body as { usage: Record<string, number> }).usage = {
        input_tokens: 20,
        cache_read_input_tokens: 3000 + 900 * index,
        cache_creation_input_tokens: 100,
        output_tokens: 30,
      };
      server.enqueue('/v1/messages', response);
    });
    const toolOutputs: Record<string, string> = {
      toolu_a: 'big.log\nsrc/',
      toolu_b: words(1200, 'entry'),
      toolu_c: '400 big.log',
    };

    let history: Message[] = [{ role: 'user', content: 'How long is big.log?' }];
    let lastUsage: Record<string, unknown> | undefined;
    const stats = [];
    for (let turn = 0; turn < replies.length; turn += 1) {
      const prepared = await manager.prepare(history, lastUsage === undefined ? {} : { lastUsage: lastUsage as never });
      stats.push(prepared.stats);
      const response = await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: prepared.messages as Anthropic.MessageParam[],
        tools: [manager.readTool.anthropic],
      });
      lastUsage = { ...response.usage, messageCount: prepared.messages.length };
      history = [...prepared.messages, { role: 'assistant', content: response.content as ContentBlock[] }];
      const call = response.content.find((block) => block.type === 'tool_use');
      if (call?.type === 'tool_use')
        history.push({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call.id, content: toolOutputs[call.id]! }],
        });
    }

    const sent = server.requestsTo('/v1/messages').map((request) => request.body.messages as unknown[]);
    expect(sent).toHaveLength(4);
    for (let index = 1; index < sent.length; index += 1) {
      const previous = sent[index - 1]!;
      expect(JSON.stringify(sent[index]!.slice(0, previous.length))).toBe(JSON.stringify(previous));
    }
    // the large result went out as a reference, from the request that first carried it
    expect(JSON.stringify(sent[2])).toContain('[Tool result offloaded to file: ');
    expect(JSON.stringify(sent[2])).not.toContain('entry500');
    expect(server.requestsTo('/v1/messages')[0]!.body.tools).toEqual([
      expect.objectContaining({ name: 'read_offloaded' }),
    ]);
    expect(stats.map((figures) => figures.anchoredMessages)).toEqual([0, 1, 3, 5]);
    expect(stats[1]!.tokensAfter).toBeGreaterThanOrEqual(3120);
  });

  it('as results age (the default), sends each result whole to the request that acts on it, and offloads the older ones in one batch', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.origin, maxRetries: 0 });
    // a 20,000-token window: older results stay inline up to 8,000 characters
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      contextTokenLimit: 20_000,
      model: 'claude-sonnet-4-6',
      logger,
    });
    const outputs = [words(700, 'first'), words(700, 'second'), words(700, 'third'), '3 files'];
    outputs.forEach((_, index) =>
      server.enqueue(
        '/v1/messages',
        anthropicMessage(
          [{ type: 'tool_use', id: `toolu_${index}`, name: 'bash', input: { command: `step ${index}` } }],
          'claude-sonnet-4-6',
        ),
      ),
    );
    server.enqueue('/v1/messages', anthropicMessage([{ type: 'text', text: 'Done.' }], 'claude-sonnet-4-6'));

    let history: Message[] = [{ role: 'user', content: 'Check the three logs.' }];
    const actions: ContextAction[][] = [];
    for (let turn = 0; turn <= outputs.length; turn += 1) {
      const prepared = await manager.prepare(history);
      actions.push(prepared.actions);
      const response = await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: prepared.messages as Anthropic.MessageParam[],
        tools: [manager.readTool.anthropic],
      });
      history = [...prepared.messages, { role: 'assistant', content: response.content as ContentBlock[] }];
      const call = response.content.find((block) => block.type === 'tool_use');
      if (call?.type === 'tool_use')
        history.push({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call.id, content: outputs[Number(call.id.slice(-1))]! }],
        });
    }

    const sent = server.requestsTo('/v1/messages').map((request) => JSON.stringify(request.body.messages));
    // each output, whole, in the request right after it came
    outputs.forEach((output, index) => expect(sent[index + 1]).toContain(JSON.stringify(output)));
    // two older outputs of about 5,600 characters pass the budget together at the fourth request, but
    // rewriting the prompt from the first of them pays (with Anthropic's cache prices) only at the
    // fifth, after one more request: one batch then takes the three older outputs
    expect(actions.map((list) => list.map((action) => action.type))).toEqual([[], [], [], [], ['batch-offload']]);
    expect(actions[4]![0]).toMatchObject({ reason: 'aged', toolCallIds: ['toolu_0', 'toolu_1', 'toolu_2'] });
    expect(sent[4]).not.toContain('first699');
    expect(sent[4]).toContain('[Content offloaded to: ');
    // every request starts with the previous one, but the batch's
    const bodies = server.requestsTo('/v1/messages').map((request) => JSON.stringify(request.body.messages));
    const startsWithPrevious = bodies.slice(1).map((body, index) => body.startsWith(bodies[index]!.slice(0, -1)));
    expect(startsWithPrevious).toEqual([true, true, true, false]);
  });
});

describe('a compacted context fits with room to spare (30,000-token window)', () => {
  it('compacts to at most half of the trigger, restoring fewer files than the default budgets would', async () => {
    const workDir = join(root, 'project');
    await mkdir(join(workDir, 'src'), { recursive: true });
    const history: Message[] = [
      { role: 'system', content: 'You are a coding agent. Use read_file to read files.' },
      { role: 'user', content: 'Refactor the date helpers and keep the tests green.' },
    ];
    for (let file = 0; file < 8; file += 1) {
      const path = `src/module-${file}.ts`;
      const text = Array.from(
        { length: 260 },
        (_, line) => `export const value${file}_${line} = computeSomething(${line}, "${file}");`,
      ).join('\n');
      await writeFile(join(workDir, path), text);
      history.push(...toolTurn(`toolu_read_${file}`, 'read_file', { path }, text.slice(0, 600)));
      history.push({ role: 'assistant', content: words(1000, `thought${file}-`) });
    }
    const actions: ContextAction[] = [];
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      workDir,
      contextTokenLimit: 30_000,
      summarizer: createExtractiveSummarizer(),
      provider: 'openai',
      logger,
      onCompact: (action) => void actions.push(action),
    });
    const before = countTokens(history);
    expect(before).toBeGreaterThan(27_600);

    const result = await manager.prepare(history);
    const compaction = result.actions.find((action): action is ContextCompactAction => action.type === 'compact');
    expect(compaction).toBeDefined();
    expect(actions).toEqual([compaction]);
    expect(result.stats.triggerTokens).toBe(27_600);
    expect(result.stats.tokensAfter).toBeLessThanOrEqual(13_800);
    expect(countTokens(result.messages)).toBeLessThanOrEqual(13_800);
    expect(compaction!.budgets.maxRestoreTokensTotal).toBeLessThan(50_000);
    expect(compaction!.restoredFileCount).toBeGreaterThan(0);
    expect(compaction!.restoredFileCount).toBeLessThanOrEqual(5);
  });

  it('archives what it compacted where the read tool opens it', async () => {
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      contextTokenLimit: 4000,
      summarizer: createExtractiveSummarizer(),
      logger,
    });
    const history: Message[] = [
      { role: 'user', content: 'Summarize the incident.' },
      { role: 'assistant', content: words(3000, 'incident') },
    ];
    const result = await manager.prepare(history);
    const compaction = result.actions.find((action): action is ContextCompactAction => action.type === 'compact');
    expect(compaction?.archiveReference).toMatch(/context[\\/]default[\\/]compact-.*\.json$/);
    expect(
      await manager.readTool.execute({ ref: compaction!.archiveReference!, pattern: 'incident2999|incident96' }),
    ).toContain('incident96');
  });
});

describe('faults with the real compaction', () => {
  it('summarizes with the extractive summarizer when every summary attempt fails, and says which one failed', async () => {
    let attempts = 0;
    const summarizer = {
      summarize: async (): Promise<string> => {
        attempts += 1;
        throw new Error('model overloaded');
      },
    };
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      contextTokenLimit: 4000,
      summarizer,
      logger,
      compaction: { summary: { maxRetries: 0 } },
    });
    const history: Message[] = [
      { role: 'user', content: 'Go.' },
      ...toolTurn('toolu_1', 'bash', {}, words(1500, 'log')),
      { role: 'assistant', content: words(3000, 'plan') },
    ];

    const result = await manager.prepare(history);

    const compaction = result.actions.find((action): action is ContextCompactAction => action.type === 'compact');
    expect(compaction).toMatchObject({ summarizer: 'extractive', fallbackFrom: 'custom' });
    expect(result.actions.some((action) => action.type === 'compact-skipped')).toBe(false);
    expect(result.stats.tokensAfter).toBeLessThan(result.stats.triggerTokens);
    expect(attempts).toBe(1);
    expect(warnings.some((warning) => warning.includes('the extractive summarizer writes this summary'))).toBe(true);
  });

  it('sends the compacted history on the next call, without asking the failing summarizer again', async () => {
    let attempts = 0;
    const summarizer = {
      summarize: async (): Promise<string> => {
        attempts += 1;
        throw new Error('model overloaded');
      },
    };
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      contextTokenLimit: 4000,
      summarizer,
      logger,
      compaction: { summary: { maxRetries: 0 } },
    });
    const history: Message[] = [
      { role: 'user', content: 'Go.' },
      ...toolTurn('toolu_1', 'bash', {}, words(1500, 'log')),
      { role: 'assistant', content: words(3000, 'plan') },
    ];

    const first = await manager.prepare(history);
    const second = await manager.prepare([...history, { role: 'user', content: 'Go on.' }]);

    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(second.actions.map((action) => action.type)).toEqual([]);
    expect(attempts).toBe(1);
  });
});

describe('calibration before the first usage', () => {
  const history: Message[] = [{ role: 'user', content: words(2000, 'alpha') }];

  it('counts a Claude history at 1.5x the local o200k count', async () => {
    const manager = createContextManager({ store: createMemoryStore(), model: 'claude-sonnet-4-6', logger });
    const result = await manager.prepare(history);
    expect(result.stats.calibrationRatio).toBe(1.5);
    expect(result.stats.tokensAfter).toBe(Math.ceil(1.5 * countTokens(history)));
  });

  it('counts an OpenAI history at the local o200k count', async () => {
    const manager = createContextManager({ store: createMemoryStore(), model: 'gpt-5', logger });
    const result = await manager.prepare(history);
    expect(result.stats.tokensAfter).toBe(countTokens(history));
  });
});

describe('the cost model', () => {
  const history: Message[] = [{ role: 'user', content: 'hello' }];

  it("prices an OpenAI model's input with no write premium and its cached reads at its discount", async () => {
    const manager = createContextManager({ store: createMemoryStore(), model: 'gpt-4.1', logger });
    const { stats } = await manager.prepare(history);
    expect(stats.costModel).toMatchObject({ family: 'openai', readRatio: 0.25, writeRatio: 1 });
  });

  it('takes the family from the format when neither provider nor model says', async () => {
    const manager = createContextManager({ store: createMemoryStore(), logger });
    const { stats } = await manager.prepare(history);
    expect(stats.costModel).toMatchObject({ family: 'anthropic', readRatio: 0.1, writeRatio: 1.25 });
  });

  it('lets the cost option win over the provider', async () => {
    const manager = createContextManager({
      store: createMemoryStore(),
      provider: 'anthropic',
      cost: { cacheTtl: '1h', inputPricePerMTok: 15 },
      logger,
    });
    const { stats } = await manager.prepare(history);
    expect(stats.costModel).toMatchObject({ family: 'anthropic', writeRatio: 2, inputPricePerMTok: 15 });
  });

  it('prices provider "other" by its tokens', async () => {
    const manager = createContextManager({ store: createMemoryStore(), provider: 'other', logger });
    const { stats } = await manager.prepare(history);
    expect(stats.costModel).toMatchObject({ family: 'none', readRatio: 1, writeRatio: 1 });
  });
});

describe('files restored after a compaction', () => {
  /** A history that read src/config.ts and is over a 4,000-token window. */
  async function readingHistory(workDir: string): Promise<Message[]> {
    await mkdir(join(workDir, 'src'), { recursive: true });
    await writeFile(join(workDir, 'src', 'config.ts'), 'export const retries = 3;\n');
    return [
      { role: 'user', content: 'Why does the job retry three times?' },
      ...toolTurn('toolu_read', 'read_file', { path: 'src/config.ts' }, 'export const retries = 3;\n'),
      { role: 'assistant', content: words(3000, 'analysis') },
      { role: 'user', content: 'Make it five.' },
    ];
  }

  it('come only from an explicit workDir: without one, none, said once', async () => {
    const cwd = process.cwd();
    const project = join(root, 'host');
    const history = await readingHistory(project);
    process.chdir(project);
    try {
      const manager = createContextManager({
        outputDir: join(root, 'context'),
        contextTokenLimit: 4000,
        summarizer: createExtractiveSummarizer(),
        logger,
      });
      const result = await manager.prepare(history);
      expect(result.actions.map((action) => action.type)).toContain('compact');
      expect(JSON.stringify(result.messages)).not.toContain('[Restored after compact]');
      await manager.prepare([
        ...history,
        { role: 'assistant', content: words(3000, 'more') },
        { role: 'user', content: 'And?' },
      ]);
    } finally {
      process.chdir(cwd);
    }
    expect(warnings.filter((warning) => warning.includes('no workDir was given'))).toHaveLength(1);
  });

  it('come from the workDir given', async () => {
    const workDir = join(root, 'project');
    const history = await readingHistory(workDir);
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      workDir,
      contextTokenLimit: 4000,
      summarizer: createExtractiveSummarizer(),
      logger,
    });
    const result = await manager.prepare(history);
    expect(JSON.stringify(result.messages)).toContain('[Restored after compact] src/config.ts');
  });
});

describe("the session's records", () => {
  it('are never served by the read tool', async () => {
    const outputDir = join(root, 'context');
    const manager = createContextManager({
      outputDir,
      sessionId: 's1',
      contextTokenLimit: 4000,
      summarizer: createExtractiveSummarizer(),
      logger,
    });
    await manager.prepare([
      { role: 'user', content: 'Summarize.' },
      { role: 'assistant', content: words(3000, 'incident') },
      { role: 'user', content: 'Go.' },
    ]);
    const records = (await readdir(join(outputDir, 's1', '.records'))).filter((name) => name.endsWith('.json'));
    expect(records.length).toBeGreaterThan(0);
    for (const name of records) {
      const answer = await manager.readTool.execute({ ref: join(outputDir, 's1', '.records', name) });
      expect(answer).toMatch(/^Refused: /);
    }
  });

  it("go with the session's content when it is pruned", async () => {
    const outputDir = join(root, 'context');
    const manager = createContextManager({
      outputDir,
      sessionId: 's1',
      contextTokenLimit: 4000,
      summarizer: createExtractiveSummarizer(),
      logger,
    });
    await manager.prepare([
      { role: 'user', content: 'Go.' },
      ...toolTurn('toolu_1', 'bash', {}, words(1500, 'log')),
      { role: 'assistant', content: words(3000, 'plan') },
      { role: 'user', content: 'Next.' },
    ]);
    const { pruneOffloaded } = await import('../../../src/api/prune.js');
    const result = await pruneOffloaded({ outputDir, olderThanMs: 0, now: () => new Date(Date.now() + 60_000) });
    const removed = result.removed.map((entry) => entry.key);
    expect(removed.some((key) => key.startsWith('s1/.records/compact-'))).toBe(true);
    expect(removed.some((key) => /^s1\/tool-result-toolu_1-[0-9a-f]{16}\.md$/.test(key))).toBe(true);
    expect(await readdir(join(outputDir, 's1', '.records'))).toEqual([]);
  });
});

describe('a manager with sessionId "auto"', () => {
  it("has a read tool that refuses before the first prepare and opens that session's references after it", async () => {
    const manager = createContextManager({
      outputDir: join(root, 'context'),
      sessionId: 'auto',
      logger,
      offload: { timing: 'on-arrival' },
    });
    expect(await manager.readTool.execute({ ref: join(root, 'context', 'x', 'y.md') })).toMatch(
      /^Refused: no conversation has been prepared yet/,
    );
    const result = await manager.prepare([
      { role: 'user', content: 'Grep the logs.' },
      ...toolTurn('toolu_1', 'bash', { command: 'grep' }, `${words(400, 'line')}\nneedle: here`),
    ]);
    expect(manager.sessionId).toBe(result.sessionId);
    expect(result.sessionId).toMatch(/^auto-[0-9a-f]{32}$/);
    const reference = resultOf(result.messages[2]) as string;
    expect(await manager.readTool.execute({ ref: reference, pattern: 'needle' })).toContain('needle: here');
  });
});
