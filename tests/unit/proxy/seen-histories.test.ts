/**
 * The last history of each session: the messages a request repeats reach the context manager
 * as the objects it met before, and only those.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/types.js';
import { createSeenHistories } from '../../../src/proxy/seen-histories.js';

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const history: Message[] = [
  { role: 'user', content: 'Fix the build.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 't1', name: 'run', input: { command: 'npm test', flags: [1, null, true] } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'FAIL' }] },
];

describe('the last history of each session', () => {
  it('hands over the objects of the last history for the leading messages a request repeats', () => {
    const histories = createSeenHistories(4);
    const first = histories.adopt('s1', history.slice());
    const next = [...copy(history), { role: 'assistant', content: 'Fixed.' } as Message];
    const adopted = histories.adopt('s1', next);

    expect(adopted).toEqual([...history, { role: 'assistant', content: 'Fixed.' }]);
    for (let index = 0; index < history.length; index += 1) expect(adopted[index]).toBe(first[index]);
  });

  it('stops at the first message that differs', () => {
    const histories = createSeenHistories(4);
    histories.adopt('s1', history.slice());
    const changed = copy(history);
    changed[1] = { role: 'assistant', content: 'Another answer.' };
    const adopted = histories.adopt('s1', changed);
    expect(adopted[0]).toBe(history[0]);
    expect(adopted[1]).toBe(changed[1]);
    expect(adopted[2]).toBe(changed[2]);
  });

  it('keeps sessions apart', () => {
    const histories = createSeenHistories(4);
    histories.adopt('s1', history.slice());
    const other = copy(history);
    expect(histories.adopt('s2', other)[0]).toBe(other[0]);
  });
});
