/**
 * What a compacted context keeps of what the agent was doing: the last error a tool printed
 * (marked or not, offloaded or not) and every offloaded result, one read away with its gist,
 * through the offload index.
 */
import { describe, expect, it } from 'vitest';
import { createReadOffloadedTool } from '../../../../src/api/read-offloaded-tool.js';
import { compactMessagesWith, type CompactPorts } from '../../../../src/core/compact/compact.js';
import type { ResolvedCompactOptions } from '../../../../src/core/compact/compact-options.js';
import { createExtractiveSummarizer } from '../../../../src/core/compact/summary/extractive-summarizer.js';
import { MAX_OFFLOADED_RESULTS_READ } from '../../../../src/core/compact/summary/last-error.js';
import { parseConversationIndex, parseOffloadIndex } from '../../../../src/core/compact/summary/offload-index.js';
import { buildBatchReference } from '../../../../src/core/offload/offload-reference.js';
import type { ContentStore } from '../../../../src/core/ports.js';
import type { Message } from '../../../../src/core/types.js';
import { createMemoryStore } from '../../../../src/stores/memory-store.js';
import {
  archiveTarget,
  charCounter,
  createRecordingLogger,
  createRecordingSleep,
  createResolvedOptions,
  createScriptedSummarizer,
  MemoryFileSystem,
} from '../../../fixtures/compact-fixtures.js';

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const padding: Message = { role: 'assistant', content: 'Working through it. '.repeat(600) };

function setUp(
  options: { store?: ContentStore; resolved?: Partial<ResolvedCompactOptions>; extractive?: boolean } = {},
) {
  const fileSystem = new MemoryFileSystem({});
  const logger = createRecordingLogger();
  const summarizer =
    options.extractive === true
      ? createExtractiveSummarizer()
      : createScriptedSummarizer(['## Goals & Decisions\nS.', '## Goals & Decisions\nS2.'], fileSystem.events);
  const ports: CompactPorts = {
    summarizer,
    fileReader: fileSystem.reader,
    ...archiveTarget(options.store ?? fileSystem.writer),
    tokenCounter: charCounter,
    logger,
    sleep: createRecordingSleep(),
    now: () => new Date('2026-11-21T23:45:12Z'),
  };
  const resolved = createResolvedOptions({ force: true, maxRestoreFiles: 0, ...options.resolved });
  return { logger, fileSystem, run: (messages: readonly Message[]) => compactMessagesWith(messages, resolved, ports) };
}

/** An assistant call and the user message with its result. */
function turn(id: string, name: string, input: Record<string, unknown>, content: string, isError = false): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
    },
  ];
}

const failingLog = [
  ' RUN  v3.2.4 /repo',
  ...Array.from({ length: 300 }, (_, index) => ` ✓ case ${index} 0ms`),
  ' FAIL  tests/tax.test.ts > split',
  'AssertionError: expected 2336 to be 2337',
  ' Tests  1 failed | 300 passed (301)',
].join('\n');

describe('the last error a tool printed, through compaction', () => {
  it('finds an error in an unmarked result that was offloaded, reading its head and tail back', async () => {
    const store = createMemoryStore();
    await store.putIfAbsent('default/tool-result-b2.md', failingLog);
    const reference = store.referenceFor('default/tool-result-b2.md');
    const history = [
      system,
      { role: 'user', content: 'Make the tests pass.' } as Message,
      ...turn('b1', 'Bash', { command: 'npm run build' }, 'error TS2345: old', true),
      ...turn('b2', 'Bash', { command: 'npm test' }, buildBatchReference(reference)),
      padding,
    ];
    const result = await setUp({ store }).run(history);
    expect(result.ledger?.lastError).toEqual({
      toolName: 'Bash',
      toolUseId: 'b2',
      input: 'npm test',
      message: 'AssertionError: expected 2336 to be 2337',
      reference,
    });
  });

  it(`reads back at most ${MAX_OFFLOADED_RESULTS_READ} offloaded results, newest first`, async () => {
    const memory = createMemoryStore();
    const history: Message[] = [system, { role: 'user', content: 'Run everything.' }];
    for (let index = 0; index < 12; index += 1) {
      const key = `default/tool-result-s${index}.md`;
      await memory.putIfAbsent(key, `step ${index} done\n`);
      history.push(
        ...turn(`s${index}`, 'Bash', { command: `make step${index}` }, buildBatchReference(memory.referenceFor(key))),
      );
    }
    history.push(padding);
    const stats: string[] = [];
    const store: ContentStore = { ...memory, stat: (key) => (stats.push(key), memory.stat(key)) };
    const result = await setUp({ store }).run(history);
    expect(result.ledger?.lastError).toBeUndefined();
    expect(stats).toEqual(
      Array.from({ length: MAX_OFFLOADED_RESULTS_READ }, (_, index) => `default/tool-result-s${11 - index}.md`),
    );
  });

  describe('the extractive summary quotes the line read back and names the failing command', () => {
    async function summarize(callsAfter: number): Promise<(title: string) => string> {
      const store = createMemoryStore();
      await store.putIfAbsent('default/tool-result-b1.md', failingLog);
      const history = [
        system,
        { role: 'user', content: 'Make the tests pass.' } as Message,
        ...turn(
          'b1',
          'Bash',
          { command: 'npm test' },
          buildBatchReference(store.referenceFor('default/tool-result-b1.md')),
          true,
        ),
        ...Array.from({ length: callsAfter }, (_, index) =>
          turn(`r${index}`, 'Read', { file_path: `src/f${index}.ts` }, 'export const rate = 0.19;'),
        ).flat(),
        padding,
      ];
      const summary = (await setUp({ store, extractive: true }).run(history)).summary ?? '';
      return (title) => summary.split(`## ${title}\n`)[1]?.split('\n## ')[0] ?? '';
    }

    it('in Errors & Resolutions and Task Status, and in Tool Calls among the recent calls', async () => {
      const section = await summarize(1);
      expect(section('Errors & Resolutions')).toContain('- `Bash` failed: AssertionError: expected 2336 to be 2337');
      expect(section('Task Status')).toContain(
        '- Last error, from `Bash` `npm test`: AssertionError: expected 2336 to be 2337',
      );
      expect(section('Tool Calls')).toContain(
        '- Recent call: `Bash` {"command":"npm test"} → failed: AssertionError: expected 2336 to be 2337',
      );
    });

    it('in Tool Calls on its own line when it is older than the recent calls', async () => {
      const section = await summarize(8);
      expect(section('Tool Calls')).toContain(
        '- Last failed call: `Bash` `npm test` → AssertionError: expected 2336 to be 2337',
      );
      expect(section('Tool Calls')).not.toContain('"npm test"');
    });
  });
});

describe('the offload index: every offloaded result one read away, with its gist', () => {
  /** A history of `count` offloaded shell results, each stored under its reference. */
  async function createOffloadedHistory(store: ContentStore, count: number, first = 0): Promise<Message[]> {
    const messages: Message[] = [];
    for (let index = first; index < first + count; index += 1) {
      const key = `default/tool-result-c${index}.md`;
      await store.putIfAbsent(key, `output of step ${index}\n`);
      messages.push(
        ...turn(
          `c${index}`,
          'Bash',
          { command: `./step.sh ${index} --verbose` },
          buildBatchReference(store.referenceFor(key)),
        ),
      );
    }
    return messages;
  }

  it('writes every offloaded result to one index in the store, which the ledger names next to the 10 most recent', async () => {
    const store = createMemoryStore();
    const history = [
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 25)),
      padding,
    ];
    const result = await setUp({ store }).run(history);
    const index = result.ledger?.offloadIndex;
    expect(index?.count).toBe(25);
    expect(index?.reference).toMatch(/^memory:\/\/default\/default\/offload-index-[0-9a-z]{11}\.md$/);
    expect(result.ledger?.offloadedResults.items.map((entry) => entry.toolUseId)).toEqual(
      Array.from({ length: 10 }, (_, offset) => `c${15 + offset}`),
    );
    expect(result.summary).toContain(
      `- Index of all offloaded results and files: {"ref":"${index?.reference}","count":25}`,
    );
    const text = await store.get(store.keyFor(index!.reference)!);
    expect(parseOffloadIndex(text ?? '').map((entry) => [entry.toolUseId, entry.input, entry.reference])).toEqual(
      Array.from({ length: 25 }, (_, offset) => [
        `c${offset}`,
        `./step.sh ${offset} --verbose`,
        store.referenceFor(`default/tool-result-c${offset}.md`),
      ]),
    );
  });

  it("says in the index how to read a result: with the read tool, or with the agent's own tools", async () => {
    for (const [referenceReader, note] of [
      ['read-tool', 'Pass a reference to the read tool as ref to read that result.'],
      ['own-tools', 'Each reference is a file: open it with your own tools to read that result.'],
    ] as const) {
      const store = createMemoryStore();
      const history = [
        system,
        { role: 'user', content: 'Run the steps.' } as Message,
        ...(await createOffloadedHistory(store, 11)),
        padding,
      ];
      const { ledger } = await setUp({ store, resolved: { referenceReader } }).run(history);
      expect(await store.get(store.keyFor(ledger!.offloadIndex!.reference)!)).toContain(note);
    }
  });

  it('the read tool searches the index by gist and opens the result it names', async () => {
    const store = createMemoryStore();
    const history = [
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 25)),
      padding,
    ];
    const { ledger } = await setUp({ store }).run(history);
    const readTool = createReadOffloadedTool({ store });
    const found = await readTool.execute({ ref: ledger!.offloadIndex!.reference, pattern: 'step\\.sh 3 ' });
    const reference = store.referenceFor('default/tool-result-c3.md');
    expect(found).toContain(`["Bash","c3","./step.sh 3 --verbose","${reference}"]`);
    expect(await readTool.execute({ ref: reference })).toContain('output of step 3');
  });

  it('names an index by its text: the same results give the same index, written once', async () => {
    const store = createMemoryStore();
    const history = [
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 12)),
      padding,
    ];
    const first = await setUp({ store }).run(history);
    const second = await setUp({ store }).run(history);
    expect(second.ledger?.offloadIndex).toEqual(first.ledger?.offloadIndex);
    const indexes: string[] = [];
    for await (const key of store.list('default/offload-index-')) indexes.push(key);
    expect(indexes).toHaveLength(1);
  });

  it('carries an earlier index over a later compaction: results the ledger no longer lists stay in the index', async () => {
    const store = createMemoryStore();
    const { run } = setUp({ store });
    const first = await run([
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 25)),
      padding,
    ]);
    const second = await run([
      ...first.messages,
      { role: 'user', content: 'And the next ones.' },
      ...(await createOffloadedHistory(store, 5, 25)),
      padding,
    ]);
    expect(second.ledger?.offloadIndex?.count).toBe(30);
    const entries = parseOffloadIndex((await store.get(store.keyFor(second.ledger!.offloadIndex!.reference)!)) ?? '');
    expect(entries.map((entry) => entry.toolUseId)).toEqual(Array.from({ length: 30 }, (_, index) => `c${index}`));
  });

  it('writes no index when the ledger lists every offloaded result', async () => {
    const store = createMemoryStore();
    const result = await setUp({ store }).run([
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 10)),
      padding,
    ]);
    expect(result.ledger?.offloadedResults).toMatchObject({ omittedCount: 0 });
    expect(result.ledger?.offloadedResults.items).toHaveLength(10);
    expect(result.ledger?.offloadIndex).toBeUndefined();
    expect(result.summary).not.toContain('Index of all offloaded results');
    expect(result.summary).not.toContain('in the index');
  });

  it('compacts all the same when the index cannot be written', async () => {
    const memory = createMemoryStore();
    const history = [
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(memory, 12)),
      padding,
    ];
    const failing: ContentStore = {
      ...memory,
      putIfAbsent: (key, content) =>
        key.includes('offload-index')
          ? Promise.reject(new Error('disk full (test)'))
          : memory.putIfAbsent(key, content),
    };
    const { run, logger } = setUp({ store: failing });
    const result = await run(history);
    expect(result.compacted).toBe(true);
    expect(result.ledger?.offloadIndex).toBeUndefined();
    expect(result.ledger?.offloadedResults.omittedCount).toBe(2);
    expect(logger.warnings).toContain(
      'compact: could not write the index of the offloaded results (disk full (test)); the summary lists the most recent ones only',
    );
  });

  it('writes the index through a file writer when compaction has no store', async () => {
    const store = createMemoryStore();
    const history = [
      system,
      { role: 'user', content: 'Run the steps.' } as Message,
      ...(await createOffloadedHistory(store, 11)),
      padding,
    ];
    const { run, fileSystem } = setUp();
    const result = await run(history);
    const path = result.ledger?.offloadIndex?.reference ?? '';
    expect(path).toMatch(/^\/work\/\.compact\/default\/offload-index-[0-9a-z]{11}\.md$/);
    expect(parseOffloadIndex(fileSystem.files.get(path) ?? '')).toHaveLength(11);
  });
});

describe('the files of a long session: every file read or edited is in the index the ledger names', () => {
  /** `count` successful Claude Code `Edit` calls, on `src/module-<n>.ts` from `first` on. */
  function createEditHistory(count: number, first = 0): Message[] {
    return Array.from({ length: count }, (_, offset) => first + offset).flatMap((index) =>
      turn(
        `e${index}`,
        'Edit',
        { file_path: `src/module-${index}.ts`, old_string: 'a', new_string: 'b' },
        'The file has been updated.',
      ),
    );
  }
  const task: Message = { role: 'user', content: 'Rename the logger in every module.' };

  it('lists the 15 most recent of 136 edited files, says the other 121 are in the index, and the index holds all 136', async () => {
    const store = createMemoryStore();
    const result = await setUp({ store }).run([system, task, ...createEditHistory(136), padding]);
    const paths = Array.from({ length: 136 }, (_, index) => `src/module-${index}.ts`);
    expect(result.ledger?.filesEdited).toEqual({ items: paths.slice(121), omittedCount: 121 });
    const index = result.ledger?.offloadIndex;
    expect(index).toEqual({ reference: expect.any(String), count: 0, filesEdited: 136 });
    expect(result.summary).toContain(
      '- Files edited (15 most recent; 121 earlier in the index): ["src/module-121.ts", ',
    );
    expect(result.summary).toContain(
      `- Index of all offloaded results and files: {"ref":"${index?.reference}","count":0,"filesEdited":136}`,
    );
    const text = (await store.get(store.keyFor(index!.reference)!)) ?? '';
    expect(parseConversationIndex(text).filesEdited).toEqual(paths);
  });

  it('the read tool finds an early edited file in the index', async () => {
    const store = createMemoryStore();
    const { ledger } = await setUp({ store }).run([system, task, ...createEditHistory(136), padding]);
    const found = await createReadOffloadedTool({ store }).execute({
      ref: ledger!.offloadIndex!.reference,
      pattern: 'module-7\\.ts',
    });
    expect(found).toContain('"src/module-7.ts"');
  });

  it('carries the edited files over a later compaction, each once at its latest edit', async () => {
    const store = createMemoryStore();
    const { run } = setUp({ store });
    const first = await run([system, task, ...createEditHistory(136), padding]);
    const second = await run([
      ...first.messages,
      { role: 'user', content: 'Now the tests.' },
      ...createEditHistory(10, 136),
      ...createEditHistory(1, 3),
      padding,
    ]);
    const text = (await store.get(store.keyFor(second.ledger!.offloadIndex!.reference)!)) ?? '';
    const edited = parseConversationIndex(text).filesEdited;
    expect(edited).toHaveLength(146);
    expect(edited.at(-1)).toBe('src/module-3.ts');
    expect(second.ledger?.filesEdited.omittedCount).toBe(131);
  });

  it('writes no index when the ledger lists every file', async () => {
    const result = await setUp({ store: createMemoryStore() }).run([system, task, ...createEditHistory(15), padding]);
    expect(result.ledger?.filesEdited.omittedCount).toBe(0);
    expect(result.ledger?.offloadIndex).toBeUndefined();
  });
});
