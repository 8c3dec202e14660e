/**
 * A provider's own compaction (Anthropic's `compaction` block, a Responses `compaction` item) is
 * the head of the history for the manager: nothing through it is offloaded, compacted or
 * summarized across, and a history over the trigger after it is compacted after it only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partitionMessages } from '../../../../src/core/compact/partition.js';
import type { MessageFormat } from '../../../../src/core/format.js';
import type { Message } from '../../../../src/core/types.js';
import { formats } from '../../../../src/formats/index.js';
import type { OpenAIResponsesItem } from '../../../../src/formats/openai-responses.js';
import { deepFreeze } from '../../../fixtures/offload-fixtures.js';
import {
  createRecordingCompact,
  createTestManager,
  directKey,
  summarizeTo,
  listKeys,
  resultContent,
  SYSTEM,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

const COMPACTION_BLOCK = {
  type: 'compaction',
  content: 'Summary by the provider: the date parser is written, two tests pass.',
  encrypted_content: 'EuYBCkYIBRgCKkBopaque==',
};

/** The assistant turn the provider answered with after compacting. */
const PROVIDER_HEAD: Message = {
  role: 'assistant',
  content: [COMPACTION_BLOCK, { type: 'text', text: 'Continuing with time zones.' }],
};

/** What came before the provider's compaction, with a result large enough to be offloaded. */
function compactedAway(): Message[] {
  return [SYSTEM, { role: 'user', content: 'Write a date parser.' }, ...toolTurn('old', textOf(5000))];
}

describe('the manager with a provider compaction at the head', () => {
  it('never offloads a result before the compaction, and offloads one after it', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, ratioThreshold: 1 });
    const before = compactedAway();
    const history = deepFreeze([
      ...before,
      PROVIDER_HEAD,
      { role: 'user', content: 'Now add time zones.' },
      ...toolTurn('new', textOf(5000)),
    ] as Message[]);
    const result = await manager.prepare(history);

    history.slice(0, before.length + 1).forEach((message, index) => expect(result.messages[index]).toBe(message));
    expect(await listKeys(store)).toEqual([directKey('new', textOf(5000))]);
    expect(resultContent(result.messages.at(-1))).not.toBe(textOf(5000));
  });

  it('compacts an over-trigger history after the compaction only, keeping everything through it as it came', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const before = compactedAway();
    const after: Message[] = [
      { role: 'user', content: 'Now add time zones.' },
      { role: 'assistant', content: textOf(8000) },
    ];
    const history = deepFreeze([...before, PROVIDER_HEAD, ...after]);
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toEqual(after);
    history.slice(0, before.length + 1).forEach((message, index) => expect(result.messages[index]).toBe(message));
    expect(JSON.stringify(result.messages[before.length])).toBe(JSON.stringify(PROVIDER_HEAD));
    expect(result.messages.slice(before.length + 1)).not.toEqual(after);
  });

  it('does not count what Anthropic drops before its compaction towards the trigger', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000, threshold: 100_000 });
    const history = [
      { role: 'user' as const, content: textOf(20_000) },
      PROVIDER_HEAD,
      { role: 'user' as const, content: 'Now add time zones.' },
    ];
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(0);
    expect(result.actions).toEqual([]);
    expect(result.messages).toEqual(history);
  });

  it('counts what comes before a compaction block whose content is null (a failed one, which drops nothing)', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000, threshold: 100_000 });
    const failed: Message = { role: 'assistant', content: [{ ...COMPACTION_BLOCK, content: null }] };
    const after: Message[] = [
      { role: 'user', content: 'Now add time zones.' },
      { role: 'assistant', content: textOf(4000) },
    ];
    const history = [{ role: 'user' as const, content: textOf(4000) }, failed, ...after];
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toEqual(after);
    expect(result.messages[1]).toBe(failed);
  });

  it('never compacts away the results of calls the compaction message made', async () => {
    // a compaction that keeps the Head as compactMessages does, and puts a summary pair after it
    const keepingHead = createRecordingCompact((messages) => {
      const { head: kept } = partitionMessages(messages);
      return { ...summarizeTo('Summary.')(messages), messages: [...kept, ...summarizeTo('Summary.')([]).messages] };
    });
    const { manager, compact } = createTestManager({
      contextTokenLimit: 2000,
      threshold: 100_000,
      compact: keepingHead,
    });
    const head: Message = {
      role: 'assistant',
      content: [COMPACTION_BLOCK, { type: 'tool_use', id: 'call_test', name: 'bash', input: { command: 'npm test' } }],
    };
    const results: Message = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_test', content: 'All 12 tests pass.' }],
    };
    const after: Message[] = [
      { role: 'assistant', content: textOf(8000) },
      { role: 'user', content: 'Now add time zones.' },
    ];
    const history = deepFreeze([...compactedAway(), head, results, ...after]);
    const result = await manager.prepare(history);

    expect(compact.calls).toHaveLength(1);
    expect(result.actions.map((action) => action.type)).toEqual(['compact']);
    expect(result.messages[history.indexOf(head) + 1]).toBe(results);
    expect(result.messages.slice(history.indexOf(head) + 2).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });

  it('sets aside a usage figure of the history the provider compacted away', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000, threshold: 100_000 });
    const before = compactedAway();
    const history = [...before, PROVIDER_HEAD, { role: 'user' as const, content: 'Now add time zones.' }];
    // the request before the compaction: far over the trigger, and over messages the provider now drops
    const result = await manager.prepare(history, { lastUsage: { inputTokens: 150_000, messageCount: before.length } });

    expect(compact.calls).toHaveLength(0);
    expect(result.actions).toEqual([]);
    expect(result.messages).toEqual(history);
  });

  it('compacts after a second provider compaction only, the newest being the head', async () => {
    const { manager, compact } = createTestManager({ contextTokenLimit: 2000 });
    const secondHead: Message = {
      role: 'assistant',
      content: [
        { ...COMPACTION_BLOCK, content: 'Second summary.' },
        { type: 'text', text: 'Going on.' },
      ],
    };
    const after: Message[] = [
      { role: 'user', content: 'Add leap seconds.' },
      { role: 'assistant', content: textOf(8000) },
    ];
    const history = [
      ...compactedAway(),
      PROVIDER_HEAD,
      { role: 'user' as const, content: 'Go on.' },
      secondHead,
      ...after,
    ];
    const result = await manager.prepare(history);

    expect(compact.calls[0]!.messages).toEqual(after);
    expect(result.messages.indexOf(secondHead)).toBe(history.indexOf(secondHead));
  });
});

describe('the manager with an encrypted Responses compaction item at the head', () => {
  const format = formats.openaiResponses as unknown as MessageFormat<OpenAIResponsesItem>;
  const compactionItem = { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAAABo-ciphertext==' };

  it('compacts after the item only and sends the items through it as the very objects given', async () => {
    const { manager, compact } = createTestManager<OpenAIResponsesItem>({ contextTokenLimit: 2000, format });
    const kept: OpenAIResponsesItem[] = [{ role: 'user', content: 'Write a date parser.' }, compactionItem];
    const after: OpenAIResponsesItem[] = [
      { role: 'user', content: 'Now add time zones.' },
      { role: 'assistant', content: textOf(8000) },
    ];
    const result = await manager.prepare(deepFreeze([...kept, ...after]));

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(result.messages[0]).toBe(kept[0]);
    expect(result.messages[1]).toBe(compactionItem);
  });

  it('counts the messages OpenAI keeps before its compaction item towards the trigger', async () => {
    const { manager, compact } = createTestManager<OpenAIResponsesItem>({
      contextTokenLimit: 2000,
      threshold: 100_000,
      format,
    });
    const after: OpenAIResponsesItem[] = [
      { role: 'user', content: 'Now add time zones.' },
      { role: 'assistant', content: textOf(4000) },
    ];
    // 1,000 tokens kept before the item and 1,000 after it: over the trigger of 1,840 only together
    const result = await manager.prepare([{ role: 'user', content: textOf(4000) }, compactionItem, ...after]);

    expect(compact.calls).toHaveLength(1);
    expect(compact.calls[0]!.messages).toHaveLength(2);
    expect(result.messages[1]).toBe(compactionItem);
  });
});

describe('partitionMessages with a provider compaction', () => {
  it('keeps the results of calls made in the compaction message with it', () => {
    const head: Message = {
      role: 'assistant',
      content: [COMPACTION_BLOCK, { type: 'tool_use', id: 'call_test', name: 'bash', input: { command: 'npm test' } }],
    };
    const results: Message = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_test', content: 'ok' }],
    };
    const history = [...compactedAway(), head, results, { role: 'assistant' as const, content: 'Tests pass.' }];
    const { head: kept, rest } = partitionMessages(history);
    expect(kept.at(-1)).toBe(results);
    expect(rest).toEqual(history.slice(-1));
  });

  it('ends the head at the newest message holding a compaction block', () => {
    const history = [...compactedAway(), PROVIDER_HEAD, { role: 'user' as const, content: 'Now add time zones.' }];
    const { head, rest } = partitionMessages(history);
    expect(head).toEqual(history.slice(0, -1));
    expect(rest).toEqual(history.slice(-1));
  });

  it('keeps results whose calls came before the history began in the head', () => {
    const results: Message = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'earlier', content: 'ok' }],
    };
    const history: Message[] = [SYSTEM, results, { role: 'assistant', content: 'Done.' }];
    expect(partitionMessages(history).head).toEqual([SYSTEM, results]);
  });

  it('ends the head at an opaque compaction item of a format', () => {
    const item: Message = {
      role: 'assistant',
      content: [{ type: 'openai-responses:compaction', item: { type: 'compaction', encrypted_content: 'x' } }],
    };
    const history: Message[] = [{ role: 'user', content: 'a' }, item, { role: 'user', content: 'b' }];
    expect(partitionMessages(history).head).toEqual([history[0], item]);
  });
});

describe('the provider head, for any history', () => {
  /** A turn of the conversation: a tool round with a result of `size` characters, or plain talk. */
  const turn = fc.record({ kind: fc.constantFrom('tool', 'talk'), size: fc.integer({ min: 10, max: 6000 }) });
  const toMessages = (turns: readonly { kind: string; size: number }[], prefix: string): Message[] =>
    turns.flatMap(({ kind, size }, index) =>
      kind === 'tool'
        ? toolTurn(`${prefix}${index}`, textOf(size))
        : [
            { role: 'user' as const, content: `Question ${prefix}${index}` },
            { role: 'assistant' as const, content: textOf(size) },
          ],
    );

  it('sends every message through the head as the very object given, and never offloads or compacts it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { maxLength: 5 }),
        fc.array(turn, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1500, max: 8000 }),
        async (beforeTurns, afterTurns, contextTokenLimit) => {
          const { manager, compact } = createTestManager({ contextTokenLimit, threshold: 1000 });
          const before = [{ role: 'user' as const, content: 'Start.' }, ...toMessages(beforeTurns, 'b')];
          const after = [{ role: 'user' as const, content: 'Go on.' }, ...toMessages(afterTurns, 'a')];
          const history = deepFreeze([...before, PROVIDER_HEAD, ...after]);
          const result = await manager.prepare(history);

          history.slice(0, before.length + 1).forEach((message, index) => expect(result.messages[index]).toBe(message));
          const pinned = history.slice(0, before.length + 1);
          for (const call of compact.calls) for (const message of call.messages) expect(pinned).not.toContain(message);
          for (const action of result.actions)
            if (action.type === 'direct-offload' || action.type === 'batch-offload')
              for (const id of action.toolCallIds) expect(id.startsWith('a')).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
