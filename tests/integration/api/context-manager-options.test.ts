/**
 * The context manager's options in groups: each grouped option reaches the step it tunes, a bad
 * value is named by its path, an unknown key or an option of the flat shape is refused naming
 * where it lives, a removed spelling is refused naming its replacement, and the environment is
 * not read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createContextManager,
  type ContextCompactAction,
  type ContextManagerOptions,
} from '../../../src/api/context-manager.js';
import { MANAGER_OPTION_GROUPS } from '../../../src/api/context-manager-options.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import { InvalidOptionError } from '../../../src/core/errors.js';
import type { TokenCounter } from '../../../src/core/ports.js';
import type { Message } from '../../../src/core/types.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

const quiet = { warn: () => undefined };
/** A token per 4 characters, named so its counts are recorded. */
const quarterCounter: TokenCounter = { count: (text) => Math.ceil(text.length / 4), encoding: 'quarter' };

function words(count: number, word: string): string {
  return Array.from({ length: count }, (_, index) => `${word}${index}`).join(' ');
}

/** Every option of the flat shape and where it lives now, in the order of the schema. */
function flatToGrouped(schema: object = MANAGER_OPTION_GROUPS, prefix = ''): Array<[string, string]> {
  return Object.entries(schema).flatMap(([key, entry]): Array<[string, string]> =>
    typeof entry === 'string' ? [[entry, `${prefix}${key}`]] : flatToGrouped(entry as object, `${prefix}${key}.`),
  );
}

/** `{ a: { b: value } }` for the path `a.b`. */
function nest(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;
}

const savedRatio = process.env.COMPACT_THRESHOLD_RATIO;
afterEach(() => {
  if (savedRatio === undefined) delete process.env.COMPACT_THRESHOLD_RATIO;
  else process.env.COMPACT_THRESHOLD_RATIO = savedRatio;
});

describe('createContextManager options in groups', () => {
  it('triggers at contextTokenLimit × compaction.triggerRatio', async () => {
    const manager = createContextManager({
      store: createMemoryStore(),
      provider: 'openai',
      contextTokenLimit: 10_000,
      compaction: { triggerRatio: 0.5 },
    });
    const { stats } = await manager.prepare([{ role: 'user', content: 'Hello.' }]);
    expect(stats.triggerTokens).toBe(5000);
  });

  it('reads no environment variable: COMPACT_THRESHOLD_RATIO set, its options and defaults still decide', async () => {
    process.env.COMPACT_THRESHOLD_RATIO = '0.25';
    const manager = createContextManager({ store: createMemoryStore(), provider: 'openai', contextTokenLimit: 10_000 });
    expect((await manager.prepare([{ role: 'user', content: 'Hello.' }])).stats.triggerTokens).toBe(9200);
    process.env.COMPACT_THRESHOLD_RATIO = 'half';
    expect(() => createContextManager({ store: createMemoryStore() })).not.toThrow();
  });

  it('offloads on arrival with offload.timing and offload.directThreshold', async () => {
    const manager = createContextManager({
      store: createMemoryStore(),
      logger: quiet,
      offload: { timing: 'on-arrival', directThreshold: 500 },
    });
    const history: Message[] = [
      { role: 'user', content: 'Read the log.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(600) }] },
    ];
    const result = await manager.prepare(history);
    expect(result.actions.map((action) => action.type)).toEqual(['direct-offload']);
  });

  it('compacts with compaction.summary, compaction.restore and compaction.resumeMessage', async () => {
    const compactions: ContextCompactAction[] = [];
    const manager = createContextManager({
      store: createMemoryStore(),
      provider: 'openai',
      contextTokenLimit: 30_000,
      tokenCounter: quarterCounter,
      summarizer: createExtractiveSummarizer(),
      logger: quiet,
      workDir: process.cwd(),
      onCompact: (action) => void compactions.push(action),
      compaction: {
        summary: { maxWords: 300 },
        restore: { maxFiles: 2, maxTokensPerFile: 700 },
        resumeMessage: 'Go on.',
      },
    });
    const history: Message[] = [
      { role: 'user', content: 'Plan the migration.' },
      // each answer under the largest text kept whole (a larger one would go to the store instead)
      ...[1, 2, 3, 4].flatMap((part): Message[] => [
        { role: 'assistant', content: words(5000, `step${part}`) },
        { role: 'user', content: 'Go on.' },
      ]),
      { role: 'user', content: 'And then?' },
      { role: 'assistant', content: 'Then we ship.' },
    ];
    const result = await manager.prepare(history);
    expect(compactions).toHaveLength(1);
    expect(compactions[0]?.budgets).toMatchObject({
      summaryMaxWords: 300,
      maxRestoreFiles: 2,
      maxRestoreTokensPerFile: 700,
    });
    expect(result.messages.at(-1)).toEqual({ role: 'user', content: 'Go on.' });
  });

  it.each([
    ['read-tool', 'The read tool opens any reference below (pass it as ref)'],
    ['own-tools', 'Each reference below is a file: open it with your own tools'],
  ] as const)('tells the model how it opens a reference with referenceReader %s', async (referenceReader, note) => {
    const manager = createContextManager({
      store: createMemoryStore(),
      provider: 'openai',
      contextTokenLimit: 30_000,
      tokenCounter: quarterCounter,
      summarizer: createExtractiveSummarizer(),
      logger: quiet,
      referenceReader,
    });
    const result = await manager.prepare([
      { role: 'user', content: 'Plan the migration.' },
      // each answer under the largest text kept whole (a larger one would go to the store instead)
      ...[1, 2, 3, 4].flatMap((part): Message[] => [
        { role: 'assistant', content: words(5000, `step${part}`) },
        { role: 'user', content: 'Go on.' },
      ]),
      { role: 'user', content: 'And then?' },
    ]);
    const summary = JSON.stringify(result.messages);
    expect(summary).toContain('## Context Ledger');
    expect(summary).toContain(note);
    if (referenceReader === 'own-tools') expect(summary).not.toContain('read tool');
  });

  it('refuses a referenceReader it does not know, naming the values it takes', () => {
    expect(() => createContextManager({ outputDir: 'x', referenceReader: 'cat' } as never)).toThrow(
      'referenceReader must be "read-tool" or "own-tools", got "cat"',
    );
  });

  it('records the counts of a counter under its encoding, and none for a counter without one', async () => {
    const history: Message[] = [{ role: 'user', content: words(4000, 'line') }];
    const recordedTokenizers = async (tokenCounter: TokenCounter): Promise<unknown[]> => {
      const store = createMemoryStore();
      await createContextManager({ store, tokenCounter, logger: quiet }).prepare(history);
      const tokenizers: unknown[] = [];
      for await (const key of store.list('default/.records/')) {
        const record = JSON.parse((await store.get(key)) ?? '{}') as {
          tokens?: { tokenizer: string; counts: unknown[] };
        };
        tokenizers.push(record.tokens?.tokenizer, record.tokens?.counts[0]);
      }
      return tokenizers;
    };
    expect(await recordedTokenizers(quarterCounter)).toEqual(['quarter', expect.any(Number)]);
    expect(await recordedTokenizers({ count: quarterCounter.count })).toEqual(['unknown', null]);
  });

  it('never changes the options it is given', () => {
    const options: ContextManagerOptions = {
      outputDir: 'x',
      offload: { preview: { headChars: 10 } },
      compaction: { triggerRatio: 0.5 },
    };
    const copy = structuredClone(options);
    createContextManager(options);
    expect(options).toEqual(copy);
  });

  it.each([
    ['offload.directThreshold', -3, 'offload.directThreshold must be a number >= 1, got -3'],
    [
      'offload.minAgedResultChars',
      0,
      'offload.minAgedResultChars must be an integer >= 1 (a number of characters), got 0',
    ],
    ['offload.charThreshold', 0, 'offload.charThreshold must be a number >= 1, got 0'],
    ['offload.keepRecent', 1.5, 'offload.keepRecent must be an integer >= 0, got 1.5'],
    ['offload.excludeTools', 'bash', 'offload.excludeTools must be an array of strings, got "bash"'],
    ['offload.preview', 3, 'offload.preview must be an object, got 3'],
    ['offload.preview', { headChars: -1 }, 'offload.preview.headChars must be an integer >= 0, got -1'],
    ['compaction.triggerRatio', 2, 'compaction.triggerRatio must be a number in [0, 1], got 2'],
    ['compaction.summary.model', '', 'compaction.summary.model must be a non-empty string, got ""'],
    ['compaction.summary.maxWords', 0, 'compaction.summary.maxWords must be an integer >= 1, got 0'],
    ['compaction.summary.inputMaxTokens', 0.5, 'compaction.summary.inputMaxTokens must be an integer >= 1, got 0.5'],
    ['compaction.summary.maxRetries', -1, 'compaction.summary.maxRetries must be an integer >= 0, got -1'],
    ['compaction.summary.retryBaseDelayMs', -1, 'compaction.summary.retryBaseDelayMs must be a number >= 0, got -1'],
    ['compaction.summary.mode', 'fast', 'compaction.summary.mode must be "prompt" or "reuse-prefix", got "fast"'],
    ['compaction.restore.maxFiles', -1, 'compaction.restore.maxFiles must be an integer >= 0, got -1'],
    [
      'compaction.restore.maxTokensPerFile',
      'many',
      'compaction.restore.maxTokensPerFile must be an integer >= 0, got "many"',
    ],
    ['compaction.restore.maxTokensTotal', -1, 'compaction.restore.maxTokensTotal must be an integer >= 0, got -1'],
    [
      'compaction.restore.readToolNames',
      'Read',
      'compaction.restore.readToolNames must be an array of strings, got "Read"',
    ],
    ['compaction.restore.pathField', '', 'compaction.restore.pathField must be a non-empty string, got ""'],
    [
      'compaction.restore.fileReader',
      {},
      'compaction.restore.fileReader must be an object with read() and exists(), got an object',
    ],
    ['compaction.archivePolicy', 'maybe', 'compaction.archivePolicy must be "required" or "best-effort", got "maybe"'],
    ['compaction.resumeMessage', ' ', 'compaction.resumeMessage must be a non-blank string, got " "'],
  ])('names %s by its path when its value is bad', (path, value, message) => {
    const options = { outputDir: 'x', ...nest(path, value) };
    expect(() => createContextManager(options)).toThrow(InvalidOptionError);
    expect(() => createContextManager(options)).toThrow(message);
  });

  it('names both paths when summary.conversationRequest comes without its mode', () => {
    expect(() =>
      createContextManager({
        outputDir: 'x',
        compaction: { summary: { conversationRequest: { model: 'claude-sonnet-4-6' } } },
      }),
    ).toThrow("compaction.summary.conversationRequest is used only with compaction.summary.mode: 'reuse-prefix'");
  });

  it('names the summary options by their paths in the checks made for an LLM client at creation', () => {
    const openAiLike = { summarize: () => Promise.resolve('summary'), defaultModel: null };
    expect(() => createContextManager({ outputDir: 'x', llmClient: openAiLike })).toThrow(
      /^compaction\.summary\.model \(or SUMMARY_MODEL\) is required with an OpenAI client: .* pass compaction\.summary\.model, set SUMMARY_MODEL/,
    );
    expect(() =>
      createContextManager({
        outputDir: 'x',
        llmClient: openAiLike,
        compaction: { summary: { model: 'gpt-5', inputMaxTokens: 500 } },
      }),
    ).toThrow(/^compaction\.summary\.inputMaxTokens must be at least \d+ for a 1200-word summary .*got 500$/);
  });

  it.each(flatToGrouped())('refuses %s at the top, saying it moved to %s', (flat, grouped) => {
    expect(() => createContextManager({ outputDir: 'x', [flat]: 1 } as never)).toThrow(
      new RegExp(`^${flat} moved to ${grouped.replaceAll('.', '\\.')}: `),
    );
  });

  it('refuses an unknown key in a group, naming it and the keys of the group', () => {
    expect(() => createContextManager({ outputDir: 'x', offload: { treshold: 5 } } as never)).toThrow(
      'offload.treshold is not an option: expected one of timing, directThreshold, minAgedResultChars, charThreshold',
    );
  });

  it.each([
    [
      'offload.threshold',
      1000,
      /^offload\.threshold is not an option any more: .*offload\.directThreshold .*offload\.minAgedResultChars/,
    ],
    [
      'compaction.trigger',
      { ratio: 0.5 },
      /^compaction\.trigger is not an option any more: compaction\.trigger\.ratio is now compaction\.triggerRatio$/,
    ],
    [
      'compaction.archive',
      { policy: 'best-effort' },
      /^compaction\.archive is not an option any more: compaction\.archive\.policy is now compaction\.archivePolicy$/,
    ],
  ])('refuses the removed spelling %s, naming what replaces it', (path, value, message) => {
    expect(() => createContextManager({ outputDir: 'x', ...nest(path, value) })).toThrow(message);
  });

  it('refuses a flat option put in the wrong group, saying where it lives', () => {
    expect(() => createContextManager({ outputDir: 'x', compaction: { summaryMaxWords: 5 } } as never)).toThrow(
      'compaction.summaryMaxWords is not an option: it is compaction.summary.maxWords',
    );
  });

  it('refuses an unknown key at the top and a group that is not an object', () => {
    expect(() => createContextManager({ outputDir: 'x', sesionId: 'a' } as never)).toThrow(
      /^sesionId is not an option: expected one of outputDir, store, sessionId/,
    );
    expect(() => createContextManager({ outputDir: 'x', compaction: { restore: 0.5 } } as never)).toThrow(
      'compaction.restore must be an object { maxFiles, maxTokensPerFile, maxTokensTotal, readToolNames, pathField, fileReader }, got 0.5',
    );
  });

  it('takes a key given as undefined as absent, at any level', () => {
    expect(() =>
      createContextManager({ outputDir: 'x', threshold: undefined, offload: { treshold: undefined } } as never),
    ).not.toThrow();
  });
});
