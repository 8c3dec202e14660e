/**
 * Many calls raced on one signal (a batch of offloads, each store call raced) share one
 * listener on it: no `MaxListenersExceededWarning`, and none left behind once they settle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { offloadToolResults } from '../../../src/api/offload.js';
import { raceWithSignal } from '../../../src/core/abort.js';
import type { Message } from '../../../src/core/types.js';
import { createMemoryStore } from '../../../src/stores/memory-store.js';

const warnings: Error[] = [];
const collect = (warning: Error): number => warnings.push(warning);

/** The warnings the process emitted while `run` ran (emitted on a later tick, so waited for). */
async function warningsDuring(run: () => Promise<unknown>): Promise<string[]> {
  process.on('warning', collect);
  await run();
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', collect);
  return warnings.map((warning) => warning.name);
}

afterEach(() => {
  warnings.length = 0;
});

describe('raceWithSignal on one signal', () => {
  it('races 20 calls at once without a listener warning', async () => {
    const controller = new AbortController();

    const names = await warningsDuring(() =>
      Promise.all(Array.from({ length: 20 }, (_, index) => raceWithSignal(Promise.resolve(index), controller.signal))),
    );

    expect(names).not.toContain('MaxListenersExceededWarning');
  });

  it('still rejects every pending call when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = Array.from({ length: 20 }, () =>
      raceWithSignal(new Promise<never>(() => undefined), controller.signal),
    );

    controller.abort(new Error('stop'));

    const outcomes = await Promise.allSettled(pending);
    expect(
      outcomes.every((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message === 'stop'),
    ).toBe(true);
  });

  it('removes its listener once the calls have settled', async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => ((added += 1), add(...args));
    signal.removeEventListener = (...args: Parameters<typeof remove>) => ((removed += 1), remove(...args));

    await Promise.all(Array.from({ length: 5 }, (_, index) => raceWithSignal(Promise.resolve(index), signal)));

    expect({ added, removed }).toEqual({ added: 1, removed: 1 });
  });
});

describe('offloadToolResults with a signal', () => {
  it('offloads a batch of 20 results without a listener warning', async () => {
    const ids = Array.from({ length: 20 }, (_, index) => `toolu_${index}`);
    const messages: Message[] = [
      { role: 'assistant', content: ids.map((id) => ({ type: 'tool_use', id, name: 'Bash', input: {} })) },
      {
        role: 'user',
        content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: `${id} ${'x'.repeat(2000)}` })),
      },
    ];

    let offloaded = 0;
    const names = await warningsDuring(async () => {
      const result = await offloadToolResults(messages, {
        store: createMemoryStore(),
        signal: new AbortController().signal,
      });
      offloaded = result.offloadedCount;
    });

    expect(offloaded).toBe(20);
    expect(names).not.toContain('MaxListenersExceededWarning');
  });
});
