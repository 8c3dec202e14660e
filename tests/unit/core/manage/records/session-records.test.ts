/**
 * One session, any process: `prepare` is a function of the history's content and of what the
 * session's folder holds. Managers that share a store stand for processes here (the real
 * multi-process runs are in the integration tests): a new manager, given the same history
 * rebuilt from JSON, sends the same bytes, summarizes nothing twice and reads little.
 */
import { describe, expect, it } from 'vitest';
import type { CompactResult } from '../../../../../src/core/compact/compact.js';
import type { ContextAction } from '../../../../../src/core/manage/types.js';
import { isSessionRecordKey } from '../../../../../src/core/manage/records/session-records.js';
import { isOffloadedKey } from '../../../../../src/core/offload/offload-names.js';
import type { Message } from '../../../../../src/core/types.js';
import { countMessageTokens } from '../../../../../src/core/text/tokens.js';
import { createMemoryStore } from '../../../../../src/stores/memory-store.js';
import {
  createRecordingCompact,
  createRecordingLogger,
  createTestManager,
  createTracingStore,
  listKeys,
  quarterCounter,
  SYSTEM,
  summarizeTo,
  TASK,
  textOf,
  toolTurn,
  type TestManagerSettings,
} from '../manager-fixtures.js';

/** A conversation that offloads results and grows past a 1,500-token window (compaction). */
function buildConversation(turns: number): Message[] {
  const history: Message[] = [SYSTEM, TASK];
  for (let turn = 0; turn < turns; turn += 1) {
    history.push(
      ...toolTurn(`call_${turn}`, turn % 3 === 0 ? textOf(2500, `big${turn}`) : textOf(300, `small${turn}`)),
    );
    history.push(
      { role: 'assistant', content: textOf(700, `thinking${turn}`) },
      { role: 'user', content: `go on ${turn}` },
    );
  }
  return history;
}

const SETTINGS: TestManagerSettings = {
  threshold: 1000,
  charThreshold: 200,
  ratioThreshold: 0.5,
  contextTokenLimit: 1500,
};

/** The same history as a server gets it: rebuilt from JSON. */
function rebuilt(messages: readonly Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages)) as Message[];
}

function typesOf(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => action.type);
}

describe('a new manager on the same store', () => {
  it('sends byte-identical messages for the same raw history, and summarizes it once', async () => {
    const store = createMemoryStore();
    const compact = createRecordingCompact();
    const history = buildConversation(6);
    const first = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(history);
    expect(typesOf(first.actions)).toContain('compact');
    const second = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(rebuilt(history));

    expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
    expect(second.actions).toEqual([]);
    expect(compact.calls).toHaveLength(1);
  });

  it('sends the same messages whether the caller sends its raw history or what prepare returned, plus the next turn', async () => {
    const store = createMemoryStore();
    const compact = createRecordingCompact();
    const history = buildConversation(6);
    const first = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(history);
    const next: Message[] = [
      { role: 'assistant', content: 'Done with that.' },
      { role: 'user', content: 'Thanks, now the docs.' },
    ];
    const fromRaw = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(
      rebuilt([...history, ...next]),
    );
    const fromPrepared = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(
      rebuilt([...first.messages, ...next]),
    );

    expect(JSON.stringify(fromRaw.messages)).toBe(JSON.stringify(fromPrepared.messages));
    expect(JSON.stringify(fromRaw.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
    expect(compact.calls).toHaveLength(1);
  });

  it('replays a conversation with a new manager per request exactly as one manager does: same requests, same summaries', async () => {
    const store = createMemoryStore();
    const compact = createRecordingCompact();
    const full = buildConversation(12);
    const stateful = createTestManager({ ...SETTINGS, store: createMemoryStore(), compact: createRecordingCompact() });
    const statelessSent: string[] = [];
    const statefulSent: string[] = [];
    for (let end = 4; end <= full.length; end += 4) {
      const raw = full.slice(0, end);
      statelessSent.push(
        JSON.stringify(
          (await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(rebuilt(raw))).messages,
        ),
      );
      statefulSent.push(JSON.stringify((await stateful.manager.prepare(raw)).messages));
    }
    expect(statelessSent).toEqual(statefulSent);
    expect(compact.calls).toHaveLength(1);
    expect(stateful.compact.calls).toHaveLength(1);
  });
});

describe('store traffic', () => {
  it('reads nothing when warm with nothing new', async () => {
    const store = createTracingStore();
    const { manager } = createTestManager({ ...SETTINGS, store });
    const first = await manager.prepare(buildConversation(6));
    store.calls.length = 0;
    await manager.prepare(first.messages);
    await manager.prepare(rebuilt(buildConversation(6)));
    expect(store.reads()).toEqual([]);
    expect(store.calls).toEqual([]);
  });

  it("reads nothing when warm and given each request's usage figure: it knows the figures it recorded", async () => {
    const store = createTracingStore();
    const { manager } = createTestManager({ ...SETTINGS, contextTokenLimit: 1_000_000, store });
    let history: Message[] = [SYSTEM, TASK];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    await manager.prepare(history);
    store.calls.length = 0;
    for (let turn = 0; turn < 4; turn += 1) {
      history = [
        ...history,
        { role: 'assistant', content: textOf(700, `a${turn}`) },
        { role: 'user', content: 'go on' },
      ];
      const result = await manager.prepare(rebuilt(history), lastUsage === undefined ? {} : { lastUsage });
      lastUsage = { inputTokens: 1000 + 300 * turn, messageCount: result.messages.length };
    }
    expect(store.reads()).toEqual([]);
    const writes = store.calls.filter((call) => call.operation === 'putIfAbsent').map((call) => call.key);
    expect(writes).toHaveLength(3);
    for (const key of writes) {
      expect(key).toMatch(/^s1\/\.records\/anchor-\d+-[0-9a-f]{64}\.json$/);
      expect(isSessionRecordKey(key)).toBe(true);
    }
  });

  /**
   * The anchor records written over a loop of `turns` requests whose figures count a fixed 500
   * tokens plus, for the messages each request added, `ratioAt(turn)` provider tokens per local one.
   */
  async function anchorWrites(turns: number, ratioAt: (turn: number) => number): Promise<string[]> {
    const store = createTracingStore();
    const { manager } = createTestManager({ ...SETTINGS, contextTokenLimit: 1_000_000, store });
    let history: Message[] = [SYSTEM, TASK];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    let [provider, counted] = [500, 0];
    for (let turn = 0; turn < turns; turn += 1) {
      history = [
        ...history,
        { role: 'assistant', content: textOf(900, `a${turn}`) },
        { role: 'user', content: 'go on' },
      ];
      const result = await manager.prepare(rebuilt(history), lastUsage === undefined ? {} : { lastUsage });
      const local = result.messages.reduce((total, message) => total + countMessageTokens(message, quarterCounter), 0);
      [provider, counted] = [provider + Math.round(ratioAt(turn) * (local - counted)), local];
      lastUsage = { inputTokens: provider, messageCount: result.messages.length };
    }
    return store.calls
      .filter((call) => call.operation === 'putIfAbsent' && call.key.includes('/.records/anchor-'))
      .map((call) => call.key);
  }

  it('records no figure that leaves the ratio where it is: the first one, which the next learns against, is all', async () => {
    // the provider counts what the local tokenizer counts: every figure agrees with the ratio in force
    expect(await anchorWrites(8, () => 1)).toHaveLength(1);
  });

  it('records every figure that moves the ratio', async () => {
    // the provider counts 1x, then 2x, then 1x...: each figure moves the ratio by more than the recorded shift
    expect(await anchorWrites(8, (turn) => (turn % 2 === 0 ? 1 : 2))).toHaveLength(7);
  });

  it('reads one listing and the one record it needs when cold, and uploads no content again', async () => {
    const store = createTracingStore();
    const history = buildConversation(6);
    await createTestManager({ ...SETTINGS, store }).manager.prepare(history);
    store.calls.length = 0;
    await createTestManager({ ...SETTINGS, store }).manager.prepare(rebuilt(history));

    const lists = store.calls.filter((call) => call.operation === 'list');
    const gets = store.calls.filter((call) => call.operation === 'get');
    expect(lists).toEqual([{ operation: 'list', key: 's1/' }]);
    expect(gets.every((call) => isSessionRecordKey(call.key))).toBe(true);
    expect(gets.length).toBeLessThanOrEqual(2);
    expect(store.calls.filter((call) => call.operation === 'putIfAbsent' || call.operation === 'put')).toEqual([]);
  });
});

describe('records', () => {
  it('live under <session>/.records/, where the read tool and the offloaded-key rules never reach', async () => {
    const store = createMemoryStore();
    await createTestManager({ ...SETTINGS, store }).manager.prepare(buildConversation(6));
    const records = (await listKeys(store)).filter((key) => key.includes('/.records/'));
    expect(records.length).toBeGreaterThan(0);
    for (const key of records) {
      expect(key).toMatch(/^s1\/\.records\/(compact|count)-\d+-[0-9a-f]{64}\.json$/);
      expect(isSessionRecordKey(key)).toBe(true);
      expect(isOffloadedKey(key)).toBe(false);
    }
  });

  it.each([
    ['corrupt', () => '{"version":1,"kind":"compact", garbage'],
    ['truncated', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['foreign', () => JSON.stringify({ hello: 'world' })],
    ['of a future version', (text: string) => text.replace('"version":1', '"version":99')],
  ])(
    'ignores a %s compaction record with a warning, summarizes again and records under the next name',
    async (_, spoil) => {
      const store = createMemoryStore();
      const history = buildConversation(6);
      await createTestManager({ ...SETTINGS, store }).manager.prepare(history);
      const [key] = (await listKeys(store)).filter((candidate) => candidate.includes('/.records/compact-'));
      const text = (await store.get(key!))!;
      await store.delete(key!);
      await store.put(key!, spoil(text));

      const logger = createRecordingLogger();
      const compact = createRecordingCompact(summarizeTo('Summary written again.'));
      const result = await createTestManager({ ...SETTINGS, store, compact, logger }).manager.prepare(rebuilt(history));
      expect(compact.calls).toHaveLength(1);
      expect(typesOf(result.actions)).toContain('compact');
      expect(logger.warnings).toContainEqual(expect.stringContaining(`the record ${key!} is ignored`));
      expect(await store.get(key!.replace('.json', '~1.json'))).toContain('Summary written again.');

      // and the record written again serves the next manager
      const again = createRecordingCompact();
      const next = await createTestManager({ ...SETTINGS, store, compact: again }).manager.prepare(rebuilt(history));
      expect(again.calls).toHaveLength(0);
      expect(JSON.stringify(next.messages)).toBe(JSON.stringify(result.messages));
    },
  );

  it("ignores a usage figure's record that does not parse, with a warning, and learns from the one before it", async () => {
    const store = createMemoryStore();
    const settings = { ...SETTINGS, contextTokenLimit: 1_000_000, store };
    const warm = createTestManager(settings).manager;
    let history: Message[] = [SYSTEM, TASK];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    for (let turn = 0; turn < 4; turn += 1) {
      history = [
        ...history,
        { role: 'assistant', content: textOf(900, `a${turn}`) },
        { role: 'user', content: 'go on' },
      ];
      const result = await warm.prepare(history, lastUsage === undefined ? {} : { lastUsage });
      lastUsage = { inputTokens: 1000 + 300 * turn, messageCount: result.messages.length };
    }
    const anchors = (await listKeys(store)).filter((key) => key.includes('/.records/anchor-'));
    expect(anchors).toHaveLength(3);
    const latest = anchors.sort(
      (left, right) => Number(/anchor-(\d+)/.exec(right)![1]) - Number(/anchor-(\d+)/.exec(left)![1]),
    )[0]!;
    await store.delete(latest);
    await store.put(latest, '{"version":1,"kind":"anchor", garbage');

    const logger = createRecordingLogger();
    const result = await createTestManager({ ...settings, logger }).manager.prepare(rebuilt(history), {
      lastUsage: lastUsage!,
    });
    expect(logger.warnings).toContainEqual(expect.stringContaining(`the record ${latest} is ignored`));
    expect(result.stats.calibrationSamples).toBe(1);
  });

  it('works as a cold manager when the store fails while records are read, and says so in actions', async () => {
    const inner = createMemoryStore();
    const history = buildConversation(6);
    const first = await createTestManager({ ...SETTINGS, store: inner }).manager.prepare(history);
    const store = createTracingStore(inner);
    store.failReads = true;
    const logger = createRecordingLogger();
    const result = await createTestManager({ ...SETTINGS, store, logger }).manager.prepare(rebuilt(history));

    expect(result.actions[0]).toEqual({
      type: 'records-unavailable',
      error: expect.objectContaining({ message: 'connection reset' }),
    });
    expect(logger.warnings).toContainEqual(expect.stringContaining('could not be read (connection reset)'));
    // the history is not lost: it comes back offloaded and compacted by this call itself
    expect(typesOf(result.actions)).toContain('compact');
    expect(result.messages.length).toBeLessThan(history.length);
    expect(first.messages.length).toBeLessThan(history.length);
  });

  it('applies no record past a message edited mid-history, and reuses nothing wrong', async () => {
    const store = createMemoryStore();
    const history = buildConversation(6);
    const first = await createTestManager({ ...SETTINGS, store }).manager.prepare(history);
    const edited = rebuilt(history);
    edited[1] = { role: 'user', content: 'Fix the failing test in src/time.ts instead.' };
    const compact = createRecordingCompact(summarizeTo('Summary of the edited conversation.'));
    const result = await createTestManager({ ...SETTINGS, store, compact }).manager.prepare(edited);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages[1]).toEqual(edited[1]);
    expect(JSON.stringify(result.messages)).toContain('Summary of the edited conversation.');
    expect(JSON.stringify(result.messages)).not.toBe(JSON.stringify(first.messages));
  });

  it('keeps two sessions with the same content apart', async () => {
    const store = createMemoryStore();
    const compact = createRecordingCompact();
    const history = buildConversation(6);
    await createTestManager({ ...SETTINGS, store, compact, sessionId: 'alice' }).manager.prepare(history);
    await createTestManager({ ...SETTINGS, store, compact, sessionId: 'bob' }).manager.prepare(rebuilt(history));
    expect(compact.calls).toHaveLength(2);
    const keys = await listKeys(store);
    expect(keys.some((key) => key.startsWith('alice/.records/compact-'))).toBe(true);
    expect(keys.some((key) => key.startsWith('bob/.records/compact-'))).toBe(true);
  });

  it('gives the counts it recorded to a new manager, which tokenizes only what came after them', async () => {
    const store = createMemoryStore();
    const history: Message[] = [SYSTEM, TASK];
    for (let turn = 0; turn < 40; turn += 1)
      history.push(
        { role: 'assistant', content: textOf(600, `a${turn}`) },
        { role: 'user', content: textOf(600, `u${turn}`) },
      );
    const settings = { store, threshold: 100_000, ratioThreshold: 1, contextTokenLimit: 30_000 };
    const first = await createTestManager(settings).manager.prepare(history);
    expect(first.stats.tokensAfter).toBeGreaterThan(COUNT_TOKENS);
    expect((await listKeys(store)).some((key) => key.startsWith('s1/.records/count-'))).toBe(true);

    const counted: string[] = [];
    const next = [...rebuilt(history), { role: 'user' as const, content: 'one more' }];
    const result = await createTestManager({ ...settings, onCount: (text) => counted.push(text) }).manager.prepare(
      next,
    );
    // the exact figure needs every count: the recorded ones are taken, the new message is tokenized
    expect(result.stats.tokensAfter).toBe(first.stats.tokensAfter + 6);
    expect(counted).toEqual(['one more']);
  });

  it('gives the counts it recorded to a new manager after the client moved its prompt-cache marker to a newer message', async () => {
    const store = createMemoryStore();
    const text = (value: string, marked: boolean): Message['content'] => [
      { type: 'text', text: value, ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}) },
    ];
    const history: Message[] = [SYSTEM, TASK];
    for (let turn = 0; turn < 40; turn += 1)
      history.push(
        { role: 'assistant', content: text(textOf(600, `a${turn}`), false) },
        { role: 'user', content: text(textOf(600, `u${turn}`), false) },
      );
    const settings = { store, threshold: 100_000, ratioThreshold: 1, contextTokenLimit: 30_000 };
    // as Claude Code sends it: the marker on the newest message
    const last = history.length - 1;
    await createTestManager(settings).manager.prepare([
      ...history.slice(0, last),
      { role: 'user', content: text(textOf(600, 'u39'), true) },
    ]);

    const counted: string[] = [];
    const next = [...rebuilt(history), { role: 'user' as const, content: text('one more', true) }];
    const result = await createTestManager({ ...settings, onCount: (value) => counted.push(value) }).manager.prepare(
      next,
    );
    expect(result.stats.tokensAfter).toBeGreaterThan(0);
    expect(counted).toEqual(['one more']);
  });
});

/** The count records are written once this many local tokens were counted. */
const COUNT_TOKENS = 4096;

describe('two managers compacting the same history at once', () => {
  it("record one compaction: both send the winner's messages, and the loser says it dropped its summary", async () => {
    const store = createMemoryStore();
    const history = buildConversation(6);
    // each compaction waits until both have started: the two are under way at once
    let started = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = (summary: string) =>
      createRecordingCompact(async (messages): Promise<CompactResult> => {
        started += 1;
        if (started === 2) release();
        await gate;
        return summarizeTo(summary)(messages);
      });
    const loggers = [createRecordingLogger(), createRecordingLogger()] as const;
    const first = createTestManager({ ...SETTINGS, store, compact: slow('Summary by A.'), logger: loggers[0] });
    const second = createTestManager({ ...SETTINGS, store, compact: slow('Summary by B.'), logger: loggers[1] });
    const [a, b] = await Promise.all([first.manager.prepare(history), second.manager.prepare(rebuilt(history))]);

    expect(JSON.stringify(a!.messages)).toBe(JSON.stringify(b!.messages));
    expect((await listKeys(store)).filter((key) => key.includes('/.records/compact-'))).toHaveLength(1);
    const dropped = loggers
      .flatMap((logger) => logger.warnings)
      .filter((warning) => warning.includes('another process compacted the same history first'));
    expect(dropped).toHaveLength(1);
  });
});

describe('what a new manager takes from the records besides the messages', () => {
  it('the calibration learned by another manager, once it moved: the same estimate for the same history', async () => {
    const store = createMemoryStore();
    const warm = createTestManager({
      store,
      initialCalibrationRatio: 1.5,
      threshold: 100_000,
      ratioThreshold: 1,
    }).manager;
    let history: Message[] = [TASK];
    let lastUsage: { inputTokens: number; messageCount: number } | undefined;
    for (let turn = 0; turn < 6; turn += 1) {
      history = [
        ...history,
        { role: 'assistant', content: textOf(2000, `a${turn}`) },
        { role: 'user', content: textOf(400, `u${turn}`) },
      ];
      const result = await warm.prepare(history, lastUsage === undefined ? {} : { lastUsage });
      // the provider counts 1.2 tokens per local token (plus a fixed prompt of 3,000)
      const local = result.messages.reduce((total, message) => total + countMessageTokens(message, quarterCounter), 0);
      lastUsage = { inputTokens: 3000 + Math.round(1.2 * local), messageCount: result.messages.length };
    }
    const next = [
      ...history,
      { role: 'assistant' as const, content: 'Done.' },
      { role: 'user' as const, content: 'Thanks.' },
    ];
    const fromWarm = await warm.prepare(next);
    const fromNew = await createTestManager({
      store,
      initialCalibrationRatio: 1.5,
      threshold: 100_000,
      ratioThreshold: 1,
    }).manager.prepare(rebuilt(next));

    expect(fromWarm.stats.calibrationRatio).toBeLessThan(1.5);
    expect(fromNew.stats.calibrationRatio).toBe(fromWarm.stats.calibrationRatio);
    expect(fromNew.stats.tokensAfter).toBe(fromWarm.stats.tokensAfter);
  });

  it('reads a lastUsage after a compaction against the history as sent, when the caller keeps its raw history', async () => {
    const store = createMemoryStore();
    const history = buildConversation(6);
    const first = await createTestManager({ ...SETTINGS, store }).manager.prepare(history);
    expect(first.messages.length).toBeLessThan(history.length);
    const next = [
      ...rebuilt(history),
      { role: 'assistant' as const, content: 'Noted.' },
      { role: 'user' as const, content: 'And then?' },
    ];
    const lastUsage = { inputTokens: 900, messageCount: first.messages.length };
    const result = await createTestManager({ ...SETTINGS, store }).manager.prepare(next, { lastUsage });

    expect(result.actions).toEqual([]);
    expect(result.stats.anchoredMessages).toBe(first.messages.length);
  });
});
