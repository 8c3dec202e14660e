/**
 * A store that stops taking writes (a full disk) through the context manager: decisions taken
 * before keep applying (an offloaded result stays a reference, a compaction stays compacted,
 * also for a new manager reading the session's folder), new offloads wait inline with a
 * `writes-deferred` action, and go out once the store takes writes again. The store is a real
 * file store in a temp directory whose writes fail with ENOSPC while it is full.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager } from '../../../src/api/context-manager.js';
import { createExtractiveSummarizer } from '../../../src/core/compact/summary/extractive-summarizer.js';
import { WriteFailedError } from '../../../src/core/errors.js';
import type { ContextAction } from '../../../src/core/manage/types.js';
import type { ContentStore, Logger } from '../../../src/core/ports.js';
import { isToolResultBlock, type Message } from '../../../src/core/types.js';
import { createFileStore } from '../../../src/stores/file-store.js';

let root: string;
const warnings: string[] = [];
const logger: Logger = { warn: (message) => void warnings.push(message) };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'aco-full-store-'));
  warnings.length = 0;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A file store whose writes fail as a full disk's do while `full` is set; reads and listings keep working. */
function createFillableStore(dir: string): { store: ContentStore; fill(): void; free(): void } {
  const files = createFileStore({ dir });
  let full = false;
  const refuse = (key: string): Promise<never> =>
    Promise.reject(
      new WriteFailedError(`could not write ${key}: ENOSPC: no space left on device`, {
        cause: Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
      }),
    );
  const store: ContentStore = new Proxy(files, {
    get(target, property) {
      if (full && (property === 'put' || property === 'putIfAbsent')) return refuse;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, fill: () => void (full = true), free: () => void (full = false) };
}

function rows(id: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${id} row ${index}: value ${index * 7}`).join('\n');
}

function toolTurn(id: string, result: string): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `dump ${id}` } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

function resultOf(messages: readonly Message[], id: string): unknown {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (isToolResultBlock(block) && block.tool_use_id === id) return block.content;
  }
  return undefined;
}

function createManager(store: ContentStore, contextTokenLimit = 20_000) {
  return createContextManager({
    store,
    sessionId: 'full-disk',
    contextTokenLimit,
    summarizer: createExtractiveSummarizer(),
    offload: { directThreshold: 1000, timing: 'on-arrival' },
    logger,
  });
}

function typesOf(actions: readonly ContextAction[]): string[] {
  return actions.map((action) => action.type);
}

const TASK: Message = { role: 'user', content: 'Export the tables.' };

describe('a store that stops taking writes', () => {
  it('keeps an offloaded result a reference and leaves a new one inline, reported, until the store takes writes', async () => {
    const { store, fill, free } = createFillableStore(root);
    const first = await createManager(store).prepare([TASK, ...toolTurn('a', rows('a', 200))]);
    const reference = resultOf(first.messages, 'a');
    expect(reference).toMatch(/^\[Tool result offloaded to file: /);
    fill();
    const history = [TASK, ...toolTurn('a', rows('a', 200)), ...toolTurn('b', rows('b', 200))];

    // a new manager: what was decided is read from the session's folder
    const full = await createManager(store).prepare(history);

    expect(resultOf(full.messages, 'a')).toBe(reference);
    expect(resultOf(full.messages, 'b')).toBe(rows('b', 200));
    expect(full.actions).toEqual([
      { type: 'writes-deferred', toolCallIds: ['b'], error: expect.any(WriteFailedError) },
    ]);
    expect(
      warnings.filter((warning) => warning.includes('new results stay inline until it takes writes again')),
    ).toHaveLength(1);

    free();
    const freed = await createManager(store).prepare(history);
    expect(resultOf(freed.messages, 'a')).toBe(reference);
    expect(resultOf(freed.messages, 'b')).toMatch(/^\[Tool result offloaded to file: /);
    expect(typesOf(freed.actions)).toEqual(['direct-offload']);
  });

  it('warns once while the store keeps refusing, and reports every call that held a write back', async () => {
    const { store, fill } = createFillableStore(root);
    const manager = createManager(store);
    fill();
    let history: Message[] = [TASK];
    const deferred: string[][] = [];
    for (const id of ['a', 'b', 'c']) {
      history = [...history, ...toolTurn(id, rows(id, 200))];
      const result = await manager.prepare(history);
      deferred.push(
        result.actions.flatMap((action) => (action.type === 'writes-deferred' ? action.toolCallIds : [])).sort(),
      );
      history = [...history, { role: 'assistant', content: 'Next.' }];
    }

    expect(deferred).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    expect(warnings.filter((warning) => warning.includes('the store refused a write'))).toHaveLength(1);
  });

  it('keeps a compaction compacted, for the same manager and a new one', async () => {
    const { store, fill } = createFillableStore(root);
    const talk: Message[] = Array.from({ length: 40 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `Message ${index}: ${'the exporter batches rows and retries a failed flush twice; '.repeat(10)}`,
    }));
    const history: Message[] = [TASK, ...talk];
    const manager = createManager(store, 6000);
    const compacted = await manager.prepare(history);
    expect(typesOf(compacted.actions)).toContain('compact');
    fill();
    const next: Message[] = [...history, ...toolTurn('late', rows('late', 60))];

    for (const later of [manager, createManager(store, 6000)]) {
      const result = await later.prepare(next);
      expect(result.messages.slice(0, compacted.messages.length)).toEqual(compacted.messages);
      expect(result.messages.length).toBeLessThan(next.length);
      expect(resultOf(result.messages, 'late')).toBe(rows('late', 60));
      expect(typesOf(result.actions)).toEqual(['writes-deferred']);
    }
  });
});
