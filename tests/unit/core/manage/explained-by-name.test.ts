/**
 * A raw result another process offloaded is found by the name its content has, without listing
 * the session's folder: a listing grows with the session and is made at most once, on a
 * manager's first call.
 */
import { describe, expect, it } from 'vitest';
import { createTestManager, createTracingStore, TASK, textOf, toolTurn } from './manager-fixtures.js';

describe('a result another process offloaded, met by a warm manager', () => {
  it('takes the other process s reference after asking the store about its names, without a listing and without writing', async () => {
    const store = createTracingStore();
    const warm = createTestManager({ store, threshold: 1000 }).manager;
    const other = createTestManager({ store, threshold: 1000 }).manager;
    await warm.prepare([TASK, ...toolTurn('a', 'ok')]);
    const history = [TASK, ...toolTurn('a', 'ok'), ...toolTurn('b', textOf(4000))];
    const offloaded = await other.prepare(history);
    store.calls.length = 0;

    const result = await warm.prepare(history);

    expect(offloaded.actions.map((action) => action.type)).toEqual(['direct-offload']);
    expect(result.actions).toEqual([]);
    expect(JSON.stringify(result.messages)).toBe(JSON.stringify(offloaded.messages));
    expect(store.calls.filter((call) => call.operation === 'list')).toEqual([]);
    expect(store.calls.filter((call) => call.operation === 'putIfAbsent' || call.operation === 'put')).toEqual([]);
  });

  it('offloads a result no process offloaded after the same questions, as a manager that listed would', async () => {
    const store = createTracingStore();
    const manager = createTestManager({ store, threshold: 1000 }).manager;
    await manager.prepare([TASK, ...toolTurn('a', 'ok')]);
    store.calls.length = 0;

    const result = await manager.prepare([TASK, ...toolTurn('a', 'ok'), ...toolTurn('b', textOf(4000))]);

    expect(result.actions.map((action) => action.type)).toEqual(['direct-offload']);
    expect(store.calls.filter((call) => call.operation === 'stat').length).toBeGreaterThan(0);
  });
});
