/**
 * A tool result that brings offloaded content back (the agent's own tool opening a reference's
 * path, a `cat` of it, or any result whose content is content already stored in the session)
 * is what the model asked to see: the manager never offloads it again.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../src/core/types.js';
import {
  createTestManager,
  directKey,
  directReference,
  listKeys,
  resultContent,
  TASK,
  textOf,
  toolTurn,
} from './manager-fixtures.js';

function readTurn(id: string, input: Record<string, unknown>, output: string, toolName = 'Read'): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: toolName, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
  ];
}

describe('read-backs stay read', () => {
  it('leaves inline the result of a tool whose input names a reference of the session (Read of its path)', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, ratioThreshold: 0.01, charThreshold: 100 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const path = `memory://default/${directKey('a', textOf(3000))}`;
    const numbered = textOf(3000)
      .split(' ')
      .map((word, line) => `${line + 1}\t${word}`)
      .join('\n');
    const result = await manager.prepare([...first.messages, ...readTurn('r', { file_path: path }, numbered)]);

    expect(result.actions).toEqual([]);
    expect(resultContent(result.messages[4])).toBe(numbered);
    expect(await listKeys(store)).toEqual([directKey('a', textOf(3000))]);
  });

  it("leaves inline a shell command that prints a reference's content (cat of its path)", async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const path = `memory://default/${directKey('a', textOf(3000))}`;
    const result = await manager.prepare([
      ...first.messages,
      ...readTurn('c', { command: `cat ${path} | head -200` }, `${textOf(3000)}\n`, 'bash'),
    ]);
    expect(result.actions).toEqual([]);
  });

  it('leaves inline a file read whose content is content stored under another call', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const result = await manager.prepare([
      ...first.messages,
      ...readTurn('r', { path: 'notes/saved.md' }, textOf(3000), 'read_file'),
    ]);
    expect(result.actions).toEqual([]);
    expect(resultContent(result.messages[4])).toBe(textOf(3000));
  });

  it('leaves inline a result whose call names stored content by its file name (a relative path)', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const name = directKey('a', textOf(3000)).split('/')[1]!;
    const result = await manager.prepare([
      ...first.messages,
      ...readTurn('c', { command: `sed -n 1,80p .agent-context/s1/${name}` }, textOf(2500, 'lines'), 'bash'),
    ]);
    expect(result.actions).toEqual([]);
  });

  it('offloads another tool printing the same output as an earlier call (a re-run), as usual', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const result = await manager.prepare([...first.messages, ...toolTurn('b', textOf(3000))]);
    expect(result.actions).toEqual([expect.objectContaining({ type: 'direct-offload', toolCallIds: ['b'] })]);
    expect(resultContent(result.messages[4])).toBe(directReference(directKey('b', textOf(3000))));
  });

  it('keeps a read-back inline in every later call, batch offload and a new manager included', async () => {
    const { manager, store } = createTestManager({ threshold: 1000, charThreshold: 100, ratioThreshold: 0.01 });
    const first = await manager.prepare([TASK, ...toolTurn('a', textOf(3000))]);
    const path = `memory://default/${directKey('a', textOf(3000))}`;
    const history = [
      ...first.messages,
      ...readTurn('r', { file_path: path }, textOf(2000, 'page')),
      { role: 'assistant' as const, content: textOf(4000, 'talk') },
    ];
    const again = await manager.prepare(history);
    const cold = await createTestManager({
      store,
      threshold: 1000,
      charThreshold: 100,
      ratioThreshold: 0.01,
    }).manager.prepare(JSON.parse(JSON.stringify(history)) as Message[]);
    expect(resultContent(again.messages[4])).toBe(textOf(2000, 'page'));
    expect(resultContent(cold.messages[4])).toBe(textOf(2000, 'page'));
  });

  it('still offloads a large result of a tool whose input names another place', async () => {
    const { manager } = createTestManager({ threshold: 1000 });
    const result = await manager.prepare([
      TASK,
      ...readTurn('r', { file_path: '/home/dev/app/src/big.ts' }, textOf(3000)),
    ]);
    expect(result.actions.map((action) => action.type)).toEqual(['direct-offload']);
  });
});
