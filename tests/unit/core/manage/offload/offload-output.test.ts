/**
 * `offloadOutput`: direct offload of one tool output as it arrives, for the per-tool hooks of
 * agent frameworks; its decisions are the manager's, so the history that later holds the
 * output gets the same reference.
 */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../../../src/core/errors.js';
import type { ContextAction } from '../../../../../src/core/manage/types.js';
import {
  createCountingStore,
  createTestManager,
  directKey,
  directReference,
  listKeys,
  resultContent,
  TASK,
  textOf,
  toolTurn,
} from '../manager-fixtures.js';

describe('offloadOutput', () => {
  it('returns an output below `threshold` as it is and writes nothing', async () => {
    const { manager, store } = createTestManager({ threshold: 1000 });
    const output = textOf(999);
    expect(await manager.offloadOutput(output, { toolName: 'bash', toolCallId: 'call_1' })).toBe(output);
    expect(await listKeys(store)).toEqual([]);
  });

  it('offloads an output of `threshold` characters to <sessionId>/<id>-<content hash>.md and returns its reference', async () => {
    const offloads: ContextAction[] = [];
    const { manager, store } = createTestManager({
      threshold: 1000,
      hooks: { onOffload: (action) => void offloads.push(action) },
    });
    const output = textOf(1000);
    const REFERENCE = directReference(directKey('call_1', output));
    expect(await manager.offloadOutput(output, { toolName: 'bash', toolCallId: 'call_1' })).toBe(REFERENCE);
    expect(await store.get(directKey('call_1', output))).toBe(output);
    expect(offloads).toEqual([
      { type: 'direct-offload', toolCallIds: ['call_1'], references: [REFERENCE], freedChars: 1000 - REFERENCE.length },
    ]);
  });

  it('never offloads an excluded tool, the read tool, or a reference', async () => {
    const { manager, store } = createTestManager({ threshold: 10, excludeTools: ['grep'] });
    const output = textOf(500);
    expect(await manager.offloadOutput(output, { toolName: 'grep', toolCallId: 'g' })).toBe(output);
    expect(await manager.offloadOutput(output, { toolName: 'read_offloaded', toolCallId: 'r' })).toBe(output);
    expect(
      await manager.offloadOutput('[Content offloaded to: ./tool-result-x.md]', { toolName: 'bash', toolCallId: 'x' }),
    ).toBe('[Content offloaded to: ./tool-result-x.md]');
    expect(await listKeys(store)).toEqual([]);
  });

  it('writes the same output under the same call id once', async () => {
    const store = createCountingStore();
    const { manager } = createTestManager({ store, threshold: 100 });
    const first = await manager.offloadOutput(textOf(500), { toolName: 'bash', toolCallId: 'call_1' });
    const again = await manager.offloadOutput(textOf(500), { toolName: 'bash', toolCallId: 'call_1' });
    expect(again).toBe(first);
    expect(store.writes).toEqual([directKey('call_1', textOf(500))]);
  });

  it('gives another output under a reused call id a name of its own, the first one untouched', async () => {
    const { manager, store } = createTestManager({ threshold: 100 });
    const first = textOf(500, 'first');
    const second = textOf(500, 'second');
    await manager.offloadOutput(first, { toolName: 'bash', toolCallId: 'call_0' });
    expect(await manager.offloadOutput(second, { toolName: 'bash', toolCallId: 'call_0' })).toBe(
      directReference(directKey('call_0', second)),
    );
    expect(await store.get(directKey('call_0', first))).toBe(first);
    expect(await store.get(directKey('call_0', second))).toBe(second);
  });

  it('leaves inline an output whose call reads offloaded content back (its input names the session folder)', async () => {
    const { manager, store } = createTestManager({ threshold: 100 });
    const output = textOf(500);
    const input = { file_path: 'memory://default/s1/call_0-0123456789abcdef.md' };
    expect(await manager.offloadOutput(output, { toolName: 'Read', toolCallId: 'call_9', input })).toBe(output);
    expect(await listKeys(store)).toEqual([]);
  });

  it('leaves inline the output of a file read that equals content stored under another call', async () => {
    const { manager, store } = createTestManager({ threshold: 100 });
    const output = textOf(500);
    await manager.offloadOutput(output, { toolName: 'bash', toolCallId: 'call_0' });
    expect(await manager.offloadOutput(output, { toolName: 'read_file', toolCallId: 'call_1' })).toBe(output);
    expect(await listKeys(store)).toEqual([directKey('call_0', output)]);
  });

  it('gives the history that holds the raw output the same reference, without writing again', async () => {
    const store = createCountingStore();
    const { manager } = createTestManager({ store, threshold: 1000 });
    const output = textOf(3000);
    const reference = await manager.offloadOutput(output, { toolName: 'bash', toolCallId: 'call_1' });
    const result = await manager.prepare([TASK, ...toolTurn('call_1', [{ type: 'text', text: output }])]);

    expect(resultContent(result.messages[2])).toBe(reference);
    expect(result.actions).toEqual([]);
    expect(store.writes).toEqual([directKey('call_1', output)]);
  });

  it.each([
    ['an output that is not a string', 42, { toolName: 'bash', toolCallId: 'c' }, /output must be a string/],
    ['a call without its id', 'text', { toolName: 'bash' }, /call.toolCallId must be a non-empty string/],
    ['a call without its tool name', 'text', { toolCallId: 'c' }, /call.toolName must be a string/],
    ['no call at all', 'text', undefined, /call must be an object/],
  ])('rejects %s, naming it', async (_, output, call, message) => {
    const { manager } = createTestManager();
    const error: unknown = await manager
      .offloadOutput(output as string, call as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toMatch(message);
  });
});
